//! `gather::near_candidates`: the pairs the near-duplicate gatherer judges,
//! which near_eval's semantic measurement checks (docs/DREAM.md). They must
//! be the gatherer's own: every merge is among them, and records of another
//! type or of unrelated words are not.

use jiff::Timestamp;
use mddream::gather::{gather, near_candidates};
use mddream::plan::Operation;

use crate::support::{NOW, record, store};

#[test]
fn near_candidates_hold_every_merge_and_only_records_of_one_type() {
    let files = [
        (
            "a.md",
            record(
                "a",
                "project",
                "user",
                "2026-03-01T00:00:00Z",
                "Use pnpm for installs",
                "Always install dependencies with pnpm, never npm.",
            ),
        ),
        (
            "b.md",
            record(
                "b",
                "project",
                "user",
                "2026-03-02T00:00:00Z",
                "Use pnpm for installs",
                "Always install the dependencies with pnpm and never with npm.",
            ),
        ),
        (
            "c.md",
            record(
                "c",
                "feedback",
                "user",
                "2026-03-03T00:00:00Z",
                "Use pnpm for installs",
                "Always install the dependencies with pnpm, never with npm.",
            ),
        ),
        (
            "d.md",
            record(
                "d",
                "project",
                "user",
                "2026-03-04T00:00:00Z",
                "Office hours",
                "The team meets on Tuesdays in the Lisbon office.",
            ),
        ),
    ];
    let (_dir, records) = store(&files);
    let id = |i: usize| records[i].record.id.clone();
    let candidates: Vec<(String, String)> = near_candidates(&records)
        .into_iter()
        .map(|(a, b)| (id(a), id(b)))
        .collect();
    let pair = |x: &str, y: &str| {
        candidates
            .iter()
            .any(|(a, b)| (a == x && b == y) || (a == y && b == x))
    };
    assert!(
        pair("a", "b"),
        "a restatement is a candidate: {candidates:?}"
    );
    assert!(
        !pair("a", "c") && !pair("b", "c"),
        "another type: {candidates:?}"
    );
    assert!(
        !pair("a", "d") && !pair("b", "d"),
        "other words: {candidates:?}"
    );

    let now: Timestamp = NOW.parse().unwrap_or_else(|e| panic!("{NOW}: {e}"));
    let plan = gather(&records, now);
    let mut merged = 0;
    for op in &plan.operations {
        if let Operation::Merge { reads, .. } = op {
            merged += 1;
            for (n, x) in reads.iter().enumerate() {
                for y in &reads[n + 1..] {
                    let (x, y) = (&x.id, &y.id);
                    assert!(
                        pair(x, y),
                        "merged {x} and {y}, no candidates: {candidates:?}"
                    );
                }
            }
        }
    }
    assert_eq!(merged, 1, "the restatement is merged: {plan:?}");
}
