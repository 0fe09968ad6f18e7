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
