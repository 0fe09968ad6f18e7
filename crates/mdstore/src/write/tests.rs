//! `plan`'s classification, one rule a test (SPEC §6).

use std::fs;

use jiff::Timestamp;
use pretty_assertions::assert_eq;

use super::*;
use crate::record::RecordType;
use crate::store::{SkipReason, Store};

pub(crate) const NOW: &str = "2026-11-30T12:00:00Z";

pub(crate) fn options() -> WriteOptions {
    WriteOptions {
        force: false,
        expect_revision: None,
        refuse_temporary: true,
        default_source: Source::User,
        now: NOW.parse::<Timestamp>().unwrap(),
    }
}

pub(crate) fn candidate(name: &str, description: &str, body: &str) -> Candidate {
    Candidate {
        name: name.into(),
        record_type: Some(RecordType::Project),
        description: Some(description.into()),
        body: Some(body.into()),
        ..Candidate::default()
    }
}

fn store_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    for (name, text) in files {
        fs::write(dir.path().join(name), text).unwrap();
    }
    (dir, store)
}

fn plan_in(store: &Store, candidate: &Candidate, options: &WriteOptions) -> Plan {
    plan(store, &StoreView::load(store), candidate, options).unwrap()
}

const CI: &str = "---\nname: ci\ndescription: CI runs on push\ntype: project\nrevision: 3\nsource: user\nowner: ops # kept\n---\nThe CI runs on every push.\n";

#[test]
fn add_renders_a_new_record_at_revision_1() {
    let (_dir, store) = store_with(&[]);
    let plan = plan_in(
        &store,
        &candidate("Prefer Pytest", "Tests use pytest", "Use pytest."),
        &options(),
    );
    assert_eq!(plan.operation, Operation::Add);
    assert_eq!(plan.id, "prefer-pytest");
    assert_eq!(plan.rel_path, std::path::PathBuf::from("prefer-pytest.md"));
    assert_eq!(plan.old_text, None);
    let text = plan.new_text.unwrap();
    assert!(text.contains("revision: 1\n"), "{text}");
    assert!(text.contains(&format!("created: {NOW}\n")), "{text}");
    assert!(text.ends_with("---\nUse pytest.\n"), "{text}");
    assert!(
        plan.warnings[0].contains("is stored as"),
        "{:?}",
        plan.warnings
    );
}

#[test]
fn update_raises_the_revision_and_keeps_the_old_text_as_diff_basis() {
    let (_dir, store) = store_with(&[("ci.md", CI)]);
    let plan = plan_in(
        &store,
        &candidate(
            "ci",
            "CI runs on push and tag",
            "The CI runs on every push.\n",
        ),
        &options(),
    );
    assert_eq!(plan.operation, Operation::Update { from_revision: 3 });
    assert_eq!(plan.old_text.as_deref(), Some(CI));
    let text = plan.new_text.unwrap();
    assert!(text.contains("revision: 4\n"), "{text}");
    assert!(
        text.contains("owner: ops # kept\n"),
        "unknown keys survive: {text}"
    );
}

#[test]
fn noop_of_the_same_id_says_this_record() {
    let (_dir, store) = store_with(&[("ci.md", CI)]);
    let plan = plan_in(
        &store,
        &candidate("ci", "CI runs on push", "The CI runs on every push.\n"),
        &options(),
    );
    assert_eq!(
        plan.operation,
        Operation::Noop {
            existing: "ci".into()
        }
    );
    assert_eq!(plan.new_text, None);
}

#[test]
fn noop_under_another_id_names_that_record() {
    let (_dir, store) = store_with(&[("ci.md", CI)]);
    let plan = plan_in(
        &store,
        &candidate(
            "pipeline",
            "CI runs on push",
            "The CI runs on every push.\n",
        ),
        &options(),
    );
    assert_eq!(
        plan.operation,
        Operation::Noop {
            existing: "ci".into()
        }
    );
    assert_eq!(plan.id, "pipeline");
}

#[test]
fn secret_is_refused_naming_rule_and_line() {
    let (_dir, store) = store_with(&[]);
    let body = "line one\nkey AKIAIOSFODNN7REALKEY\n";
    let plan = plan_in(&store, &candidate("aws", "the key", body), &options());
    let Operation::Refused(Refusal::Secret(found)) = plan.operation else {
        panic!("{:?}", plan.operation)
    };
    assert_eq!(found[0].place, Place::Body(2));
    assert_eq!(plan.new_text, None);
}

#[test]
fn temporary_text_refuses_unconfirmed_runs_and_warns_interactive_ones() {
    let (_dir, store) = store_with(&[]);
    let c = candidate("tmp", "Use the mock for now", "Mock it.");
    let refused = plan_in(&store, &c, &options());
    assert!(
        matches!(refused.operation, Operation::Refused(Refusal::Temporary(_))),
        "{refused:?}"
    );
    let warned = plan_in(
        &store,
        &c,
        &WriteOptions {
            refuse_temporary: false,
            ..options()
        },
    );
    assert_eq!(warned.operation, Operation::Add);
    assert!(
        warned.warnings.iter().any(|w| w.contains("temporary")),
        "{:?}",
        warned.warnings
    );
}

#[test]
fn tombstone_refuses_unless_forced() {
    let (dir, store) = store_with(&[]);
    let tomb = Tombstone {
        id: "gone".into(),
        forgotten_at: NOW.parse().unwrap(),
        reason: Some("wrong".into()),
        content_hash: crate::hash::content_hash("old", "text"),
    };
    crate::tombstone::write(dir.path(), &tomb).unwrap();
    let c = candidate("gone", "d", "b");
    let plan = plan_in(&store, &c, &options());
    assert_eq!(plan.operation, Operation::Refused(Refusal::Tombstone(tomb)));
    let forced = plan_in(
        &store,
        &c,
        &WriteOptions {
            force: true,
            ..options()
        },
    );
    assert_eq!(forced.operation, Operation::Add);
}

#[test]
fn lower_trust_cannot_overwrite_unless_forced() {
    let (_dir, store) = store_with(&[("ci.md", CI)]);
    let c = Candidate {
        source: Some(Source::Inferred),
        ..candidate("ci", "CI is broken", "It is.")
    };
    let plan = plan_in(&store, &c, &options());
    assert_eq!(
        plan.operation,
        Operation::Refused(Refusal::LowerTrust {
            existing: Source::User,
            proposed: Source::Inferred
        })
    );
    let forced = plan_in(
        &store,
        &c,
        &WriteOptions {
            force: true,
            ..options()
        },
    );
    assert_eq!(forced.operation, Operation::Update { from_revision: 3 });
}

#[test]
fn revision_mismatch_is_refused_for_existing_and_missing_records() {
    let (_dir, store) = store_with(&[("ci.md", CI)]);
    let expect = |n| WriteOptions {
        expect_revision: Some(n),
        ..options()
    };
    let stale = plan_in(&store, &candidate("ci", "new", "b"), &expect(2));
    assert_eq!(
        stale.operation,
        Operation::Refused(Refusal::RevisionMismatch {
            expected: 2,
            actual: Some(3)
        })
    );
    let missing = plan_in(
        &store,
        &Candidate {
            description: None,
            ..candidate("nope", "", "b")
        },
        &expect(1),
    );
    assert_eq!(
        missing.operation,
        Operation::Refused(Refusal::RevisionMismatch {
            expected: 1,
            actual: None
        })
    );
    let current = plan_in(&store, &candidate("ci", "new", "b"), &expect(3));
    assert_eq!(current.operation, Operation::Update { from_revision: 3 });
}

#[test]
fn missing_fields_of_a_new_record_are_named() {
    let (_dir, store) = store_with(&[]);
    let view = StoreView::load(&store);
    for (c, field) in [
        (
            Candidate {
                description: None,
                ..candidate("a", "", "b")
            },
            Field::Description,
        ),
        (
            Candidate {
                record_type: None,
                ..candidate("a", "d", "b")
            },
            Field::Type,
        ),
        (candidate("a", "d", "  \n"), Field::Body),
    ] {
        let err = plan(&store, &view, &c, &options()).unwrap_err();
        assert!(
            matches!(err, PlanError::Input(InputError::Missing(f)) if f == field),
            "{err}"
        );
    }
}

#[test]
fn nul_byte_in_body_is_refused_before_planning() {
    let (dir, store) = store_with(&[]);
    let err = plan(
        &store,
        &StoreView::load(&store),
        &candidate("nb", "d", "a\0b"),
        &options(),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            PlanError::Input(InputError::ControlCharacter {
                field: Field::Body,
                ..
            })
        ),
        "{err}"
    );
    assert!(!dir.path().join("nb.md").exists());
}

#[test]
fn existing_non_utf8_file_is_named_with_its_real_reason() {
    let (dir, store) = store_with(&[]);
    fs::write(
        dir.path().join("latin.md"),
        b"---\nname: latin\n---\ncaf\xe9\n",
    )
    .unwrap();
    // A view from an index lists no skipped files: the path itself is checked.
    let view = StoreView::from_summaries(&store, Vec::new());
    let err = plan(&store, &view, &candidate("latin", "d", "b"), &options()).unwrap_err();
    let PlanError::Occupied(skipped) = &err else {
        panic!("{err}")
    };
    assert!(matches!(skipped.reason, SkipReason::NotUtf8(_)), "{err}");
    assert!(!err.to_string().contains("appeared"), "{err}");
}

#[test]
fn a_long_bad_name_is_not_echoed_whole() {
    let (_dir, store) = store_with(&[]);
    let name = format!("{}/x", "a".repeat(5000));
    let err = plan(
        &store,
        &StoreView::load(&store),
        &candidate(&name, "d", "b"),
        &options(),
    )
    .unwrap_err();
    let message = err.to_string();
    assert!(message.len() < 400, "{message}");
    assert!(message.contains("5002 characters"), "{message}");
}

#[test]
fn noop_under_another_id_ignores_case_and_spacing_of_the_description() {
    let (_dir, store) = store_with(&[(
        "ci.md",
        "---\nname: ci\ndescription: CI  runs on push\ntype: project\n---\nbody\n",
    )]);
    let other_case = plan_in(
        &store,
        &candidate("pipeline", "ci RUNS   on push", "body\n"),
        &options(),
    );
    assert_eq!(
        other_case.operation,
        Operation::Noop {
            existing: "ci".into()
        }
    );
    let other_words = plan_in(
        &store,
        &candidate("pipeline", "CI runs on pull", "body\n"),
        &options(),
    );
    assert_eq!(other_words.operation, Operation::Add);
    let more_words = plan_in(
        &store,
        &candidate("pipeline", "CI runs on push now", "body\n"),
        &options(),
    );
    assert_eq!(more_words.operation, Operation::Add);
}
