//! Every file a plan will touch in one store, for the snapshot: records
//! written or removed, their tombstones (and the folder, for a second
//! tombstone beside a first), `MEMORY.md`, and the copy a first write keeps
//! of a hand-made `MEMORY.md`.

use std::path::{Path, PathBuf};

use mdstore::catalog::disk::PRESERVED_FILE;
use mdstore::id::{normalize_name, record_path};
use mdstore::store::CATALOG_FILE;
use mdstore::tombstone::{TOMBSTONE_DIR, tombstone_path};
use mdstore::txn::Transaction;

use crate::plan::{Operation, Plan, Scope};

/// Files and folders (relative to the store) to snapshot in `scope`.
pub(super) fn paths(
    plan: &Plan,
    scope: Scope,
    txn: &Transaction<'_>,
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let root = txn.store().root();
    let relative = |path: PathBuf| {
        path.strip_prefix(root)
            .map(Path::to_path_buf)
            .unwrap_or(path)
    };
    let mut files = vec![PathBuf::from(CATALOG_FILE), preserved_path(root)];
    for op in &plan.operations {
        for read in op.reads().into_iter().filter(|r| r.scope == scope) {
            if let Some(summary) = txn.view().find(&read.id) {
                files.push(summary.rel_path.clone());
            }
            files.push(relative(tombstone_path(root, &read.id)));
        }
        if let Operation::Merge { reads, into, .. } = op
            && reads.first().is_some_and(|r| r.scope == scope)
            && let Ok(name) = normalize_name(&into.name)
            && let Ok(path) = record_path(root, &name)
        {
            files.push(relative(path));
        }
    }
    files.sort();
    files.dedup();
    (files, vec![PathBuf::from(TOMBSTONE_DIR)])
}

/// Where a first write would keep a hand-made `MEMORY.md`: the first free
/// name of `MEMORY.md.before-memctl`, `-2`, `-3`…
fn preserved_path(root: &Path) -> PathBuf {
    let mut name = PRESERVED_FILE.to_string();
    let mut n = 1;
    while root.join(&name).symlink_metadata().is_ok() {
        n += 1;
        name = format!("{PRESERVED_FILE}-{n}");
    }
    PathBuf::from(name)
}
