//! Writing what a plan decided, and forgetting. The caller holds the store's
//! write lock (see [`crate::txn::Transaction`], which also removes leftover
//! temporary files before its first write and regenerates `MEMORY.md` once
//! all changes are made).

use std::fs;
use std::io;

use jiff::Timestamp;

use crate::atomic;
use crate::frontmatter;
use crate::guard::secrets::{self, SecretFinding};
use crate::hash::content_hash;
use crate::id;
use crate::store::{SkipReason, Skipped, Store, Summary};
use crate::tombstone::{self, Tombstone};
use crate::view::StoreView;

use super::Plan;

/// Writes the record a plan renders and forgets any tombstone a forced
/// re-add overrides, keeping `view` in step. Plans that write nothing are a
/// no-op. Returns whether a file was written.
pub fn apply(store: &Store, view: &mut StoreView, plan: &Plan) -> io::Result<bool> {
    let Some(text) = &plan.new_text else {
        return Ok(false);
    };
    atomic::write_file(&store.root().join(&plan.rel_path), text.as_bytes())?;
    let key = id::id_key(&plan.id);
    for overridden in view.tombstones.iter().filter(|t| id::id_key(&t.id) == key) {
        for path in tombstone::possible_paths(store.root(), overridden) {
            atomic::remove_file(&path)?;
        }
    }
    view.tombstones.retain(|t| id::id_key(&t.id) != key);
    // From the text just written, not read back: the write is done, and
    // nothing after it may fail for a reason that was not checked before.
    view.upsert(Summary {
        id: plan.id.clone(),
        rel_path: plan.rel_path.clone(),
        meta: frontmatter::parse(text).meta,
    });
    Ok(true)
}

/// Removes a record, leaving a tombstone, keeping `view` in step.
pub fn forget(
    store: &Store,
    view: &mut StoreView,
    id: &str,
    reason: Option<String>,
    now: Timestamp,
) -> Result<Tombstone, ForgetError> {
    if let Some(reason) = &reason {
        let found = secrets::find_secrets(reason);
        if !found.is_empty() {
            return Err(ForgetError::SecretInReason(found));
        }
    }
    let summary = view
        .find(id)
        .ok_or_else(|| ForgetError::NotFound(id.to_string()))?;
    let rel_path = summary.rel_path.clone();
    let record_id = summary.id.clone();
    let tomb = Tombstone {
        id: record_id.clone(),
        forgotten_at: now,
        reason,
        content_hash: forgotten_hash(store, &rel_path)?,
    };
    // The tombstone is written aside, the record removed, then the
    // tombstone put in place: at every instant the record is there without
    // a tombstone, or gone with one (pending until the rename, which the
    // next write finishes after a crash: `crate::recover`). Never both, so
    // no reader serves a forgotten record, and never gone without one.
    let pending = tombstone::write_pending(store.root(), &tomb).map_err(ForgetError::Io)?;
    if let Err(e) = atomic::remove_file(&store.root().join(&rel_path)) {
        let _ = tombstone::abandon(&pending);
        return Err(ForgetError::Io(e));
    }
    view.remove(&record_id);
    tombstone::finish(&pending).map_err(ForgetError::Io)?;
    view.tombstones.push(tomb.clone());
    Ok(tomb)
}

/// The fingerprint a tombstone keeps of the record it replaces.
fn forgotten_hash(store: &Store, rel_path: &std::path::Path) -> Result<String, ForgetError> {
    match store.read_record(rel_path) {
        Ok(record) => Ok(content_hash(
            record.meta.description.as_deref().unwrap_or(""),
            &record.body,
        )),
        // A file whose header read but whose body is not text can still be
        // forgotten: its tombstone remembers a hash of what bytes it had.
        Err(Skipped {
            reason: SkipReason::NotUtf8(_) | SkipReason::NulByte(_),
            ..
        }) => {
            let bytes = store
                .read_inside(&store.root().join(rel_path))
                .map_err(ForgetError::Io)?;
            Ok(content_hash("", &String::from_utf8_lossy(&bytes)))
        }
        Err(skipped) => Err(ForgetError::Unreadable(skipped)),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ForgetError {
    #[error("no record {0:?} in this store")]
    NotFound(String),
    #[error("the reason looks like it holds a secret ({}); it would be kept in the tombstone", rules(.0))]
    SecretInReason(Vec<SecretFinding>),
    #[error("{}: {}", .0.rel_path.display(), .0.reason)]
    Unreadable(Skipped),
    #[error(transparent)]
    Io(io::Error),
}

fn rules(found: &[SecretFinding]) -> String {
    found
        .iter()
        .map(|f| format!("rule {}", f.rule))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Removes temporary files that a crashed writer left. Only called under the
/// write lock, when no other writer can own one.
pub fn clean_temp_files(store: &Store) {
    let dirs = walkdir::WalkDir::new(store.root())
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with(".git"))
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_type().is_file() && atomic::is_temp_name(&e.file_name().to_string_lossy())
        });
    for entry in dirs {
        // Best effort: a leftover that cannot be removed is still ignored by readers.
        let _ = fs::remove_file(entry.path());
    }
}
