//! The one way to change a store (SPEC §6), as jj-lib's repo transaction: it
//! holds the store's write lock from [`Transaction::begin`] to
//! [`Transaction::commit`], plans every change again against the store as it
//! is under the lock, writes records, tombstones and hand edits atomically,
//! then regenerates `MEMORY.md` once and tells a [`ChangeSink`] (the search
//! index) which paths changed. Nothing here asks a person anything, so the
//! CLI, `dream` and an MCP server can all write through it.
//!
//! ```
//! use std::time::Duration;
//! use mdstore::txn::{Outcome, Transaction};
//! use mdstore::view::StoreView;
//! use mdstore::write::{Candidate, WriteOptions};
//! use mdstore::{RecordType, Source, Store};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let store = Store::create(dir.path()).unwrap();
//! let options = WriteOptions {
//!     force: false,
//!     expect_revision: None,
//!     refuse_temporary: true,
//!     default_source: Source::Inferred,
//!     now: jiff::Timestamp::now(),
//! };
//! let candidate = Candidate {
//!     name: "prefer-pytest".into(),
//!     record_type: Some(RecordType::Feedback),
//!     description: Some("Tests use pytest".into()),
//!     body: Some("New tests use pytest.".into()),
//!     ..Candidate::default()
//! };
//! let mut txn = Transaction::begin(&store, Duration::from_secs(10), StoreView::load).unwrap();
//! let step = txn.write(&candidate, &options, None).unwrap();
//! assert_eq!(step.outcome, Outcome::Saved { revision: 1 });
//! let committed = txn.commit(&mut ()); // no index to tell
//! assert!(committed.catalog.unwrap().is_some());
//! assert!(dir.path().join("prefer-pytest.md").is_file());
//! ```

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use jiff::Timestamp;

use crate::catalog::{self, Catalog};
use crate::edit;
use crate::frontmatter;
use crate::lock::{LockError, StoreLock};
use crate::record::Problem;
use crate::recover::{self, Recovered};
use crate::store::{CATALOG_FILE, Store, Summary, id_from_rel_path};
use crate::tombstone::Tombstone;
use crate::view::StoreView;
use crate::write::{
    self, Candidate, ForgetError, MergedFrom, Operation, Plan, PlanError, Refusal, WriteOptions,
};

/// Told, at commit, which record paths (relative to the store) a transaction
/// changed, so that a derived index never lags the store's own writes.
pub trait ChangeSink {
    fn changed(&mut self, rel_paths: &[PathBuf]);
}

/// For writers with no index to keep in step.
impl ChangeSink for () {
    fn changed(&mut self, _rel_paths: &[PathBuf]) {}
}

/// What became of one candidate under the lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Saved {
        revision: u64,
    },
    /// The same content is already stored as `existing`.
    Noop {
        existing: String,
    },
    Refused(Refusal),
    /// The plan made under the lock is not the plan that was shown and
    /// confirmed (another writer got there first): nothing was written.
    Conflict,
}

/// A candidate's plan as made under the lock, and its outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub plan: Plan,
    pub outcome: Outcome,
}

/// A candidate that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error("cannot write {}: {source}", .rel_path.display())]
    Io {
        rel_path: PathBuf,
        source: io::Error,
    },
}

/// Why a hand edit was not saved.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("the edit of {} is invalid", .0.display())]
    Invalid(PathBuf, Vec<Problem>),
    #[error("{} changed on disk since the edit began", .0.display())]
    Changed(PathBuf),
    #[error("cannot write {}: {source}", .rel_path.display())]
    Io {
        rel_path: PathBuf,
        source: io::Error,
    },
}

/// What a commit did: the changed paths, and `MEMORY.md`'s regeneration,
/// which can fail after the records were saved (the next commit retries).
#[derive(Debug)]
pub struct Committed {
    pub changed: Vec<PathBuf>,
    /// `Ok(None)` when nothing asked for `MEMORY.md` to be regenerated.
    pub catalog: io::Result<Option<Catalog>>,
}

/// A store's write lock, with the view of the store taken under it. Each
/// record write is whole on its own; one dropped without
/// [`Transaction::commit`] leaves `MEMORY.md` and the index behind until the
/// next commit or search, which catch up.
#[derive(Debug)]
pub struct Transaction<'s> {
    store: &'s Store,
    view: StoreView,
    changed: Vec<PathBuf>,
    /// A NOOP writes no record but still repairs a stale `MEMORY.md`.
    refresh_catalog: bool,
    /// `MEMORY.md` as [`Transaction::write_catalog`] or
    /// [`Transaction::restore`] left it, current until the next change: a
    /// commit does not write it again.
    settled_catalog: Option<Option<Catalog>>,
    /// Leftover temporary files are removed before the first write only:
    /// that walks the whole store, and a dream writes many files.
    temp_files_cleaned: bool,
    /// What a killed writer had left, finished or undone under the lock.
    recovered: Recovered,
    _lock: StoreLock,
}

impl<'s> Transaction<'s> {
    /// Takes the store's write lock (waiting up to `timeout`), then the view
    /// every plan is made from. `load_view` lets a caller supply a cheaper
    /// one than [`StoreView::load`] (a synced index's headers); it runs under
    /// the lock, so no writer can change the store meanwhile.
    pub fn begin(
        store: &'s Store,
        timeout: Duration,
        load_view: impl FnOnce(&Store) -> StoreView,
    ) -> Result<Transaction<'s>, LockError> {
        let lock = StoreLock::acquire(store.root(), timeout)?;
        let interrupted = |source| LockError::Interrupted {
            root: store.root().to_path_buf(),
            source,
        };
        // What a writer killed half-way left is finished or undone first,
        // so that every plan is made from a whole store (`crate::recover`).
        let mut recovered = recover::before_view(store).map_err(interrupted)?;
        let mut view = load_view(store);
        let more = recover::with_view(store, &mut view).map_err(interrupted)?;
        recovered.changed.extend(more.changed);
        recovered.notes.extend(more.notes);
        Ok(Transaction {
            store,
            view,
            refresh_catalog: !recovered.is_empty(),
            changed: recovered.changed.clone(),
            settled_catalog: None,
            temp_files_cleaned: false,
            recovered,
            _lock: lock,
        })
    }

    /// What a killed writer had left and this transaction finished or
    /// undone when it began (empty almost always): for the person to be told.
    pub fn recovered(&self) -> &Recovered {
        &self.recovered
    }

    pub fn store(&self) -> &Store {
        self.store
    }

    /// The store as this transaction sees it, its own changes included.
    pub fn view(&self) -> &StoreView {
        &self.view
    }

    /// Asks [`Transaction::commit`] to regenerate `MEMORY.md` though nothing
    /// was written: after a merge, checkout or pull changed the records
    /// under it, the next command brings it up to date under the lock.
    pub fn refresh_catalog(&mut self) {
        self.refresh_catalog = true;
    }

    /// Classifies `candidate` against the store as it is now. A NOOP asks
    /// for `MEMORY.md` to be checked at commit: a re-run is how a person
    /// repairs one that an earlier write could not update.
    pub fn plan(
        &mut self,
        candidate: &Candidate,
        options: &WriteOptions,
    ) -> Result<Plan, PlanError> {
        let plan = write::plan(self.store, &self.view, candidate, options)?;
        if matches!(plan.operation, Operation::Noop { .. }) {
            self.refresh_catalog = true;
        }
        Ok(plan)
    }

    /// Plans `candidate` again and writes it. With `shown` (a plan a person
    /// confirmed, made without the lock), it is written only if the new plan
    /// is the same one; a refusal or NOOP found now is reported as such.
    pub fn write(
        &mut self,
        candidate: &Candidate,
        options: &WriteOptions,
        shown: Option<&Plan>,
    ) -> Result<Step, WriteError> {
        self.write_merged(candidate, &MergedFrom::default(), options, shown)
    }

    /// [`Transaction::write`] for a record that consolidates `sources`
    /// (dream): written with their ids as `merged_from` and their earliest
    /// `created`; a source holding the same text does not make it a NOOP.
    pub fn write_merged(
        &mut self,
        candidate: &Candidate,
        sources: &MergedFrom,
        options: &WriteOptions,
        shown: Option<&Plan>,
    ) -> Result<Step, WriteError> {
        let plan = write::plan_merged(self.store, &self.view, candidate, options, sources)?;
        if matches!(plan.operation, Operation::Noop { .. }) {
            self.refresh_catalog = true;
        }
        let outcome = match &plan.operation {
            Operation::Refused(refusal) => Outcome::Refused(refusal.clone()),
            Operation::Noop { existing } => Outcome::Noop {
                existing: existing.clone(),
            },
            _ if shown
                .is_some_and(|s| s.operation != plan.operation || s.new_text != plan.new_text) =>
            {
                Outcome::Conflict
            }
            Operation::Update { from_revision } => {
                self.apply(&plan)?;
                Outcome::Saved {
                    revision: from_revision.saturating_add(1),
                }
            }
            Operation::Add => {
                self.apply(&plan)?;
                Outcome::Saved { revision: 1 }
            }
        };
        Ok(Step { plan, outcome })
    }

    /// A `MEMORY.md` that cannot be read (a symlink, a pipe, a folder, too
    /// large) cannot be kept for its owner, so it may not be replaced: found
    /// before the first byte of a write, not after the record is saved.
    fn check_catalog_replaceable(&self) -> io::Result<()> {
        catalog::disk::read_bounded(&self.store.catalog_path()).map(drop)
    }

    fn apply(&mut self, plan: &Plan) -> Result<(), WriteError> {
        self.check_catalog_replaceable()
            .map_err(|source| WriteError::Io {
                rel_path: PathBuf::from(CATALOG_FILE),
                source,
            })?;
        self.clean_temp_files_once();
        write::apply(self.store, &mut self.view, plan).map_err(|source| WriteError::Io {
            rel_path: plan.rel_path.clone(),
            source,
        })?;
        self.touched(plan.rel_path.clone());
        Ok(())
    }

    /// Forgets record `id`: a tombstone (whose reason may hold no secret),
    /// then the file is removed.
    pub fn forget(
        &mut self,
        id: &str,
        reason: Option<String>,
        now: Timestamp,
    ) -> Result<Tombstone, ForgetError> {
        self.check_catalog_replaceable().map_err(ForgetError::Io)?;
        let rel_path = self.view.find(id).map(|s| s.rel_path.clone());
        self.clean_temp_files_once();
        let tomb = write::forget(self.store, &mut self.view, id, reason, now)?;
        if let Some(rel_path) = rel_path {
            self.touched(rel_path);
        }
        Ok(tomb)
    }

    /// Saves a record edited by hand, if it is valid (secrets included) and
    /// the file on disk is still `started_from`, the bytes the editor began
    /// with (compare-and-swap). `updated` and `revision` are set here; the
    /// new revision is returned.
    pub fn save_edit(
        &mut self,
        rel_path: &Path,
        started_from: &[u8],
        edited: &str,
        now: Timestamp,
    ) -> Result<u64, EditError> {
        let problems = edit::validate(
            &id_from_rel_path(rel_path),
            &String::from_utf8_lossy(started_from),
            edited,
        );
        if !problems.is_empty() {
            return Err(EditError::Invalid(rel_path.to_path_buf(), problems));
        }
        let path = self.store.root().join(rel_path);
        if self.store.read_inside(&path).ok().as_deref() != Some(started_from) {
            return Err(EditError::Changed(rel_path.to_path_buf()));
        }
        let old_revision = frontmatter::parse(&String::from_utf8_lossy(started_from))
            .meta
            .revision
            .unwrap_or(1);
        let text = edit::finish(edited, old_revision, now);
        self.check_catalog_replaceable()
            .map_err(|source| EditError::Io {
                rel_path: PathBuf::from(CATALOG_FILE),
                source,
            })?;
        self.clean_temp_files_once();
        crate::atomic::write_file(&path, text.as_bytes()).map_err(|source| EditError::Io {
            rel_path: rel_path.to_path_buf(),
            source,
        })?;
        let meta = frontmatter::parse(&text).meta;
        let revision = meta.revision.unwrap_or(old_revision + 1);
        self.view.upsert(Summary {
            id: id_from_rel_path(rel_path),
            rel_path: rel_path.to_path_buf(),
            meta,
        });
        self.touched(rel_path.to_path_buf());
        Ok(revision)
    }

    fn clean_temp_files_once(&mut self) {
        if !self.temp_files_cleaned {
            write::clean_temp_files(self.store);
            self.temp_files_cleaned = true;
        }
    }

    fn touched(&mut self, rel_path: PathBuf) {
        self.changed.push(rel_path);
        self.settled_catalog = None;
    }

    /// Regenerates `MEMORY.md` now, still under the lock, so that a caller
    /// can undo everything if it cannot be written; a commit with no change
    /// since then does not write it again.
    pub fn write_catalog(&mut self) -> io::Result<Catalog> {
        let catalog = catalog::write(self.store, &self.view.summaries)?;
        self.settled_catalog = Some(Some(catalog.clone()));
        Ok(catalog)
    }

    /// Regenerates `MEMORY.md` once for everything this transaction did (or
    /// repairs it after a NOOP), tells `sink` what changed, and releases
    /// the lock. A failure to write `MEMORY.md` does not undo saved records.
    pub fn commit(self, sink: &mut dyn ChangeSink) -> Committed {
        let catalog = if let Some(settled) = self.settled_catalog {
            Ok(settled)
        } else if self.changed.is_empty() && !self.refresh_catalog {
            Ok(None)
        } else {
            catalog::write(self.store, &self.view.summaries).map(Some)
        };
        if !self.changed.is_empty() {
            sink.changed(&self.changed);
        }
        Committed {
            changed: self.changed,
            catalog,
        }
    }
}

pub(crate) mod snapshot;
#[cfg(test)]
mod tests;

pub use snapshot::{JOURNAL_FILE, Snapshot};
