//! Gathering on hostile or measured input: secrets, terminal escapes,
//! huge values, and the labelled pairs of docs/DREAM.md.

use insta::assert_json_snapshot;

use crate::support::{plan_of, record};

#[test]
fn a_record_holding_a_secret_is_not_merged_into_new_text() {
    let secret = "AKIAIOSFODNN7EXAMPL2";
    let plan = plan_of(&[
        (
            "key-a.md",
            record(
                "key-a",
                "reference",
                "user",
                "2026-01-10T00:00:00Z",
                "CI key",
                &format!("The CI user key id is {secret}.\n"),
            ),
        ),
        (
            "key-b.md",
            record(
                "key-b",
                "reference",
                "user",
                "2026-02-10T00:00:00Z",
                "CI key",
                &format!("the CI user key id is {secret}.\n"),
            ),
        ),
    ]);
    let text = serde_json::to_string(&plan).unwrap_or_default();
    assert!(
        !text.contains(secret),
        "the plan repeats the secret: {text}"
    );
    assert_json_snapshot!(plan);
}

/// The labelled pairs of docs/DREAM.md: no hard negative (same subject,
/// different fact) may be merged or read as a correction, and the
/// measured recall may not fall.
#[test]
fn a_terminal_escape_in_a_corrected_value_is_quoted_escaped() {
    let plan = plan_of(&[
        (
            "old.md",
            record(
                "old",
                "project",
                "user",
                "2026-01-10T00:00:00Z",
                "Node version",
                "We use Node 18\u{1b}[2J for every service.\n",
            ),
        ),
        (
            "new.md",
            record(
                "new",
                "project",
                "user",
                "2026-04-02T00:00:00Z",
                "Node version",
                "We use Node 22\u{1b}[2J for every service.\n",
            ),
        ),
    ]);
    assert_eq!(plan.operations.len(), 1, "{plan:#?}");
    let reason = plan.operations[0].reason();
    assert!(!reason.chars().any(char::is_control), "{reason:?}");
    assert!(reason.contains(r"\x1b"), "{reason:?}");
}

#[test]
fn a_huge_value_is_cut_in_the_reason() {
    let (a, b) = ("1".repeat(5_000), "2".repeat(5_000));
    let plan = plan_of(&[
        (
            "old.md",
            record(
                "old",
                "project",
                "user",
                "2026-01-10T00:00:00Z",
                "Build number",
                &format!("The build number is {a} today.\n"),
            ),
        ),
        (
            "new.md",
            record(
                "new",
                "project",
                "user",
                "2026-04-02T00:00:00Z",
                "Build number",
                &format!("The build number is {b} today.\n"),
            ),
        ),
    ]);
    assert_eq!(plan.operations.len(), 1, "{plan:#?}");
    assert!(
        plan.operations[0].reason().chars().count() < 400,
        "{:?}",
        plan.operations[0].reason()
    );
}

/// A hand-made `pаy.md` (Cyrillic `а`), the newer of two duplicates, once
/// became the merged record's name, and validation rejected the whole plan.
#[test]
fn look_alike_named_record_is_not_the_merged_name() {
    let look_alike = "p\u{430}y";
    for (a_body, b_body) in [
        (
            "Payments go through Stripe.\n",
            "Payments go through Stripe.\n",
        ),
        (
            "Payments go through Stripe.\n",
            "All payments go through Stripe.\n",
        ),
    ] {
        let plan = plan_of(&[
            (
                "pay.md",
                record(
                    "pay",
                    "project",
                    "user",
                    "2026-01-10T00:00:00Z",
                    "payments",
                    a_body,
                ),
            ),
            (
                &format!("{look_alike}.md"),
                record(
                    look_alike,
                    "project",
                    "user",
                    "2026-02-10T00:00:00Z",
                    "payments",
                    b_body,
                ),
            ),
        ]);
        for op in &plan.operations {
            if let mddream::plan::Operation::Merge { into, .. } = op {
                assert_ne!(into.name, look_alike, "merged under a look-alike: {plan:?}");
            }
        }
    }
}

/// Two hand-written copies of a body holding a terminal escape were
/// proposed as a merge whose new text validation refused, so the whole
/// rules' plan was rejected (exit 2) and nothing else was applied.
#[test]
fn escape_in_duplicate_bodies_does_not_sink_the_rules_plan() {
    let body = "We deploy with \u{1b}[31mred\u{1b}[0m on Fridays.\n";
    let plan = plan_of(&[
        (
            "a.md",
            record(
                "a",
                "project",
                "user",
                "2026-01-10T00:00:00Z",
                "deploys",
                body,
            ),
        ),
        (
            "b.md",
            record(
                "b",
                "project",
                "user",
                "2026-02-10T00:00:00Z",
                "deploys",
                body,
            ),
        ),
    ]);
    for op in &plan.operations {
        if let mddream::plan::Operation::Merge { into, .. } = op {
            assert!(!into.body.contains('\u{1b}'), "merged an escape: {plan:?}");
        }
    }
}

/// `Foo.md`, `foo.md` and `ｆｏｏ.md` (one record to the name rules) were all
/// read, and the rules' plan merging them was rejected as reading one record
/// twice: they are now listed as not read.
#[test]
fn ids_differing_only_in_case_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["Foo", "foo", "\u{ff46}\u{ff4f}\u{ff4f}", "bar"] {
        let text = record(
            name,
            "project",
            "user",
            "2026-01-10T00:00:00Z",
            "foo",
            "Foo fact.\n",
        );
        std::fs::write(dir.path().join(format!("{name}.md")), text).unwrap();
    }
    let store = mdstore::Store::open(dir.path()).unwrap();
    let loaded = mddream::records::load(&store, mddream::plan::Scope::Workspace);
    let read: Vec<&str> = loaded
        .records
        .iter()
        .map(|r| r.record.id.as_str())
        .collect();
    assert_eq!(read, ["bar"]);
    assert_eq!(loaded.broken.len(), 3, "{:?}", loaded.broken);
    assert!(loaded.broken[0].reason.contains("differ only in case"));
}

/// Duplicates whose secret sat in a tag (not the text) were proposed as a
/// merge; the write guard refused its tag at apply time, so the expired
/// retire beside it was never applied either (exit 2).
#[test]
fn secret_in_a_tag_of_duplicates_is_not_merged() {
    let secret = format!("AKIA{}", "IOSFODNN7EXAMPLE");
    let tagged = |name: &str, updated: &str| {
        record(name, "project", "user", updated, "plain", "Plain fact.\n").replacen(
            "---\n",
            &format!("---\ntags: [{secret}]\n"),
            1,
        )
    };
    let plan = plan_of(&[
        ("k2.md", tagged("k2", "2026-01-10T00:00:00Z")),
        ("k3.md", tagged("k3", "2026-02-10T00:00:00Z")),
    ]);
    for op in &plan.operations {
        if let mddream::plan::Operation::Merge { into, .. } = op {
            assert!(
                !into.tags.contains(&secret),
                "merged a secret tag: {plan:?}"
            );
        }
    }
}
