//! Bringing `MEMORY.md` up to date at the start of a command, after git
//! changed the records under it: a merge, checkout, rebase, stash pop or
//! pull (docs/GIT.md). Every one of those rewrites git's index file, so
//! the check is one stat of that file, compared with the stamp kept beside
//! the store's index when `MEMORY.md` was last known to match; only a
//! changed stamp costs a header read and a render. A hand edit outside git
//! changes no stamp: as SPEC §3 says, the next write regenerates it, and
//! reading commands change nothing.

use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::Duration;

use mdstore::Store;
use mdstore::catalog::{self, disk};
use mdstore::txn::Transaction;

use crate::Config;
use crate::index_sink;
use crate::stores::ScopedStore;

/// How long a command waits for a writer's lock before leaving the
/// regeneration to that writer, whose commit regenerates it anyway.
const LOCK_WAIT: Duration = Duration::from_millis(200);

/// Regenerates `MEMORY.md` of `store` if git changed its repository since
/// `MEMORY.md` was last known to match the records, and it is memctl's own
/// and out of date (a missing or foreign one is left for the next write,
/// which keeps a foreign one first). Returns the file when it was
/// regenerated. Never fails a command: a store it cannot write is reported
/// by `check` and the next write.
pub fn catalog(config: &Config, store: &Store) -> Option<PathBuf> {
    let cache = config.cache_dir();
    let git_index = git_dir_of(store.root())?.join("index");
    let stamp_path = stamp_path(cache, store);
    let now = stamp(&git_index);
    if fs::read_to_string(&stamp_path).ok().as_deref() == Some(now.as_str()) {
        return None;
    }
    let view = index_sink::view_for_write(cache, store);
    let expected = catalog::render(&view.summaries, catalog::Budget::default());
    let stale = match disk::inspect(store, &expected).map(|d| d.state) {
        Ok(disk::State::Stale { .. }) => true,
        // Only a MEMORY.md memctl wrote is kept up to date here: a store
        // memctl never wrote to (a Claude Code folder) stays as it is
        // under read commands; the first write creates or replaces it.
        Ok(disk::State::Missing | disk::State::Current | disk::State::Foreign) => false,
        Err(_) => return None,
    };
    if stale && !regenerate(cache, store) {
        return None;
    }
    let _ = mdstore::atomic::write_private_file(&stamp_path, now.as_bytes());
    stale.then(|| store.catalog_path())
}

/// [`catalog`] for every store a command is about to use: the files it
/// regenerated.
pub fn catalogs(config: &Config, stores: &[ScopedStore]) -> Vec<PathBuf> {
    stores
        .iter()
        .filter_map(|scoped| catalog(config, &scoped.store))
        .collect()
}

/// What [`before_command`] did.
#[derive(Debug, Default)]
pub struct Prepared {
    /// What [`repair`] did or could not do, one line each.
    pub repaired: Vec<String>,
    /// The `MEMORY.md` files [`catalogs`] regenerated.
    pub regenerated: Vec<PathBuf>,
}

/// Before a command reads or plans from the stores: [`repair`], then, with
/// `catalogs` (not for `check` and `status`, which report on the store as
/// it is, nor for the hot path of `context`), [`catalogs`]. Nothing when the
/// stores cannot be found: the command says why.
pub fn before_command(config: &Config, catalogs: bool) -> Prepared {
    let Ok(stores) = crate::stores::read_stores(config) else {
        return Prepared::default();
    };
    Prepared {
        repaired: repair(config, &stores),
        regenerated: if catalogs {
            self::catalogs(config, &stores)
        } else {
            Vec::new()
        },
    }
}

/// Finishes or undoes what a writer killed half-way left in each store (a
/// dream's journal, a forget whose tombstone is not in place yet:
/// `mdstore::recover`) before a command reads or plans from it, so that no
/// command sees half of a change. Costs a stat and one listing of
/// `.tombstones/` a store when there is nothing to do; the lock is waited
/// for briefly (a live writer finishes its own change). Returns what was
/// done or could not be, one line each, naming the store.
pub fn repair(config: &Config, stores: &[ScopedStore]) -> Vec<String> {
    let cache = config.cache_dir();
    let mut said = Vec::new();
    for scoped in stores {
        let store = &scoped.store;
        let (interrupted, seen) = (
            mdstore::recover::interrupted(store.root()),
            tombstones_seen(config, store),
        );
        if !interrupted
            && !seen
                .as_ref()
                .is_some_and(|_| mdstore::recover::unfinished_forget(store))
        {
            if let Some(seen) = seen {
                seen.keep();
            }
            continue;
        }
        let view = |store: &Store| index_sink::view_for_write(cache, store);
        match Transaction::begin(store, LOCK_WAIT, view) {
            Ok(txn) => {
                if let Some(seen) = seen {
                    seen.keep();
                }
                said.extend(
                    txn.recovered()
                        .notes
                        .iter()
                        .map(|note| format!("{}: {note}", store.root().display())),
                );
                let _ = txn.commit(&mut index_sink::IndexSink::new(config, store));
            }
            Err(e @ mdstore::lock::LockError::Interrupted { .. }) => said.push(e.to_string()),
            // Busy: the writer holding the lock is alive and finishes its
            // own change; anything it left is repaired by the next command.
            Err(_) => {}
        }
    }
    said
}

/// The stamp of a store's `.tombstones/` folder (its times, size and
/// inode), when it changed since a command last looked for a record left
/// beside its own tombstone: `None` when it did not (nothing to look for).
struct TombstonesSeen {
    path: PathBuf,
    stamp: String,
}

impl TombstonesSeen {
    /// Remembers that this state of the folder was looked at.
    fn keep(self) {
        let _ = mdstore::atomic::write_private_file(&self.path, self.stamp.as_bytes());
    }
}

fn tombstones_seen(config: &Config, store: &Store) -> Option<TombstonesSeen> {
    let dir = store.root().join(mdstore::tombstone::TOMBSTONE_DIR);
    let stamp = stamp(&dir);
    if stamp.is_empty() {
        return None;
    }
    let path = crate::cache_file(config, store, "tombstones-stamp");
    (fs::read_to_string(&path).ok().as_deref() != Some(stamp.as_str()))
        .then_some(TombstonesSeen { path, stamp })
}

/// Regenerates `MEMORY.md` under the store's lock, through the one write
/// path; `false` when the lock was busy or the file could not be written.
fn regenerate(cache: &Path, store: &Store) -> bool {
    let view = |store: &Store| index_sink::view_for_write(cache, store);
    let Ok(mut txn) = Transaction::begin(store, LOCK_WAIT, view) else {
        return false;
    };
    txn.refresh_catalog();
    matches!(txn.commit(&mut ()).catalog, Ok(Some(_)))
}

/// Where the stamp of `store` is kept: beside its index, in the cache
/// folder, never in the store.
fn stamp_path(cache: &Path, store: &Store) -> PathBuf {
    let db = mdindex::IndexPaths::new(cache, store).db;
    db.with_extension("catalog-stamp")
}

/// A file's (or folder's) size, times and inode, hashed; empty when it is
/// not there (git's index file before the repository has one).
fn stamp(git_index: &Path) -> String {
    let Ok(meta) = fs::metadata(git_index) else {
        return String::new();
    };
    let nanos = |t: std::io::Result<std::time::SystemTime>| {
        t.ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos())
    };
    let mut hasher = DefaultHasher::new();
    (meta.len(), nanos(meta.modified())).hash(&mut hasher);
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.ctime(), meta.ctime_nsec(), meta.ino()).hash(&mut hasher);
    }
    format!("{:016x}\n", hasher.finish())
}

/// The git folder of the repository `dir` is in, found on disk without
/// running git (a command's start must stay cheap): the nearest `.git`
/// folder above, or the folder a `.git` file (a linked worktree, a
/// submodule) points to.
pub fn git_dir_of(dir: &Path) -> Option<PathBuf> {
    for ancestor in dir.ancestors() {
        let dot_git = ancestor.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        if meta.is_dir() {
            return Some(dot_git);
        }
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let target = text.strip_prefix("gitdir:")?.trim();
        return Some(ancestor.join(target));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linked_worktree_git_file_leads_to_its_git_dir() {
        let dir = tempfile::tempdir().unwrap();
        let worktree = dir.path().join("wt");
        std::fs::create_dir_all(worktree.join(".memory")).unwrap();
        std::fs::write(worktree.join(".git"), "gitdir: ../main/.git/worktrees/wt\n").unwrap();
        assert_eq!(
            git_dir_of(&worktree.join(".memory")),
            Some(worktree.join("../main/.git/worktrees/wt"))
        );
    }
}
