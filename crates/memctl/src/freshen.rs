//! Bringing `MEMORY.md` up to date at the start of a command, after the
//! records changed under it: a merge, checkout, rebase, stash pop or pull
//! (docs/GIT.md). The check is one stat of every file, compared with the
//! stamp kept beside the store's index when `MEMORY.md` was last known to
//! match; only a changed stamp costs a header read and a render.

use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use std::time::Duration;

use mdstore::catalog::{self, disk};
use mdstore::txn::Transaction;
use mdstore::{Store, WalkItem};

use crate::index_hook;
use crate::ui::Ui;

/// How long a command waits for a writer's lock before leaving the
/// regeneration to that writer, whose commit regenerates it anyway.
const LOCK_WAIT: Duration = Duration::from_millis(200);

/// Regenerates `MEMORY.md` of `store` if the records changed since it was
/// last known to match them and it is memctl's own (a missing or foreign
/// one is left for the next write, which keeps a foreign one first). Never fails a command: a
/// store it cannot write is reported by `check` and the next write.
pub fn catalog(store: &Store, ui: &Ui) {
    let stamp_path = stamp_path(store);
    let before = stamp(store);
    let saved = fs::read_to_string(&stamp_path).ok();
    if saved.as_deref() == Some(before.as_str()) {
        return;
    }
    let view = index_hook::view_for_write(store);
    let expected = catalog::render(&view.summaries, catalog::Budget::default());
    let stale = match disk::inspect(store, &expected).map(|d| d.state) {
        Ok(disk::State::Stale { .. }) => true,
        // Only a MEMORY.md memctl wrote is kept up to date here: a store
        // memctl never wrote to (a Claude Code folder) stays as it is
        // under read commands; the first write creates or replaces it.
        Ok(disk::State::Missing | disk::State::Current | disk::State::Foreign) => false,
        Err(_) => return,
    };
    let after = if stale {
        if !regenerate(store) {
            return;
        }
        if ui.verbose {
            ui.note(&format!(
                "Regenerated {}: the records changed outside memctl (a merge, checkout or pull).",
                store.catalog_path().display()
            ));
        }
        stamp(store)
    } else {
        before
    };
    if let Some(parent) = stamp_path.parent() {
        let _ = fs::create_dir_all(parent);
    }
    let _ = mdstore::atomic::write_file(&stamp_path, after.as_bytes());
}

/// [`catalog`] for every store a command is about to use.
pub fn catalogs(stores: &[crate::stores::ScopedStore], ui: &Ui) {
    for scoped in stores {
        catalog(&scoped.store, ui);
    }
}

/// Regenerates `MEMORY.md` under the store's lock, through the one write
/// path; `false` when the lock was busy or the file could not be written.
fn regenerate(store: &Store) -> bool {
    let Ok(mut txn) = Transaction::begin(store, LOCK_WAIT, index_hook::view_for_write) else {
        return false;
    };
    txn.refresh_catalog();
    matches!(txn.commit(&mut ()).catalog, Ok(Some(_)))
}

/// Where the stamp of `store` is kept: beside its index, outside the store
/// (SPEC §4: the store holds only records, tombstones and `MEMORY.md`).
fn stamp_path(store: &Store) -> PathBuf {
    let cache = mdindex::cache_dir_from_env();
    let db = mdindex::IndexPaths::new(&cache, store).db;
    db.with_extension("catalog-stamp")
}

/// Every record's path and stat data (size, mtime, ctime, inode: git
/// rewrites a file it checks out, so its inode or ctime change), the files
/// skipped and why, and `MEMORY.md`'s own, hashed.
fn stamp(store: &Store) -> String {
    let mut hasher = DefaultHasher::new();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for item in store.walk_parallel(threads) {
        match item {
            WalkItem::Record(entry) => {
                (&entry.rel_path, entry.size, entry.mtime_ns).hash(&mut hasher);
                (entry.ctime_ns, entry.inode).hash(&mut hasher);
            }
            WalkItem::Skipped(skipped) => {
                (&skipped.rel_path, skipped.reason.to_string()).hash(&mut hasher);
            }
        }
    }
    catalog_stat(store).hash(&mut hasher);
    format!("{:016x}\n", hasher.finish())
}

/// `MEMORY.md`'s size, times and inode, or nothing when it is missing.
fn catalog_stat(store: &Store) -> Option<(u64, i128, i128, u64)> {
    let meta = fs::symlink_metadata(store.catalog_path()).ok()?;
    let nanos = |t: std::io::Result<std::time::SystemTime>| {
        t.ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128)
    };
    #[cfg(unix)]
    let (ctime, inode) = {
        use std::os::unix::fs::MetadataExt;
        (
            i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
            meta.ino(),
        )
    };
    #[cfg(not(unix))]
    let (ctime, inode) = (0, 0);
    Some((meta.len(), nanos(meta.modified()), ctime, inode))
}
