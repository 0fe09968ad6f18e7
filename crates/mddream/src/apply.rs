//! Apply (SPEC §7, step 4): a validated plan, written through `mdstore`'s
//! write transaction under each store's lock, after a snapshot of every file
//! it will touch; on any failure every file is restored byte for byte.
//!
//! Order: the locks (workspace, then global), the revisions read checked
//! again, the snapshot, written to each store as its journal, then every
//! write (merged and updated records), then every removal (a tombstone
//! each, as `forget` leaves), then `MEMORY.md`, then the journal removed;
//! only when all of that worked are the locks released. A process killed
//! in between leaves the journal, from which the next command that takes
//! the lock undoes the whole change (`mdstore::recover`).

mod execute;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
mod touched;

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use jiff::Timestamp;
use mdstore::Store;
use mdstore::lock::LockError;
use mdstore::txn::{ChangeSink, Snapshot, Transaction};
use mdstore::view::StoreView;

use crate::plan::{Plan, RecordRef, Scope};
use crate::records::DreamRecord;

/// A store a plan may change, and the index to tell what changed.
pub struct Target<'a> {
    pub scope: Scope,
    pub store: &'a Store,
    pub sink: &'a mut dyn ChangeSink,
}

#[derive(Clone, Debug)]
pub struct ApplyOptions {
    /// How long to wait for each store's write lock.
    pub lock_timeout: Duration,
    /// The time written into merged and updated records and tombstones.
    pub now: Timestamp,
}

/// What a plan did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// The records each merge read, and the record it wrote.
    pub merged: Vec<(Vec<RecordRef>, RecordRef)>,
    /// Updated records, at their new revision.
    pub updated: Vec<RecordRef>,
    /// Retired records, as read.
    pub retired: Vec<RecordRef>,
}

/// Why a plan was not applied. In every case the stores are as they were
/// before (`Unrestored` says which file could not be put back).
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("operation {}: \"{}\" changed since the plan was made; nothing was written (run dream again)", .operation + 1, mdstore::escape::for_message(.id, 80))]
    Conflict { operation: usize, id: String },
    #[error("operation {}: {reason}; nothing was written", .operation + 1)]
    Refused {
        operation: usize,
        reason: String,
        /// What is stored said no (a tombstone, the trust order, a file in
        /// the way), rather than the text itself (a secret).
        conflict: bool,
    },
    #[error("cannot write {}: {source}; every file was restored as it was", .path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("{error}; then restoring {} failed: {source} (restore it from git, or run memctl check)", .path.display())]
    Unrestored {
        error: Box<ApplyError>,
        path: PathBuf,
        source: io::Error,
    },
}

/// A store under its lock while a plan is applied.
struct Open<'a> {
    scope: Scope,
    /// Its index in the caller's targets (for the sink).
    target: usize,
    txn: Transaction<'a>,
    snapshot: Option<Snapshot>,
}

/// Applies `plan` (already validated against the records it was made from)
/// to the `targets` it reads, whole or not at all. A record is "as read"
/// when its revision is; prefer [`apply_as_read`], which also catches a
/// hand edit that left the revision as it was.
pub fn apply<'a>(
    plan: &Plan,
    targets: &mut [Target<'a>],
    options: &ApplyOptions,
) -> Result<Applied, ApplyError> {
    apply_checked(plan, None, targets, options)
}

/// [`apply`], and under the lock every record the plan reads must still
/// hold what `records` (the records the plan was made and validated from)
/// held: a file edited by hand since (its revision unchanged) is a
/// conflict, so that a merge never drops a line added meanwhile.
pub fn apply_as_read<'a>(
    plan: &Plan,
    records: &[DreamRecord],
    targets: &mut [Target<'a>],
    options: &ApplyOptions,
) -> Result<Applied, ApplyError> {
    apply_checked(plan, Some(records), targets, options)
}

fn apply_checked<'a>(
    plan: &Plan,
    records: Option<&[DreamRecord]>,
    targets: &mut [Target<'a>],
    options: &ApplyOptions,
) -> Result<Applied, ApplyError> {
    if plan.operations.is_empty() {
        return Ok(Applied::default());
    }
    let mut open = lock_stores(plan, targets, options.lock_timeout)?;
    execute::recheck(plan, &open)?;
    if let Some(records) = records {
        execute::recheck_content(plan, records, &open)?;
    }
    let journaled = journal(plan, &mut open);
    let result = journaled
        .and_then(|()| execute::run(plan, &mut open, options))
        .and_then(|applied| {
            for store in &mut open {
                store.txn.write_catalog().map_err(|source| ApplyError::Io {
                    path: store.txn.store().catalog_path(),
                    source,
                })?;
            }
            // The change is whole: its journals go. One that cannot be
            // removed would undo this dream at the next write after it was
            // reported done, so that is a failure like any other.
            for store in &open {
                store.txn.end_journal().map_err(|source| ApplyError::Io {
                    path: store.txn.store().root().join(mdstore::txn::JOURNAL_FILE),
                    source,
                })?;
            }
            Ok(applied)
        });
    match result {
        Ok(applied) => {
            for store in open {
                // MEMORY.md was written above; this releases the lock and
                // tells the index.
                let _ = store.txn.commit(&mut *targets[store.target].sink);
            }
            Ok(applied)
        }
        Err(error) => Err(roll_back(error, open, targets)),
    }
}

/// Takes the snapshot of every file the plan will touch in each store and
/// writes it as the store's journal before any of them changes: a dream
/// killed half-way is undone from it by the next command (SPEC §7).
fn journal(plan: &Plan, open: &mut [Open<'_>]) -> Result<(), ApplyError> {
    for store in open.iter_mut() {
        let (files, folders) = touched::paths(plan, store.scope, &store.txn);
        let io_error = |source| ApplyError::Io {
            path: store.txn.store().root().to_path_buf(),
            source,
        };
        let snapshot = store.txn.snapshot(&files, &folders).map_err(io_error)?;
        store.snapshot = Some(snapshot);
    }
    for store in open.iter() {
        if let Some(snapshot) = &store.snapshot {
            store
                .txn
                .begin_journal(snapshot)
                .map_err(|source| ApplyError::Io {
                    path: store.txn.store().root().join(mdstore::txn::JOURNAL_FILE),
                    source,
                })?;
        }
    }
    Ok(())
}

/// Takes the lock of every store the plan reads, the workspace's first, so
/// that two dreams never wait for each other in opposite orders.
fn lock_stores<'a>(
    plan: &Plan,
    targets: &[Target<'a>],
    timeout: Duration,
) -> Result<Vec<Open<'a>>, ApplyError> {
    let mut scopes: Vec<Scope> = plan
        .operations
        .iter()
        .flat_map(execute::scopes_of)
        .collect();
    scopes.sort();
    scopes.dedup();
    let mut open = Vec::new();
    for scope in scopes {
        let Some(target) = targets.iter().position(|t| t.scope == scope) else {
            let (operation, id) = execute::first_in_scope(plan, scope);
            return Err(ApplyError::Conflict { operation, id });
        };
        let txn = Transaction::begin(targets[target].store, timeout, StoreView::load)?;
        open.push(Open {
            scope,
            target,
            txn,
            snapshot: None,
        });
    }
    Ok(open)
}

/// Puts every snapshotted file back, tells each index which records were
/// touched, releases the locks, and returns `error` (or the first restore
/// failure with it).
fn roll_back(error: ApplyError, open: Vec<Open<'_>>, targets: &mut [Target<'_>]) -> ApplyError {
    let mut unrestored = None;
    for mut store in open {
        if let Some(snapshot) = &store.snapshot {
            match store.txn.restore(snapshot) {
                // Restored: the journal has nothing left to undo.
                Ok(()) => {
                    let _ = store.txn.end_journal();
                }
                // Kept: the next write tries again from it.
                Err(failure) => {
                    unrestored.get_or_insert(failure);
                }
            }
        }
        let _ = store.txn.commit(&mut *targets[store.target].sink);
    }
    match unrestored {
        None => error,
        Some((rel_path, source)) => ApplyError::Unrestored {
            error: Box::new(error),
            path: rel_path,
            source,
        },
    }
}
