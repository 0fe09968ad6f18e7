//! Apply: whole or not at all, under the lock, byte for byte on failure.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mdstore::Store;
use mdstore::atomic::fault;
use mdstore::txn::ChangeSink;
use pretty_assertions::assert_eq;

use super::{Applied, ApplyError, ApplyOptions, Target, apply, apply_as_read};
use crate::plan::{Finding, NewRecord, Operation, Origin, Plan, RecordRef, Scope};
use crate::records::{self, DreamRecord};
use crate::validate::{ValidateOptions, validate};

pub(crate) const NOW: &str = "2026-11-30T12:00:00Z";

/// Records every path it is told about.
#[derive(Default)]
pub(crate) struct Paths(pub Vec<PathBuf>);

impl ChangeSink for Paths {
    fn changed(&mut self, rel_paths: &[PathBuf]) {
        self.0.extend_from_slice(rel_paths);
    }
}

pub(crate) fn record_text(id: &str, source: &str, body: &str) -> String {
    memctl_testkit::RecordFile::written(id)
        .source(source)
        .body(body)
        .text()
}

/// A store of eight records, `MEMORY.md` written by hand (as in a Claude
/// Code memory folder) and no tombstones yet.
fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    let files = [
        ("a", "We use pnpm.\n- CI runs on Linux\n"),
        ("b", "we use **pnpm**.\n"),
        ("c", "Node 22 is required.\n"),
        ("e", "Deploy freeze until 2026-01-01.\n"),
        ("f", "Deploy freeze until 2026-03-01.\n"),
        ("g", "Docs live in docs/.\n"),
        ("h", "Issues are tracked in Linear.\n"),
        ("i", "The API is REST.\n"),
    ];
    for (id, body) in files {
        fs::write(
            dir.path().join(format!("{id}.md")),
            record_text(id, "inferred", body),
        )
        .unwrap();
    }
    fs::write(
        dir.path().join("MEMORY.md"),
        "# My memory\n- [a](a.md) pnpm, kept by hand\n",
    )
    .unwrap();
    (dir, store)
}

/// Every file and folder under `root`, with the files' bytes (a folder's
/// are empty and its path ends in `/`).
pub(crate) fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if path.is_dir() {
                found.push((format!("{rel}/"), Vec::new()));
                folders.push(path);
            } else {
                found.push((rel, fs::read(&path).unwrap()));
            }
        }
    }
    found.sort();
    found
}

fn ws(id: &str, revision: u64) -> RecordRef {
    RecordRef {
        scope: Scope::Workspace,
        id: id.to_string(),
        revision,
    }
}

fn new_record(name: &str, body: &str) -> NewRecord {
    NewRecord {
        name: name.to_string(),
        record_type: "project".to_string(),
        description: format!("about {name}"),
        body: body.to_string(),
        ..NewRecord::default()
    }
}

/// Two merges (one into a new name, one into a source's name), an update
/// and a retire: every kind of file change a plan makes.
fn plan() -> Plan {
    let mut plan = Plan::new(Origin::Rules);
    plan.operations = vec![
        Operation::Merge {
            finding: Finding::NearDuplicate,
            reason: "same fact".to_string(),
            reads: vec![ws("a", 1), ws("b", 1)],
            into: new_record("tooling", "We use pnpm.\nCI runs on Linux.\n"),
            drops: Vec::new(),
        },
        Operation::Merge {
            finding: Finding::NearDuplicate,
            reason: "both about process".to_string(),
            reads: vec![ws("g", 1), ws("h", 1)],
            into: new_record("h", "Docs live in docs/.\nIssues are tracked in Linear.\n"),
            drops: Vec::new(),
        },
        Operation::Update {
            finding: Finding::Correction,
            reason: "clearer".to_string(),
            reads: ws("c", 1),
            record: new_record("c", "Node 22 is required (see .nvmrc).\n"),
            drops: Vec::new(),
        },
        Operation::Retire {
            finding: Finding::Expired,
            reason: "expired on 2026-01-01".to_string(),
            // Its successor holds its fact, corrected.
            reads: ws("e", 1),
            superseded_by: Some(ws("f", 1)),
        },
    ];
    plan
}

fn options() -> ApplyOptions {
    ApplyOptions {
        lock_timeout: Duration::from_millis(500),
        now: NOW.parse().unwrap(),
    }
}

fn loaded(store: &Store) -> Vec<DreamRecord> {
    let loaded = records::load(store, Scope::Workspace);
    assert!(loaded.broken.is_empty(), "{:?}", loaded.broken);
    loaded.records
}

fn apply_to(store: &Store, plan: &Plan, sink: &mut Paths) -> Result<Applied, ApplyError> {
    let mut targets = [Target {
        scope: Scope::Workspace,
        store,
        sink,
    }];
    apply(plan, &mut targets, &options())
}

#[test]
fn plan_of_every_kind_is_applied_and_the_index_told() {
    let (dir, store) = store();
    let plan = plan();
    let limits = ValidateOptions {
        max_delete_pct: 50.0,
    };
    validate(&plan, &loaded(&store), &limits).unwrap();
    let mut sink = Paths::default();
    let applied = apply_to(&store, &plan, &mut sink).unwrap();

    assert_eq!(
        applied.merged,
        vec![
            (vec![ws("a", 1), ws("b", 1)], ws("tooling", 1)),
            (vec![ws("g", 1), ws("h", 1)], ws("h", 2)),
        ]
    );
    assert_eq!(applied.updated, vec![ws("c", 2)]);
    assert_eq!(applied.retired, vec![ws("e", 1)]);
    let root = dir.path();
    for gone in ["a.md", "b.md", "g.md", "e.md"] {
        assert!(!root.join(gone).exists(), "{gone}");
    }
    let tooling = fs::read_to_string(root.join("tooling.md")).unwrap();
    assert!(
        tooling.contains("merged_from:\n  - a\n  - b\n"),
        "{tooling}"
    );
    assert!(tooling.contains("source: inferred"), "{tooling}");
    let h = fs::read_to_string(root.join("h.md")).unwrap();
    assert!(
        h.contains("revision: 2") && h.contains("merged_from:\n  - g\n  - h\n"),
        "{h}"
    );
    let tomb = fs::read_to_string(root.join(".tombstones/e.json")).unwrap();
    assert!(
        tomb.contains("dream: expired on 2026-01-01 (superseded by f)"),
        "{tomb}"
    );
    assert!(
        fs::read_to_string(root.join(".tombstones/a.json"))
            .unwrap()
            .contains("dream: merged into \\\"tooling\\\": same fact")
    );
    let catalog = fs::read_to_string(root.join("MEMORY.md")).unwrap();
    assert!(
        catalog.contains("[tooling](tooling.md)") && !catalog.contains("(a.md)"),
        "{catalog}"
    );
    assert_eq!(
        fs::read_to_string(root.join("MEMORY.md.before-memctl")).unwrap(),
        "# My memory\n- [a](a.md) pnpm, kept by hand\n",
        "the hand-made index is kept"
    );
    let mut told = sink.0.clone();
    told.sort();
    let expected: Vec<PathBuf> = ["a.md", "b.md", "c.md", "e.md", "g.md", "h.md", "tooling.md"]
        .map(PathBuf::from)
        .to_vec();
    assert_eq!(told, expected);
    assert!(loaded(&store).len() == 5, "the result still reads");
}

#[test]
fn later_remember_of_merged_away_text_is_caught_by_its_tombstone() {
    let (_dir, store) = store();
    apply_to(&store, &plan(), &mut Paths::default()).unwrap();
    let view = mdstore::view::StoreView::load(&store);
    let hash = mdstore::hash::content_hash("about b", "we use **pnpm**.\n");
    assert!(mdstore::tombstone::find_match(&view.tombstones, "b-again", &hash).is_some());
}

#[test]
fn record_changed_since_the_plan_was_read_is_a_conflict_and_nothing_is_written() {
    let (dir, store) = store();
    let changed =
        record_text("c", "inferred", "Node 24 now.\n").replace("revision: 1", "revision: 2");
    fs::write(dir.path().join("c.md"), changed).unwrap();
    let before = tree(dir.path());
    let error = apply_to(&store, &plan(), &mut Paths::default()).unwrap_err();
    assert!(
        matches!(&error, ApplyError::Conflict { operation: 2, id } if id == "c"),
        "{error}"
    );
    // Its kind (a conflict, exit 4): mdagent::explain's tests.
    assert_eq!(tree(dir.path()), before);
}

#[test]
fn name_taken_since_the_plan_was_made_is_a_conflict() {
    let (dir, store) = store();
    fs::write(
        dir.path().join("tooling.md"),
        record_text("tooling", "user", "Mine.\n"),
    )
    .unwrap();
    let before = tree(dir.path());
    let error = apply_to(&store, &plan(), &mut Paths::default()).unwrap_err();
    assert!(
        matches!(&error, ApplyError::Conflict { operation: 0, id } if id == "tooling"),
        "{error}"
    );
    assert_eq!(tree(dir.path()), before);
}

#[test]
fn secret_in_merged_text_rolls_back_the_operations_before_it() {
    let (dir, store) = store();
    let before = tree(dir.path());
    let mut plan = plan();
    // The last write of the plan carries a secret: three writes happened.
    if let Operation::Update { record, .. } = &mut plan.operations[2] {
        record
            .body
            .push_str("aws_access_key_id = AKIAIOSFODNN7EXAMPLF\n");
    }
    let mut sink = Paths::default();
    let error = apply_to(&store, &plan, &mut sink).unwrap_err();
    assert!(
        matches!(
            error,
            ApplyError::Refused {
                operation: 2,
                conflict: false,
                ..
            }
        ),
        "{error}"
    );
    // Its kind (bad input, exit 2): mdagent::explain's tests.
    assert!(!error.to_string().contains("AKIA"), "{error}");
    assert_eq!(tree(dir.path()), before);
    assert!(
        sink.0.contains(&PathBuf::from("tooling.md")),
        "the index hears of the undone write"
    );
}

#[test]
fn tombstoned_text_in_a_merge_rolls_back_with_a_conflict() {
    let (dir, store) = store();
    fs::create_dir(dir.path().join(".tombstones")).unwrap();
    let hash = mdstore::hash::content_hash(
        "about h",
        "Docs live in docs/.\nIssues are tracked in Linear.\n",
    );
    fs::write(
        dir.path().join(".tombstones/old.json"),
        format!("{{\"id\":\"old\",\"forgotten_at\":\"2026-02-01T00:00:00Z\",\"content_hash\":\"{hash}\"}}\n"),
    )
    .unwrap();
    let before = tree(dir.path());
    let error = apply_to(&store, &plan(), &mut Paths::default()).unwrap_err();
    assert!(
        matches!(
            error,
            ApplyError::Refused {
                operation: 1,
                conflict: true,
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(tree(dir.path()), before);
}

#[test]
fn held_lock_is_a_lock_error_and_nothing_is_written() {
    let (dir, store) = store();
    let before = tree(dir.path());
    let _held = mdstore::lock::StoreLock::acquire(dir.path(), Duration::from_millis(100)).unwrap();
    let error = apply_to(&store, &plan(), &mut Paths::default()).unwrap_err();
    assert!(matches!(error, ApplyError::Lock(_)), "{error}");
    assert_eq!(tree(dir.path()), before);
}

/// How many file writes and removals applying `plan()` makes.
fn writes_of_the_plan() -> usize {
    let (_dir, store) = store();
    fault::count();
    apply_to(&store, &plan(), &mut Paths::default()).unwrap();
    fault::writes()
}

#[test]
fn failure_after_any_file_write_leaves_the_store_byte_for_byte_as_it_was() {
    let writes = writes_of_the_plan();
    // The journal, 3 records written, 4 tombstones written aside, 4
    // removals and the 4 tombstones put in place, the kept hand-made
    // MEMORY.md and the new one, the journal removed.
    assert_eq!(writes, 19);
    for n in 0..writes {
        let (dir, store) = store();
        let before = tree(dir.path());
        fault::fail_after(n);
        let error = apply_to(&store, &plan(), &mut Paths::default()).unwrap_err();
        fault::count();
        assert!(
            matches!(error, ApplyError::Io { .. }),
            "after {n} writes: {error}"
        );
        // Its kind (internal, exit 5): mdagent::explain's tests.
        assert_eq!(tree(dir.path()), before, "after {n} writes");
    }
}

#[test]
fn failure_in_the_global_store_rolls_back_the_workspace_too() {
    let (ws_dir, ws_store) = store();
    let (global_dir, global_store) = store();
    let mut plan = plan();
    let mut global_retire = plan.operations[3].clone();
    if let Operation::Retire {
        reads,
        superseded_by,
        ..
    } = &mut global_retire
    {
        reads.scope = Scope::Global;
        *superseded_by = None;
    }
    plan.operations.push(global_retire);
    let before = (tree(ws_dir.path()), tree(global_dir.path()));
    fault::count();
    let mut sinks = (Paths::default(), Paths::default());
    {
        let mut targets = [
            Target {
                scope: Scope::Global,
                store: &global_store,
                sink: &mut sinks.1,
            },
            Target {
                scope: Scope::Workspace,
                store: &ws_store,
                sink: &mut sinks.0,
            },
        ];
        apply(&plan, &mut targets, &options()).unwrap();
    }
    let writes = fault::writes();
    let (ws_dir, ws_store) = store();
    let (global_dir, global_store) = store();
    // The global store's removal of `e` is the plan's last record change.
    fault::fail_after(writes - 3);
    let mut targets = [
        Target {
            scope: Scope::Global,
            store: &global_store,
            sink: &mut sinks.1,
        },
        Target {
            scope: Scope::Workspace,
            store: &ws_store,
            sink: &mut sinks.0,
        },
    ];
    let error = apply(&plan, &mut targets, &options()).unwrap_err();
    fault::count();
    assert!(matches!(error, ApplyError::Io { .. }), "{error}");
    assert_eq!((tree(ws_dir.path()), tree(global_dir.path())), before);
}

#[test]
fn empty_plan_locks_nothing_and_writes_nothing() {
    let (dir, store) = store();
    let before = tree(dir.path());
    let _held = mdstore::lock::StoreLock::acquire(dir.path(), Duration::from_millis(100)).unwrap();
    let applied = apply_to(&store, &Plan::new(Origin::Model), &mut Paths::default()).unwrap();
    assert_eq!(applied, Applied::default());
    assert_eq!(tree(dir.path()), before);
}

#[test]
fn claude_code_memory_folder_dreams_without_losing_a_record_or_the_hand_made_index() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    let hand_made = "# Memory index\n\n- [feedback_x](feedback_x.md): use pytest\n- [project_y](project_y.md)\n";
    let files = [
        (
            "feedback_x.md",
            "---\nname: feedback_x\ndescription: Use pytest\ntype: feedback\n---\nUse pytest, never unittest.\n\n**Why:** CI runs pytest only.\n",
        ),
        (
            "feedback_x2.md",
            "---\nname: feedback_x2\ndescription: pytest again\ntype: feedback\n---\n- use **pytest**, never unittest\n",
        ),
        (
            "project_y.md",
            "---\nname: project_y\ndescription: Deploys\ntype: project\n---\nDeploys go out on Tuesdays.\n",
        ),
        ("MEMORY.md", hand_made),
    ];
    for (name, text) in files {
        fs::write(dir.path().join(name), text).unwrap();
    }
    let before = loaded(&store);
    let mut plan = Plan::new(Origin::Rules);
    plan.operations.push(Operation::Merge {
        finding: Finding::NearDuplicate,
        reason: "same preference".to_string(),
        reads: vec![ws("feedback_x", 1), ws("feedback_x2", 1)],
        into: NewRecord {
            name: "feedback_x".to_string(),
            record_type: "feedback".to_string(),
            description: "Use pytest".to_string(),
            body: "Use pytest, never unittest.\n\n**Why:** CI runs pytest only.\n".to_string(),
            ..NewRecord::default()
        },
        drops: Vec::new(),
    });
    validate(
        &plan,
        &before,
        &ValidateOptions {
            max_delete_pct: 25.0,
        },
    )
    .unwrap();
    apply_to(&store, &plan, &mut Paths::default()).unwrap();

    let after = loaded(&store);
    let ids: Vec<&str> = after.iter().map(|r| r.record.id.as_str()).collect();
    assert_eq!(ids, ["feedback_x", "project_y"]);
    let merged = &after[0].record;
    assert_eq!(merged.meta.merged_from, ["feedback_x", "feedback_x2"]);
    assert_eq!(
        merged.source(),
        mdstore::Source::User,
        "the hand-written records' trust is kept"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("MEMORY.md.before-memctl")).unwrap(),
        hand_made
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("project_y.md")).unwrap(),
        files[2].1,
        "a record the plan did not read is untouched"
    );
}

#[test]
fn hand_edit_that_kept_the_revision_is_a_conflict_for_apply_as_read() {
    let (dir, store) = store();
    let records = loaded(&store);
    // An editor adds a fact to `b` and leaves `revision: 1` as it was.
    let edited = record_text(
        "b",
        "inferred",
        "we use **pnpm**.\nLockfile is committed.\n",
    );
    fs::write(dir.path().join("b.md"), edited).unwrap();
    let before = tree(dir.path());
    let mut sink = Paths::default();
    let mut targets = [Target {
        scope: Scope::Workspace,
        store: &store,
        sink: &mut sink,
    }];
    let error = apply_as_read(&plan(), &records, &mut targets, &options()).unwrap_err();
    assert!(
        matches!(&error, ApplyError::Conflict { operation: 0, id } if id == "b"),
        "{error}"
    );
    assert_eq!(tree(dir.path()), before);
}

#[test]
fn second_dream_merging_into_a_record_that_absorbed_an_exact_duplicate_is_not_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    let same = "We use pnpm.\n";
    for id in ["a", "b", "e", "f"] {
        let body = if id == "e" || id == "f" {
            "Other.\n"
        } else {
            same
        };
        // Exact duplicates: description and body alike.
        let text = record_text(id, "inferred", body).replace("about a", "about b");
        fs::write(dir.path().join(format!("{id}.md")), text).unwrap();
    }
    let merge_into_b = |reads: Vec<RecordRef>| {
        let mut plan = Plan::new(Origin::Rules);
        plan.operations.push(Operation::Merge {
            finding: Finding::ExactDuplicate,
            reason: "same text".to_string(),
            reads,
            into: NewRecord {
                name: "b".to_string(),
                record_type: "project".to_string(),
                description: "about b".to_string(),
                body: same.to_string(),
                ..NewRecord::default()
            },
            drops: Vec::new(),
        });
        plan
    };
    apply_to(
        &store,
        &merge_into_b(vec![ws("a", 1), ws("b", 1)]),
        &mut Paths::default(),
    )
    .unwrap();
    // The same text turns up again, saved by hand as c.
    let text = record_text("c", "inferred", same).replace("about c", "about b");
    fs::write(dir.path().join("c.md"), text).unwrap();
    let plan = merge_into_b(vec![ws("b", 2), ws("c", 1)]);
    validate(
        &plan,
        &loaded(&store),
        &ValidateOptions {
            max_delete_pct: 25.0,
        },
    )
    .unwrap();
    let applied = apply_to(&store, &plan, &mut Paths::default()).unwrap();
    assert_eq!(applied.merged[0].1, ws("b", 3));
}
