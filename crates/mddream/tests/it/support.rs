//! Stores of records written for a test, and gathering them.

use std::fs;

use jiff::Timestamp;
use mddream::gather::gather;
use mddream::plan::{Operation, Plan, Scope};
use mddream::records::{DreamRecord, load};
use mdstore::Store;
use memctl_testkit::RecordFile;
use tempfile::TempDir;

/// The "now" of every gathering test.
pub const NOW: &str = "2026-06-01T12:00:00Z";

/// A record file as memctl writes one.
pub fn record(
    name: &str,
    kind: &str,
    source: &str,
    updated: &str,
    description: &str,
    body: &str,
) -> String {
    RecordFile::written(name)
        .kind(kind)
        .description(description)
        .updated(updated)
        .field("revision", "2")
        .source(source)
        .body(&format!("{body}\n"))
        .text()
}

/// A workspace store holding `files` (relative path, text).
pub fn store(files: &[(&str, String)]) -> (TempDir, Vec<DreamRecord>) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    for (path, text) in files {
        let path = dir.path().join(path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{}: {e}", parent.display()));
        }
        fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let store = Store::open(dir.path()).unwrap_or_else(|e| panic!("open: {e}"));
    let loaded = load(&store, Scope::Workspace);
    assert!(
        loaded.broken.is_empty(),
        "broken fixtures: {:?}",
        loaded.broken
    );
    (dir, loaded.records)
}

/// The rules' plan for `files`, checked to read each record at most once.
pub fn plan_of(files: &[(&str, String)]) -> Plan {
    let (_dir, records) = store(files);
    let now: Timestamp = NOW.parse().unwrap_or_else(|e| panic!("{NOW}: {e}"));
    let plan = gather(&records, now);
    assert_each_record_read_once(&plan);
    plan
}

/// No record is read by two operations, and none is superseded by a
/// record an operation retires.
pub fn assert_each_record_read_once(plan: &Plan) {
    let mut read = std::collections::BTreeSet::new();
    for op in &plan.operations {
        for r in op.reads() {
            assert!(
                read.insert((r.scope, r.id.clone())),
                "{} read twice in {plan:#?}",
                r.id
            );
        }
    }
    let retired: std::collections::BTreeSet<_> = plan
        .operations
        .iter()
        .filter_map(|op| match op {
            Operation::Retire { reads, .. } => Some(reads.id.clone()),
            _ => None,
        })
        .collect();
    for op in &plan.operations {
        if let Operation::Retire {
            superseded_by: Some(by),
            ..
        } = op
        {
            assert!(
                !retired.contains(&by.id),
                "{} is superseded by the retired {}",
                op.reason(),
                by.id
            );
        }
    }
}
