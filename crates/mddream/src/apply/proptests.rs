//! The property of issue 7: applying any valid plan never loses the text of
//! a record that no operation retired or merged, the result still reads,
//! and `MEMORY.md` is what its rules make of the records.

use std::fs;

use mdstore::Store;
use mdstore::catalog::{self, Budget};
use mdstore::view::StoreView;
use proptest::prelude::*;

use super::tests::{Paths, record_text};
use super::{ApplyOptions, Target, apply_as_read};
use crate::plan::{Finding, NewRecord, Operation, Origin, Plan, RecordRef, Scope};
use crate::records::{self, DreamRecord};
use crate::validate::{ValidateOptions, validate};

/// A record to make: its body lines and whether the user wrote it.
#[derive(Clone, Debug)]
struct Seed {
    lines: Vec<String>,
    user: bool,
}

/// What to do with a group of records.
#[derive(Clone, Copy, Debug)]
enum Action {
    Leave,
    Retire,
    Update,
    Merge { into_source_name: bool },
}

fn seed() -> impl Strategy<Value = Seed> {
    let line = prop_oneof![
        "[a-zA-Z][a-zA-Z0-9 ,.*_-]{0,30}",
        "- [a-z]{1,8} [0-9]{1,3}",
        "[一-龥]{2,8}",
    ];
    (prop::collection::vec(line, 1..4), any::<bool>())
        .prop_map(|(lines, user)| Seed { lines, user })
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        Just(Action::Leave),
        Just(Action::Retire),
        Just(Action::Update),
        any::<bool>().prop_map(|into_source_name| Action::Merge { into_source_name }),
    ]
}

fn make_store(seeds: &[Seed]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    for (i, seed) in seeds.iter().enumerate() {
        let source = if seed.user { "user" } else { "inferred" };
        // A number per record, so that no two records are the same text.
        let body = format!("Record {i}.\n{}\n", seed.lines.join("\n"));
        fs::write(
            dir.path().join(format!("r{i}.md")),
            record_text(&format!("r{i}"), source, &body),
        )
        .unwrap();
    }
    (dir, store)
}

fn new_record(name: &str, body: String) -> NewRecord {
    NewRecord {
        name: name.to_string(),
        record_type: "project".to_string(),
        description: format!("about {name}"),
        body,
        ..NewRecord::default()
    }
}

/// Walks the records two at a time, each pair getting the next action; a
/// merge of records of different trust becomes two leaves.
fn make_plan(records: &[DreamRecord], actions: &[Action]) -> Plan {
    let mut plan = Plan::new(Origin::Rules);
    let reference = |r: &DreamRecord| r.reference();
    for (k, (pair, action)) in records.chunks(2).zip(actions).enumerate() {
        let first = &pair[0];
        let op = match action {
            Action::Leave => continue,
            Action::Retire => Operation::Retire {
                finding: Finding::Expired,
                reason: "expired".to_string(),
                reads: reference(first),
                superseded_by: None,
            },
            Action::Update => Operation::Update {
                finding: Finding::Correction,
                reason: "adds a line".to_string(),
                reads: reference(first),
                record: new_record(
                    &first.record.id,
                    format!("{}Checked again.\n", first.record.body),
                ),
                drops: Vec::new(),
            },
            Action::Merge { into_source_name } => {
                if pair.len() < 2 || pair[0].record.source() != pair[1].record.source() {
                    continue;
                }
                let name = if *into_source_name {
                    pair[1].record.id.clone()
                } else {
                    format!("merged-{k}")
                };
                // A blank line between: Markdown read across two bodies
                // could pair one's `*` with the other's.
                let body = format!("{}\n{}", pair[0].record.body, pair[1].record.body);
                Operation::Merge {
                    finding: Finding::NearDuplicate,
                    reason: "same subject".to_string(),
                    reads: pair.iter().map(reference).collect::<Vec<RecordRef>>(),
                    into: new_record(&name, body),
                    drops: Vec::new(),
                }
            }
        };
        plan.operations.push(op);
    }
    plan
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn valid_plan_keeps_every_fact_not_retired_and_leaves_a_readable_store(
        seeds in prop::collection::vec(seed(), 2..9),
        actions in prop::collection::vec(action(), 5),
    ) {
        let (dir, store) = make_store(&seeds);
        let before = records::load(&store, Scope::Workspace).records;
        prop_assert_eq!(before.len(), seeds.len());
        let plan = make_plan(&before, &actions);
        let limits = ValidateOptions { max_delete_pct: 100.0 };
        prop_assert_eq!(validate(&plan, &before, &limits), Ok(()));

        let texts: Vec<String> = before
            .iter()
            .map(|r| fs::read_to_string(dir.path().join(&r.record.rel_path)).unwrap())
            .collect();
        let mut sink = Paths::default();
        let mut targets = [Target { scope: Scope::Workspace, store: &store, sink: &mut sink }];
        let options = ApplyOptions {
            lock_timeout: std::time::Duration::from_secs(1),
            now: super::tests::NOW.parse().unwrap(),
        };
        apply_as_read(&plan, &before, &mut targets, &options).unwrap();

        let after = records::load(&store, Scope::Workspace);
        prop_assert!(after.broken.is_empty(), "{:?}", after.broken);
        let retired: Vec<&str> = plan
            .operations
            .iter()
            .filter(|op| matches!(op, Operation::Retire { .. }))
            .flat_map(|op| op.reads().into_iter().map(|r| r.id.as_str()))
            .collect();
        let all_text: String = after
            .records
            .iter()
            .flat_map(|r| mdstore::markdown::facts(&r.record.body))
            .map(|(_, fact)| fact)
            .collect::<Vec<_>>()
            .join("\n");
        for record in before.iter().filter(|r| !retired.contains(&r.record.id.as_str())) {
            for (line, fact) in mdstore::markdown::facts(&record.record.body) {
                prop_assert!(all_text.contains(&fact), "{} lost line {}", record.record.id, line);
            }
        }
        let read_by_plan = |id: &str| plan.operations.iter().any(|op| op.reads().iter().any(|r| r.id == id));
        for (record, text) in before.iter().zip(&texts) {
            if !read_by_plan(&record.record.id) {
                let now = fs::read_to_string(dir.path().join(&record.record.rel_path)).unwrap();
                prop_assert_eq!(&now, text, "{} changed", &record.record.id);
            }
        }
        if plan.operations.is_empty() {
            // Nothing to do: nothing written, MEMORY.md included.
            prop_assert!(!store.catalog_path().exists());
            return Ok(());
        }
        let view = StoreView::load(&store);
        let expected = catalog::render(&view.summaries, Budget::default());
        let on_disk = fs::read_to_string(store.catalog_path()).unwrap();
        prop_assert_eq!(&on_disk, &expected.text);
        prop_assert!(expected.lines <= 200 && expected.bytes <= 25_000);
        prop_assert!(on_disk.lines().all(|l| l.chars().count() <= 150));
    }
}
