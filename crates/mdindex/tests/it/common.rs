//! A store in a temp folder, records made of distinct words, and searches.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use mdindex::{CheckReport, Index, SearchOutcome, Started, WatchNote, Watcher, query};
use mdstore::Store;
use memctl_testkit::RecordFile;
use tempfile::TempDir;

use crate::child::ChildWatcher;

pub struct Env {
    _dir: TempDir,
    pub store: Store,
    pub cache: PathBuf,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(&dir.path().join("store")).unwrap();
        let cache = dir.path().join("cache");
        Env {
            _dir: dir,
            store,
            cache,
        }
    }

    pub fn root(&self) -> &Path {
        self.store.root()
    }

    pub fn path(&self, id: &str) -> PathBuf {
        self.root().join(format!("{id}.md"))
    }

    /// Writes a record whose description and body hold `words`.
    pub fn write(&self, id: &str, words: &str) {
        let path = self.path(id);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(path, record_text(id, words)).unwrap();
    }

    /// Searches for `words`, syncing first; panics on any error.
    pub fn search(&self, words: &str) -> SearchOutcome {
        mdindex::search_store(
            &self.store,
            &self.cache,
            &query::parse(words).unwrap(),
            1000,
            &[],
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("search {words:?}: {e}"))
    }

    /// The ids found for `words`, sorted.
    pub fn ids(&self, words: &str) -> Vec<String> {
        ids_of(&self.search(words))
    }

    /// The index compared with the files, without changing either.
    pub fn check(&self) -> CheckReport {
        let index = Index::open_existing(&self.store, &self.cache).unwrap();
        index.check().unwrap()
    }

    pub fn start_watcher(&self) -> Watcher {
        let Started { watcher, .. } =
            Watcher::start(&self.store, &self.cache, |note: WatchNote| {
                if let WatchNote::Problem(problem) = note {
                    eprintln!("watcher: {problem}");
                }
            })
            .unwrap();
        watcher
    }

    pub fn index_path(&self) -> PathBuf {
        mdindex::IndexPaths::new(&self.cache, &self.store).db
    }
}

pub fn record_text(id: &str, words: &str) -> String {
    RecordFile::new(id)
        .description(&format!("A note about {words}"))
        .body(&format!("The body mentions {words}.\n"))
        .verbatim()
        .text()
}

pub fn ids_of(outcome: &SearchOutcome) -> Vec<String> {
    let mut ids: Vec<String> = outcome.hits.iter().map(|h| h.id.clone()).collect();
    ids.sort();
    ids
}

/// Rewrites a file in place (same inode), as `echo > file` does.
pub fn overwrite_in_place(path: &Path, text: &str) {
    let mut file = OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

pub fn set_mtime(path: &Path, time: SystemTime) {
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

/// Who keeps the index fresh in a scenario.
#[derive(Clone, Copy, Debug)]
pub enum Keeper {
    /// Nobody: each search compares the store first.
    Nobody,
    /// A watcher running on a thread of this process.
    WatcherThread,
    /// A watcher running in another process.
    WatcherProcess,
}

/// The running watcher of a scenario, if any, stopped when dropped.
pub struct RunningWatcher {
    _thread: Option<Watcher>,
    _process: Option<ChildWatcher>,
}

impl Keeper {
    pub fn start(self, env: &Env) -> RunningWatcher {
        let (thread, process) = match self {
            Keeper::Nobody => (None, None),
            Keeper::WatcherThread => (Some(env.start_watcher()), None),
            Keeper::WatcherProcess => (None, Some(ChildWatcher::start(env))),
        };
        RunningWatcher {
            _thread: thread,
            _process: process,
        }
    }
}

/// Asserts that the search was kept fresh the way the scenario intends: by
/// the watcher's marks alone when one runs (or, when `rescan_allowed`, by
/// the compare a watcher asks for after folders changed), by a compare when
/// none does, and never by falling back after a silent watcher.
pub fn assert_kept_by(keeper: Keeper, outcome: &SearchOutcome, rescan_allowed: bool) {
    use mdindex::{CompareReason, SyncMode};
    assert_eq!(outcome.sync.notice(), None, "{:?}", outcome.sync);
    let expected_mode = match (keeper, &outcome.sync.mode) {
        (Keeper::Nobody, SyncMode::Compared(CompareReason::NoWatcher)) => true,
        (Keeper::WatcherThread | Keeper::WatcherProcess, SyncMode::Dirty { .. }) => true,
        (
            Keeper::WatcherThread | Keeper::WatcherProcess,
            SyncMode::Compared(CompareReason::WatcherRescan),
        ) => rescan_allowed,
        _ => false,
    };
    assert!(expected_mode, "{keeper:?}: {:?}", outcome.sync);
}
