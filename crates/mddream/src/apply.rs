//! Apply (SPEC §7, step 4): a validated plan, written through `mdstore`'s
//! write transaction under each store's lock, after a snapshot of every file
//! it will touch; on any failure every file is restored byte for byte.
//!
//! (A stand-in with DREAM-API's signatures on the dream-cli branch, so that
//! the CLI builds before dream-apply lands; dream-apply's file replaces it.)

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use mdstore::lock::LockError;

use crate::plan::{Plan, RecordRef, Scope};

pub struct Target<'a> {
    pub scope: Scope,
    pub store: &'a mdstore::Store,
    pub sink: &'a mut dyn mdstore::txn::ChangeSink,
}

pub struct ApplyOptions {
    pub lock_timeout: Duration,
    pub now: jiff::Timestamp,
}

#[derive(Debug, Default)]
pub struct Applied {
    pub merged: Vec<(Vec<RecordRef>, RecordRef)>,
    pub updated: Vec<RecordRef>,
    pub retired: Vec<RecordRef>,
}

#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error(transparent)]
    Lock(LockError),
    #[error("operation {}: {id} changed since it was read", .operation + 1)]
    Conflict { operation: usize, id: String },
    #[error("operation {}: {reason}", .operation + 1)]
    Refused {
        operation: usize,
        reason: String,
        exit_conflict: bool,
    },
    #[error("cannot write {}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
}

pub fn apply(
    plan: &Plan,
    targets: &mut [Target<'_>],
    options: &ApplyOptions,
) -> Result<Applied, ApplyError> {
    let _ = (plan, targets, options);
    todo!("issue 7: apply (dream-apply)")
}
