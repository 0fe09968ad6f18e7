//! The properties the dream-plan fuzz target checks on every input. The
//! target (fuzz/fuzz_targets/dream_validate.rs) includes this file, and the
//! `fuzz_replay` test runs every file of its corpus through it, so CI
//! replays what the fuzzer found on a stable toolchain.

// Test code: a failed `expect` is the test (or the fuzz target) failing.
#![allow(clippy::expect_used)]

use std::collections::HashSet;

use mddream::plan::{Operation, Plan, RecordRef, Scope};
use mddream::records::{self, DreamRecord};
use mddream::validate::{self, ValidateOptions};
use mdstore::Store;
use mdstore::id::id_key;

/// Records of every kind a plan may name: two scopes, the same id in both,
/// each trust level, revisions above 1, a file without one, an expired one.
const WORKSPACE: &[(&str, &str)] = &[
    (
        "prefer-pytest",
        "source: user\nrevision: 3\ntype: feedback\ndescription: Tests use pytest",
    ),
    (
        "use-pytest",
        "source: inferred\nrevision: 1\ntype: feedback\ndescription: Tests use pytest here",
    ),
    (
        "deploy-friday",
        "source: verified\nrevision: 2\ntype: project\ndescription: No deploys on Friday\nexpires: 2020-01-01",
    ),
    (
        "ci-cache",
        "type: project\ndescription: The CI caches cargo",
    ),
    (
        "old-note",
        "source: inferred\nrevision: 1\ntype: reference\ndescription: Dashboards live in Grafana",
    ),
];
const GLOBAL: &[(&str, &str)] = &[
    (
        "prefer-pytest",
        "source: user\nrevision: 1\ntype: feedback\ndescription: Tests use pytest",
    ),
    (
        "editor",
        "source: inferred\nrevision: 2\ntype: user\ndescription: The user edits in Helix",
    ),
];

/// The fixture stores (kept alive by the returned folders) and their records.
pub fn fixture() -> (Vec<tempfile::TempDir>, Vec<DreamRecord>) {
    let mut dirs = Vec::new();
    let mut all = Vec::new();
    for (scope, files) in [(Scope::Workspace, WORKSPACE), (Scope::Global, GLOBAL)] {
        let dir = tempfile::tempdir().expect("a temporary store");
        for (name, header) in files {
            let text = format!("---\nname: {name}\n{header}\n---\n{name}: a fact.\n");
            std::fs::write(dir.path().join(format!("{name}.md")), text).expect("a fixture record");
        }
        let store = Store::open(dir.path()).expect("the fixture store");
        let loaded = records::load(&store, scope);
        assert!(loaded.broken.is_empty(), "{:?}", loaded.broken);
        all.extend(loaded.records);
        dirs.push(dir);
    }
    (dirs, all)
}

/// SPEC §7: validating any plan never panics, and a plan it accepts reads
/// only records that exist at the revisions read, never merges across
/// scopes, and removes at most `--max-delete-pct` of the records. Returns
/// whether the plan was accepted.
pub fn plan_json(records: &[DreamRecord], data: &[u8]) -> bool {
    let Ok(plan) = serde_json::from_slice::<Plan>(data) else {
        return false;
    };
    let options = ValidateOptions {
        max_delete_pct: 25.0,
    };
    if validate::validate(&plan, records, &options).is_err() {
        return false;
    }
    // Ids that differ only in case or compatibility form are one record.
    let key = |read: &RecordRef| (read.scope, id_key(&read.id), read.revision);
    let known: HashSet<_> = records.iter().map(|r| key(&r.reference())).collect();
    let mut removed = HashSet::new();
    for (i, operation) in plan.operations.iter().enumerate() {
        for read in operation.reads() {
            assert!(
                known.contains(&key(read)),
                "operation {} reads {read:?}, which is not a record",
                i + 1
            );
        }
        match operation {
            Operation::Merge { reads, into, .. } => {
                let scopes: HashSet<Scope> = reads.iter().map(|read| read.scope).collect();
                assert!(
                    scopes.len() <= 1,
                    "operation {} merges across scopes",
                    i + 1
                );
                let kept = id_key(&into.name);
                removed.extend(
                    reads
                        .iter()
                        .filter(|read| id_key(&read.id) != kept)
                        .map(key),
                );
            }
            Operation::Retire { reads, .. } => {
                removed.insert(key(reads));
            }
            Operation::Update { .. } => {}
        }
    }
    // SPEC §7: at most `max(3, floor(pct% of the records))`.
    let allowed = (options.max_delete_pct / 100.0 * records.len() as f64)
        .floor()
        .max(mddream::validate::MIN_REMOVALS as f64);
    assert!(
        removed.len() as f64 <= allowed,
        "{} of {} records removed",
        removed.len(),
        records.len()
    );
    true
}
