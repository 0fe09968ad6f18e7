//! The reason rule: a reason is kept in tombstones and shown to people.

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
