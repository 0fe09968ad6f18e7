//! What a writer killed half-way leaves, finished or undone by the next
//! one (SPEC §6: every state a crash can leave is one the next command
//! repairs). Called under the store's write lock, before the view a write
//! plans from is loaded, by every [`crate::txn::Transaction`].
//!
//! - **A change of many files** (a dream) writes its snapshot as a journal
//!   first and removes it when whole: a journal left behind is put back,
//!   file for file, so the change is undone whole.
//! - **A forget** writes its tombstone aside, removes the record, then puts
//!   the tombstone in place: a pending tombstone whose record is still
//!   there is dropped (the forget never took effect), one whose record is
//!   gone is put in place (it did).
//! - **A forget by memctl before this order** wrote the tombstone in place,
//!   then removed the record: a record beside a tombstone of its own id and
//!   its very content, not touched since the tombstone was written, is that
//!   forget killed half-way, and is removed now. A record changed since (a
//!   merge kept an edit, git or a person brought it back) stays, and
//!   `check` says which of the two it is.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::hash::content_hash;
use crate::id::id_key;
use crate::store::Store;
use crate::tombstone::{self, Pending, Tombstone};
use crate::txn::snapshot::{self, JOURNAL_FILE, Snapshot};
use crate::view::StoreView;
use crate::{atomic, escape};

/// What recovery did, for the person to be told and the index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Record paths (relative to the store) it changed.
    pub changed: Vec<PathBuf>,
    /// One line each: what was found and what was done.
    pub notes: Vec<String>,
}

impl Recovered {
    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }
}

/// Whether the store holds something a killed writer left that
/// [`before_view`] or [`with_view`] would act on: a journal or a pending
/// tombstone (a stat and one listing of `.tombstones/`). A reading command
/// asks this before it takes the lock to repair.
pub fn interrupted(root: &Path) -> bool {
    fs::symlink_metadata(root.join(JOURNAL_FILE)).is_ok() || !tombstone::pending(root).is_empty()
}

/// Undoes a change of many files a killed writer left half-applied, from
/// its journal. Under the store's lock, before the view is loaded.
pub fn before_view(store: &Store) -> io::Result<Recovered> {
    let mut recovered = Recovered::default();
    let path = store.root().join(JOURNAL_FILE);
    let Some(bytes) = snapshot::read_journal(&path).map_err(|e| named(&path, e))? else {
        return Ok(recovered);
    };
    let snapshot = Snapshot::from_journal(store.root(), &bytes).map_err(|e| named(&path, e))?;
    snapshot
        .put_back(store)
        .map_err(|(rel_path, e)| named(&store.root().join(rel_path), e))?;
    atomic::remove_file(&path)?;
    recovered.changed.extend(
        snapshot
            .rel_paths()
            .filter(|p| store.record_rel_path(&store.root().join(p)).is_some())
            .map(Path::to_path_buf),
    );
    recovered.notes.push(format!(
        "a dream (or another change of several files) was interrupted half-way; every file it touched ({}) was put back as it was before it began",
        snapshot.rel_paths().count()
    ));
    Ok(recovered)
}

/// Finishes or undoes forgets a killed writer left, keeping `view` in step.
/// Under the store's lock, once the view is loaded.
pub fn with_view(store: &Store, view: &mut StoreView) -> io::Result<Recovered> {
    let mut recovered = Recovered::default();
    for pending in tombstone::pending(store.root()) {
        settle(view, &pending, &mut recovered)?;
    }
    finish_old_forgets(store, view, &mut recovered)?;
    Ok(recovered)
}

/// A pending tombstone: put in place if its record is gone, else dropped.
fn settle(view: &mut StoreView, pending: &Pending, recovered: &mut Recovered) -> io::Result<()> {
    let tomb = match pending.read() {
        Ok(tomb) => tomb,
        // Not one memctl wrote whole (a pending file is written atomically):
        // not a tombstone, so it refuses nothing; dropped.
        Err(_) => return tombstone::abandon(pending),
    };
    let id = escape::for_message(&tomb.id, 80);
    if view.find(&tomb.id).is_some() {
        tombstone::abandon(pending)?;
        recovered.notes.push(format!(
            "a forget of \"{id}\" was interrupted before it removed the record; the record stays, not forgotten"
        ));
    } else {
        tombstone::finish(pending)?;
        view.tombstones.push(tomb);
        recovered.notes.push(format!(
            "a forget of \"{id}\" was interrupted after it removed the record; its tombstone was put in place"
        ));
    }
    Ok(())
}

/// What a tombstone says of the record beside it (same id key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beside {
    /// Its very content, and the record not touched since the tombstone was
    /// written: a forget killed between the two (memctl before this order).
    Unfinished,
    /// Its very content, but the file is newer than the tombstone: brought
    /// back (a checkout, a copy) after the forget.
    BroughtBack,
    /// Other content: an edit a merge kept.
    Edited,
}

/// How the record at `rel_path` stands to `tomb`, a tombstone of its id.
pub fn beside(store: &Store, rel_path: &Path, tomb: &Tombstone) -> Beside {
    let same = store.read_record(rel_path).ok().is_some_and(|record| {
        content_hash(
            record.meta.description.as_deref().unwrap_or(""),
            &record.body,
        )
        .eq_ignore_ascii_case(&tomb.content_hash)
    });
    if !same {
        return Beside::Edited;
    }
    let record_time = fs::symlink_metadata(store.root().join(rel_path)).and_then(|m| m.modified());
    let tomb_time = tombstone::possible_paths(store.root(), tomb)
        .iter()
        .filter_map(|p| {
            tombstone::read_at(p)
                .filter(|t| t == tomb)
                .map(|_| p.clone())
        })
        .find_map(|p| fs::symlink_metadata(p).and_then(|m| m.modified()).ok());
    match (record_time, tomb_time) {
        (Ok(record), Some(tomb)) if record < tomb => Beside::Unfinished,
        _ => Beside::BroughtBack,
    }
}

/// Whether a record stands beside a tombstone of its own that a killed
/// forget left ([`Beside::Unfinished`]), looked for without a walk of the
/// store: each tombstone's record at the path of its id. For a reading
/// command, which asks only when `.tombstones/` changed since it last did.
pub fn unfinished_forget(store: &Store) -> bool {
    let (tombstones, _) = tombstone::load_all(store.root());
    tombstones.iter().any(|tomb| {
        crate::id::record_path(store.root(), &tomb.id)
            .ok()
            .and_then(|path| path.strip_prefix(store.root()).ok().map(Path::to_path_buf))
            .is_some_and(|rel| {
                store.root().join(&rel).is_file() && beside(store, &rel, tomb) == Beside::Unfinished
            })
    })
}

fn finish_old_forgets(
    store: &Store,
    view: &mut StoreView,
    recovered: &mut Recovered,
) -> io::Result<()> {
    if view.tombstones.is_empty() {
        return Ok(());
    }
    let mut unfinished = Vec::new();
    for summary in &view.summaries {
        let key = id_key(&summary.id);
        for tomb in view.tombstones.iter().filter(|t| id_key(&t.id) == key) {
            if beside(store, &summary.rel_path, tomb) == Beside::Unfinished {
                unfinished.push((summary.id.clone(), summary.rel_path.clone()));
                break;
            }
        }
    }
    for (id, rel_path) in unfinished {
        atomic::remove_file(&store.root().join(&rel_path))?;
        view.remove(&id);
        recovered.changed.push(rel_path);
        recovered.notes.push(format!(
            "\"{}\" was forgotten but its file was still there, unchanged since: a forget was interrupted between its tombstone and the removal; the forget was finished",
            escape::for_message(&id, 80)
        ));
    }
    Ok(())
}

fn named(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests;
