//! The reason rule (a reason is kept in tombstones and shown to people),
//! and hostile new records: NUL bytes, huge bodies, look-alike names.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn reason_too_long_for_a_tombstone_is_rejected() {
    let op = Operation::Retire {
        finding: Finding::Model,
        reason: "x".repeat(70_000),
        reads: ws("e"),
        superseded_by: None,
    };
    assert_eq!(
        broken(&plan(Origin::Rules, vec![op])),
        (Rule::Reason, Some(0))
    );
}

/// A reason is kept in committed tombstones: a bidi override there would
/// show one thing and say another.
#[test]
fn reason_with_a_bidi_control_is_rejected() {
    let op = Operation::Retire {
        finding: Finding::Model,
        reason: "old \u{202e}dlo".to_string(),
        reads: ws("e"),
        superseded_by: None,
    };
    assert_eq!(
        broken(&plan(Origin::Rules, vec![op])),
        (Rule::Reason, Some(0))
    );
}

#[test]
fn reason_with_a_terminal_escape_is_rejected() {
    let op = Operation::Retire {
        finding: Finding::Model,
        reason: "old \u{1b}[2J".to_string(),
        reads: ws("e"),
        superseded_by: None,
    };
    assert_eq!(
        broken(&plan(Origin::Rules, vec![op])),
        (Rule::Reason, Some(0))
    );
}

#[test]
fn reason_holding_a_secret_is_rejected_without_echoing_it() {
    let op = Operation::Retire {
        finding: Finding::Model,
        reason: "rotated AKIAIOSFODNN7EXAMPLF".to_string(),
        reads: ws("e"),
        superseded_by: None,
    };
    let plan = plan(Origin::Model, vec![op]);
    assert_eq!(broken(&plan), (Rule::Reason, Some(0)));
    let message = validate(&plan, &records(), &options())
        .unwrap_err()
        .to_string();
    assert!(!message.contains("AKIA"), "{message}");
}

#[test]
fn empty_reason_is_rejected() {
    let op = Operation::Retire {
        finding: Finding::Model,
        reason: " ".to_string(),
        reads: ws("e"),
        superseded_by: None,
    };
    assert_eq!(
        broken(&plan(Origin::Model, vec![op])),
        (Rule::Reason, Some(0))
    );
}

#[test]
fn nul_byte_in_a_merged_body_is_rejected() {
    let op = merge(
        vec![ws("a"), ws("b")],
        new_record("tooling", "We use pnpm.\nCI runs on Linux.\u{0}\n"),
    );
    assert_eq!(
        broken(&plan(Origin::Model, vec![op])),
        (Rule::InvalidRecord, Some(0))
    );
}

#[test]
fn merged_body_over_the_record_size_limit_is_rejected() {
    let body = format!(
        "We use pnpm.\nCI runs on Linux.\n{}\n",
        "x".repeat(300 * 1024)
    );
    let op = merge(vec![ws("a"), ws("b")], new_record("tooling", &body));
    assert_eq!(
        broken(&plan(Origin::Model, vec![op])),
        (Rule::InvalidRecord, Some(0))
    );
}

#[test]
fn merged_name_mixing_latin_with_cyrillic_look_alikes_is_rejected() {
    let op = merge(
        vec![ws("a"), ws("b")],
        new_record("p\u{430}ypal", "We use pnpm.\nCI runs on Linux.\n"),
    );
    assert_eq!(
        broken(&plan(Origin::Model, vec![op])),
        (Rule::InvalidName, Some(0))
    );
}
