//! One test per rule: each plan breaks only the rule it is named after.

use mdstore::{Meta, Record, RecordType, Source};
use pretty_assertions::assert_eq;

use super::{Rule, ValidateOptions, validate};
use crate::plan::{
    DroppedFact, Finding, NewRecord, Operation, Origin, PLAN_VERSION, Plan, RecordRef, Scope,
};
use crate::records::DreamRecord;

mod hostile;
mod reason;

pub(crate) fn record(scope: Scope, id: &str, source: Source, body: &str) -> DreamRecord {
    DreamRecord {
        scope,
        record: Record {
            id: id.to_string(),
            rel_path: format!("{id}.md").into(),
            meta: Meta {
                name: Some(id.to_string()),
                description: Some(format!("about {id}")),
                record_type: Some(RecordType::Project),
                revision: Some(2),
                source: Some(source),
                ..Meta::default()
            },
            written_name: None,
            frontmatter: None,
            body: body.to_string(),
            problems: Vec::new(),
        },
    }
}

/// Ten records (so that 25% allows two removals, the floor three): `a`…`j` in the workspace,
/// `a` `b` `c` holding facts a merge must keep, `g` (global) and `u` (user).
fn records() -> Vec<DreamRecord> {
    let mut all = vec![
        record(
            Scope::Workspace,
            "a",
            Source::Inferred,
            "We use pnpm.\n- CI runs on Linux\n",
        ),
        record(
            Scope::Workspace,
            "b",
            Source::Inferred,
            "we use **pnpm**.\n",
        ),
        record(
            Scope::Workspace,
            "c",
            Source::Inferred,
            "Node 22 is required.\n",
        ),
        record(Scope::Global, "g", Source::Inferred, "We use pnpm.\n"),
        record(
            Scope::Workspace,
            "u",
            Source::User,
            "The user prefers tabs.\n",
        ),
    ];
    for id in ["e", "f", "h", "i", "j"] {
        all.push(record(
            Scope::Workspace,
            id,
            Source::Inferred,
            "Something else.\n",
        ));
    }
    all
}

fn read(scope: Scope, id: &str) -> RecordRef {
    RecordRef {
        scope,
        id: id.to_string(),
        revision: 2,
    }
}

fn ws(id: &str) -> RecordRef {
    read(Scope::Workspace, id)
}

fn new_record(name: &str, body: &str) -> NewRecord {
    NewRecord {
        name: name.to_string(),
        record_type: "project".to_string(),
        description: "Package manager and CI".to_string(),
        body: body.to_string(),
        ..NewRecord::default()
    }
}

fn merge(reads: Vec<RecordRef>, into: NewRecord) -> Operation {
    Operation::Merge {
        finding: Finding::NearDuplicate,
        reason: "same fact".to_string(),
        reads,
        into,
        drops: Vec::new(),
    }
}

fn good_merge() -> Operation {
    merge(
        vec![ws("a"), ws("b")],
        new_record("tooling", "We use pnpm.\nCI runs on Linux.\n"),
    )
}

fn update(reads: RecordRef, record: NewRecord) -> Operation {
    Operation::Update {
        finding: Finding::Model,
        reason: "clearer".to_string(),
        reads,
        record,
        drops: Vec::new(),
    }
}

fn retire(reads: RecordRef, superseded_by: Option<RecordRef>) -> Operation {
    Operation::Retire {
        finding: Finding::Expired,
        reason: "expired on 2026-01-01".to_string(),
        reads,
        superseded_by,
    }
}

fn plan(origin: Origin, operations: Vec<Operation>) -> Plan {
    Plan {
        operations,
        ..Plan::new(origin)
    }
}

fn options() -> ValidateOptions {
    ValidateOptions {
        max_delete_pct: 25.0,
    }
}

/// The rule `plan` breaks, checking that the message names it and the
/// operation.
fn broken(plan: &Plan) -> (Rule, Option<usize>) {
    let rejection = validate(plan, &records(), &options()).expect_err("the plan must be rejected");
    assert!(
        rejection.rule.starts_with(rejection.kind.name()),
        "{rejection}"
    );
    let shown = rejection.to_string();
    match rejection.operation {
        Some(i) => assert!(
            shown.starts_with(&format!("operation {}: ", i + 1)),
            "{shown}"
        ),
        None => assert!(shown.starts_with("operation (the plan): "), "{shown}"),
    }
    (rejection.kind, rejection.operation)
}

#[test]
fn a_plan_keeping_every_rule_is_accepted() {
    let plan = plan(
        Origin::Rules,
        vec![
            merge(
                vec![ws("a"), ws("b")],
                new_record("b", "We use pnpm.\nCI runs on Linux.\n"),
            ),
            update(
                ws("c"),
                new_record("c", "Node 22 is required (see .nvmrc).\n"),
            ),
            retire(ws("e"), Some(ws("f"))),
        ],
    );
    assert_eq!(validate(&plan, &records(), &options()), Ok(()));
}

#[test]
fn an_empty_plan_is_accepted() {
    assert_eq!(
        validate(&plan(Origin::Model, vec![]), &records(), &options()),
        Ok(())
    );
}

#[test]
fn plan_of_another_version_is_rejected() {
    let mut plan = plan(Origin::Rules, vec![good_merge()]);
    plan.version = PLAN_VERSION + 1;
    assert_eq!(broken(&plan), (Rule::Version, None));
}

#[test]
fn read_of_a_record_that_does_not_exist_is_rejected() {
    let plan = plan(
        Origin::Rules,
        vec![retire(ws("e"), None), retire(ws("zz"), None)],
    );
    assert_eq!(broken(&plan), (Rule::UnknownRecord, Some(1)));
}

#[test]
fn record_of_the_right_id_in_the_other_scope_is_unknown() {
    let plan = plan(Origin::Rules, vec![retire(read(Scope::Global, "e"), None)]);
    assert_eq!(broken(&plan), (Rule::UnknownRecord, Some(0)));
}

#[test]
fn read_at_an_old_revision_is_rejected() {
    let mut stale = ws("e");
    stale.revision = 1;
    let plan = plan(Origin::Rules, vec![retire(stale, None)]);
    assert_eq!(broken(&plan), (Rule::Revision, Some(0)));
}

#[test]
fn record_read_by_two_operations_is_rejected() {
    let plan = plan(Origin::Rules, vec![good_merge(), retire(ws("A"), None)]);
    assert_eq!(broken(&plan), (Rule::ReadTwice, Some(1)));
}

#[test]
fn record_read_twice_by_one_merge_is_rejected() {
    let op = merge(
        vec![ws("a"), ws("b"), ws("a")],
        new_record("tooling", "We use pnpm.\nCI runs on Linux.\n"),
    );
    assert_eq!(
        broken(&plan(Origin::Rules, vec![op])),
        (Rule::ReadTwice, Some(0))
    );
}

#[test]
fn merged_name_with_dot_dot_is_rejected() {
    let op = merge(
        vec![ws("a"), ws("b")],
        new_record("../escape", "We use pnpm.\nCI runs on Linux.\n"),
    );
    assert_eq!(
        broken(&plan(Origin::Model, vec![op])),
        (Rule::InvalidName, Some(0))
    );
}

#[test]
fn update_that_renames_is_rejected() {
    let op = update(ws("c"), new_record("c-renamed", "Node 22 is required.\n"));
    assert_eq!(
        broken(&plan(Origin::Rules, vec![op])),
        (Rule::InvalidName, Some(0))
    );
}

#[test]
fn merged_name_of_a_record_not_replaced_is_rejected() {
    let op = merge(
        vec![ws("a"), ws("b")],
        new_record("E", "We use pnpm.\nCI runs on Linux.\n"),
    );
    assert_eq!(
        broken(&plan(Origin::Rules, vec![op])),
        (Rule::NameCollision, Some(0))
    );
}

#[test]
fn merged_name_of_one_of_its_sources_is_accepted() {
    let op = merge(
        vec![ws("a"), ws("b")],
        new_record("b", "We use pnpm.\nCI runs on Linux.\n"),
    );
    assert_eq!(
        validate(&plan(Origin::Rules, vec![op]), &records(), &options()),
        Ok(())
    );
}

#[test]
fn two_merges_into_one_name_are_rejected() {
    let second = merge(
        vec![ws("h"), ws("i")],
        new_record("Tooling", "Something else.\n"),
    );
    let plan = plan(Origin::Rules, vec![good_merge(), second]);
    assert_eq!(broken(&plan), (Rule::NameCollision, Some(1)));
}

#[test]
fn new_record_of_an_unknown_type_is_rejected() {
    let mut into = new_record("tooling", "We use pnpm.\nCI runs on Linux.\n");
    into.record_type = "note".to_string();
    let plan = plan(Origin::Model, vec![merge(vec![ws("a"), ws("b")], into)]);
    assert_eq!(broken(&plan), (Rule::InvalidRecord, Some(0)));
}

#[test]
fn escape_character_in_a_merged_description_is_rejected() {
    let mut into = new_record("tooling", "We use pnpm.\nCI runs on Linux.\n");
    into.description = "pnpm \u{1b}[31m".to_string();
    let plan = plan(Origin::Model, vec![merge(vec![ws("a"), ws("b")], into)]);
    assert_eq!(broken(&plan), (Rule::InvalidRecord, Some(0)));
}

#[test]
fn merge_across_scopes_is_rejected() {
    let op = merge(
        vec![ws("a"), read(Scope::Global, "g")],
        new_record("tooling", "We use pnpm.\nCI runs on Linux.\n"),
    );
    assert_eq!(
        broken(&plan(Origin::Model, vec![op])),
        (Rule::MergeAcrossScopes, Some(0))
    );
}

#[test]
fn merge_across_types_is_rejected() {
    let mut into = new_record("tooling", "We use pnpm.\nCI runs on Linux.\n");
    into.record_type = "feedback".to_string();
    let plan = plan(Origin::Rules, vec![merge(vec![ws("a"), ws("b")], into)]);
    assert_eq!(broken(&plan), (Rule::MergeAcrossTypes, Some(0)));
}

#[test]
fn merge_of_a_user_record_with_an_inferred_one_is_rejected() {
    let op = merge(
        vec![ws("a"), ws("u")],
        new_record(
            "tooling",
            "We use pnpm.\nCI runs on Linux.\nThe user prefers tabs.\n",
        ),
    );
    assert_eq!(
        broken(&plan(Origin::Rules, vec![op])),
        (Rule::LowerTrust, Some(0))
    );
}

#[test]
fn model_update_of_a_user_record_is_rejected() {
    let op = update(ws("u"), new_record("u", "The user prefers tabs, always.\n"));
    assert_eq!(
        broken(&plan(Origin::Model, vec![op])),
        (Rule::LowerTrust, Some(0))
    );
}

#[test]
fn rules_update_of_a_user_record_is_accepted() {
    let op = update(ws("u"), new_record("u", "The user prefers tabs.\n"));
    assert_eq!(
        validate(&plan(Origin::Rules, vec![op]), &records(), &options()),
        Ok(())
    );
}

#[test]
fn user_record_superseded_by_an_inferred_one_is_rejected() {
    let op = retire(ws("u"), Some(ws("e")));
    assert_eq!(
        broken(&plan(Origin::Rules, vec![op])),
        (Rule::LowerTrust, Some(0))
    );
}

#[test]
fn model_retiring_a_user_record_outright_is_rejected() {
    assert_eq!(
        broken(&plan(Origin::Model, vec![retire(ws("u"), None)])),
        (Rule::LowerTrust, Some(0))
    );
}

#[test]
fn model_dropping_a_fact_of_a_user_record_is_rejected() {
    let records = {
        let mut all = records();
        all.push(record(
            Scope::Workspace,
            "u2",
            Source::User,
            "The user prefers tabs.\nOld editor: vim.\n",
        ));
        all
    };
    let op = Operation::Merge {
        finding: Finding::Model,
        reason: "same".to_string(),
        reads: vec![ws("u"), ws("u2")],
        into: new_record("tabs", "The user prefers tabs.\n"),
        drops: vec![DroppedFact {
            id: "u2".to_string(),
            fact: "Old editor: vim.".to_string(),
            why: "no longer true".to_string(),
        }],
    };
    let plan = plan(Origin::Model, vec![op.clone()]);
    let rejection = validate(&plan, &records, &options()).unwrap_err();
    assert_eq!(rejection.kind, Rule::LowerTrust);
    // The same drop by the rules is allowed: it says why.
    assert_eq!(
        validate(&self::plan(Origin::Rules, vec![op]), &records, &options()),
        Ok(())
    );
}

#[test]
fn merge_of_a_single_record_is_rejected() {
    let op = merge(
        vec![ws("a")],
        new_record("tooling", "We use pnpm.\nCI runs on Linux.\n"),
    );
    assert_eq!(
        broken(&plan(Origin::Model, vec![op])),
        (Rule::CitesSources, Some(0))
    );
}

#[test]
fn drop_naming_a_record_not_read_is_rejected() {
    let Operation::Merge { reads, into, .. } = good_merge() else {
        unreachable!()
    };
    let op = Operation::Merge {
        finding: Finding::Model,
        reason: "same".to_string(),
        reads,
        into,
        drops: vec![DroppedFact {
            id: "c".to_string(),
            fact: "Node 22 is required.".to_string(),
            why: "old".to_string(),
        }],
    };
    assert_eq!(
        broken(&plan(Origin::Model, vec![op])),
        (Rule::CitesSources, Some(0))
    );
}

#[test]
fn merge_losing_a_fact_silently_is_rejected() {
    let op = merge(
        vec![ws("a"), ws("b")],
        new_record("tooling", "We use pnpm.\n"),
    );
    let plan = plan(Origin::Model, vec![op]);
    assert_eq!(broken(&plan), (Rule::SilentDrop, Some(0)));
    let message = validate(&plan, &records(), &options())
        .unwrap_err()
        .to_string();
    assert!(message.contains("line 2 of \"a\""), "{message}");
}

#[test]
fn drop_without_why_is_rejected() {
    let op = Operation::Merge {
        finding: Finding::Model,
        reason: "same".to_string(),
        reads: vec![ws("a"), ws("b")],
        into: new_record("tooling", "We use pnpm.\n"),
        drops: vec![DroppedFact {
            id: "a".to_string(),
            fact: "CI runs on Linux".to_string(),
            why: "  ".to_string(),
        }],
    };
    assert_eq!(
        broken(&plan(Origin::Model, vec![op])),
        (Rule::SilentDrop, Some(0))
    );
}

#[test]
fn fact_line_holding_a_secret_is_not_echoed() {
    let key = "AKIAIOSFODNN7EXAMPLF";
    let mut all = records();
    all.push(record(
        Scope::Workspace,
        "k",
        Source::Inferred,
        &format!("aws_access_key_id = {key}\n"),
    ));
    all.push(record(
        Scope::Workspace,
        "k2",
        Source::Inferred,
        "Deploys use the ops account.\n",
    ));
    let op = merge(
        vec![ws("k"), ws("k2")],
        new_record("ops", "Deploys use the ops account.\n"),
    );
    let rejection = validate(&plan(Origin::Model, vec![op]), &all, &options()).unwrap_err();
    assert_eq!(rejection.kind, Rule::SilentDrop);
    assert!(!rejection.to_string().contains(key), "{rejection}");
}

#[test]
fn plan_retiring_more_than_the_limit_is_rejected() {
    let plan = plan(
        Origin::Rules,
        vec![
            retire(ws("e"), None),
            retire(ws("f"), None),
            retire(ws("h"), None),
            retire(ws("i"), None),
        ],
    );
    assert_eq!(broken(&plan), (Rule::RemovalLimit, Some(3)));
}

#[test]
fn merge_sources_count_toward_the_removal_limit() {
    // good_merge removes a and b (neither is kept under "tooling").
    let plan = plan(
        Origin::Rules,
        vec![good_merge(), retire(ws("e"), None), retire(ws("f"), None)],
    );
    assert_eq!(broken(&plan), (Rule::RemovalLimit, Some(2)));
}

#[test]
fn three_removals_are_allowed_unless_the_limit_is_zero() {
    assert_eq!(super::max_removals(3, 25.0), 3);
    assert_eq!(super::max_removals(6, 25.0), 3);
    assert_eq!(super::max_removals(10, 0.5), 3);
    assert_eq!(super::max_removals(16, 25.0), 4);
    assert_eq!(super::max_removals(100, 25.0), 25);
}

/// `--max-delete-pct 0` still let one record be retired.
#[test]
fn max_delete_pct_zero_removes_nothing() {
    assert_eq!(super::max_removals(10, 0.0), 0);
    assert_eq!(super::max_removals(10, f64::NAN), 0);
}

#[test]
fn merge_into_an_empty_record_is_rejected() {
    let mut all = records();
    all.push(record(Scope::Workspace, "blank1", Source::Inferred, "\n"));
    all.push(record(Scope::Workspace, "blank2", Source::Inferred, "  \n"));
    let op = merge(vec![ws("blank1"), ws("blank2")], new_record("blank", " \n"));
    let rejection = validate(&plan(Origin::Model, vec![op]), &all, &options()).unwrap_err();
    assert_eq!(
        (rejection.kind, rejection.operation),
        (Rule::EmptyResult, Some(0))
    );
}

#[test]
fn retired_record_superseded_by_itself_is_rejected() {
    assert_eq!(
        broken(&plan(Origin::Rules, vec![retire(ws("e"), Some(ws("E")))])),
        (Rule::Successor, Some(0))
    );
}

#[test]
fn retired_record_superseded_by_a_removed_one_is_rejected() {
    let plan = plan(
        Origin::Rules,
        vec![retire(ws("e"), Some(ws("f"))), retire(ws("f"), None)],
    );
    assert_eq!(broken(&plan), (Rule::Successor, Some(0)));
}
