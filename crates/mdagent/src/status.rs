//! What `memctl status` reports, as facts a face words: the stores (or why
//! one is not there), each store's records, its `MEMORY.md` against what
//! memctl would generate now (SPEC §3), its index and its watcher. Nothing
//! here writes, builds an index or fails for a store it cannot read: saying
//! so is what status is for.

use std::io;
use std::path::PathBuf;

use mdindex::{Index, IndexStatus};
use mdstore::catalog::{self, Catalog, disk};
use mdstore::view::StoreView;
use mdstore::{Scope, Store};

use crate::Config;
use crate::stores::{self, StoreError};

/// One store's place: there, or why not.
pub enum Place {
    /// A store: what is in it.
    Store(Box<StoreStatus>),
    /// No store where one would be; `dir` is where (none for a workspace
    /// store with no `.memory/` found).
    Absent {
        scope: Scope,
        dir: Option<PathBuf>,
        why: Absence,
    },
}

/// Why a store is not there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Absence {
    /// The folder named for it is a file.
    NotAFolder,
    /// The workspace store named does not exist.
    Missing,
    /// No workspace store above the current folder.
    NoWorkspace,
    /// The global store is made by the first write to it.
    NotCreated,
}

impl Absence {
    /// The word `status --json` gives it.
    pub fn state(self) -> &'static str {
        match self {
            Absence::NotAFolder => "not a folder",
            Absence::Missing => "missing",
            Absence::NoWorkspace => "none",
            Absence::NotCreated => "not created",
        }
    }
}

/// One store as it is now.
pub struct StoreStatus {
    pub scope: Scope,
    pub root: PathBuf,
    pub records: usize,
    /// Files that are not records memctl can read (`memctl check` says why).
    pub skipped: usize,
    /// `MEMORY.md` on disk, or why it cannot be read.
    pub catalog: io::Result<disk::OnDisk>,
    /// What memctl would generate now (its budget and what it leaves out).
    pub expected: Catalog,
    pub index: IndexState,
}

/// A store's index, as far as it can be looked at without building it.
pub enum IndexState {
    /// Not built, or not of this version: the next search builds it.
    NotYet {
        cause: String,
    },
    /// It cannot be opened.
    Unopened(mdindex::Error),
    /// Opened, but its state cannot be read.
    Unread(mdindex::Error),
    Open(IndexStatus),
}

/// The workspace store's place (unless `--global`), then the global store's.
pub fn places(config: &Config) -> Result<Vec<Place>, StoreError> {
    let mut places = Vec::new();
    let absent = |scope, dir, why| Place::Absent { scope, dir, why };
    if !config.global {
        let scope = Scope::Workspace;
        places.push(match stores::workspace_dir(config)? {
            Some(dir) if dir.is_dir() => open(config, scope, dir)?,
            Some(dir) if dir.exists() => absent(scope, Some(dir), Absence::NotAFolder),
            Some(dir) => absent(scope, Some(dir), Absence::Missing),
            None => absent(scope, None, Absence::NoWorkspace),
        });
    }
    let dir = stores::global_dir(config)?;
    places.push(if dir.is_dir() {
        open(config, Scope::Global, dir)?
    } else {
        absent(Scope::Global, Some(dir), Absence::NotCreated)
    });
    Ok(places)
}

fn open(config: &Config, scope: Scope, dir: PathBuf) -> Result<Place, StoreError> {
    let store = Store::open(&dir).map_err(|source| StoreError::Open { dir, source })?;
    let view = StoreView::load(&store);
    let expected = catalog::render(&view.summaries, catalog::Budget::default());
    Ok(Place::Store(Box::new(StoreStatus {
        scope,
        root: store.root().to_path_buf(),
        records: view.summaries.len(),
        skipped: view.skipped.len(),
        catalog: disk::inspect(&store, &expected),
        expected,
        index: index_state(config, &store),
    })))
}

fn index_state(config: &Config, store: &Store) -> IndexState {
    match Index::open_existing(store, config.cache_dir()) {
        Ok(index) => match index.status() {
            Ok(status) => IndexState::Open(status),
            Err(e) => IndexState::Unread(e),
        },
        Err(mdindex::Error::Unusable { cause, .. }) => IndexState::NotYet {
            cause: cause.to_string(),
        },
        Err(e) => IndexState::Unopened(e),
    }
}
