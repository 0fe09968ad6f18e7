//! `edit`'s write: a hand edit of a record saved in one transaction, only
//! when it is whole (validated again under the lock) and the file is still
//! what the editor started from (SPEC §9). The editor, the scratch copy and
//! what is said are the face's.

use std::path::Path;
use std::time::Duration;

pub use mdstore::Problem;
use mdstore::Store;
use mdstore::lock::LockError;
use mdstore::recover::Recovered;
use mdstore::txn::Committed;
pub use mdstore::txn::EditError;

use crate::Config;
use crate::index_sink;

/// What saving an edit came to.
#[derive(Debug)]
pub struct EditSaved {
    /// What a writer killed earlier left, repaired before the edit.
    pub recovered: Recovered,
    /// The record's new revision, or why the edit was not saved.
    pub saved: Result<u64, EditError>,
    /// The paths changed (for the index and a commit) and `MEMORY.md`.
    pub committed: Committed,
}

/// The edited copy of record `id` as the text to save, or its problems:
/// not UTF-8, or not a whole record that keeps what `original` must keep
/// (`mdstore::edit::validate`; checked again under the lock by [`save`]).
pub fn validate(id: &str, original: &[u8], edited: Vec<u8>) -> Result<String, Vec<Problem>> {
    let text = String::from_utf8(edited)
        .map_err(|e| vec![Problem::error(None, format!("not valid UTF-8: {e}"))])?;
    let problems = mdstore::edit::validate(id, &String::from_utf8_lossy(original), &text);
    if problems.is_empty() {
        Ok(text)
    } else {
        Err(problems)
    }
}

/// Saves `edited` over the record at `rel_path` of `store` if the file is
/// still `original`, under the store's lock (waiting at most
/// `lock_timeout`); the index is told, `MEMORY.md` regenerated.
pub fn save(
    config: &Config,
    store: &Store,
    rel_path: &Path,
    original: &[u8],
    edited: &str,
    lock_timeout: Duration,
) -> Result<EditSaved, LockError> {
    let now = mdstore::clock::now();
    let mut txn = index_sink::begin(config, store, lock_timeout)?;
    let recovered = txn.recovered().clone();
    let saved = txn.save_edit(rel_path, original, edited, now);
    let committed = txn.commit(&mut index_sink::IndexSink::new(config, store));
    Ok(EditSaved {
        recovered,
        saved,
        committed,
    })
}
