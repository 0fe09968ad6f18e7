/*!
`mdindex` keeps the derived SQLite FTS5 index of an mdstore store: it builds
and syncs it, watches the store for changes, parses the query language and
ranks results. The index is never the truth: it can be deleted at any time.

```
use mdindex::{Index, query};
let dir = tempfile::tempdir().unwrap();
let store = mdstore::Store::create(&dir.path().join("store")).unwrap();
std::fs::write(
    store.root().join("prefer-pytest.md"),
    "---\nname: prefer-pytest\ndescription: Tests use pytest\ntype: feedback\n---\nUse pytest.\n",
).unwrap();
let cache = dir.path().join("cache");
let outcome = mdindex::search_store(&store, &cache, &query::parse("pytest"), 10, &[], &mut |_| {}).unwrap();
assert!(outcome.rebuilt.is_some()); // the first use builds the index
```
*/
#![forbid(unsafe_code)]

mod check;
mod db;
mod error;
pub mod eval;
mod liveness;
mod location;
pub mod query;
mod rebuild;
mod rows;
mod search;
pub mod snippet;
mod status;
mod stopwords;
mod sync;
pub mod text;
mod watch;

use std::fs;
use std::path::Path;

use mdstore::{RecordType, Store};
use rusqlite::Connection;

pub use check::{CheckReport, Difference};
pub use db::{RebuildCause, SCHEMA_VERSION};
pub use error::{Error, Result};
pub use liveness::WatcherState;
pub use location::{IndexPaths, cache_dir_from_env};
pub use rebuild::{Progress, RebuildReport};
pub use search::Hit;
pub use status::IndexStatus;
pub use sync::{CompareReason, SyncMode, SyncReport};
pub use watch::{Started, WatchNote, Watcher};

use liveness::HeldLock;
use query::Query;

/// The index of one store, open.
#[derive(Debug)]
pub struct Index {
    store: Store,
    paths: IndexPaths,
    conn: Connection,
}

/// An index just opened, and the rebuild that opening needed, if any.
#[derive(Debug)]
pub struct Opened {
    pub index: Index,
    /// Present when the index had to be (re)built; print
    /// `index rebuilt: {cause}` on stderr.
    pub rebuilt: Option<RebuildReport>,
}

/// The result of [`search_store`].
#[derive(Debug)]
pub struct SearchOutcome {
    pub hits: Vec<Hit>,
    /// Present when the index had to be rebuilt first.
    pub rebuilt: Option<RebuildReport>,
    /// How the index was brought up to date with the files first.
    pub sync: SyncReport,
}

/// Opens the index of `store` (building it if missing, damaged or out of
/// date), brings it up to date with the files as they are now, and runs
/// `query`. Damage found mid-way rebuilds the index and runs it again.
/// `progress` is called only while a rebuild reads records.
pub fn search_store(
    store: &Store,
    cache_dir: &Path,
    query: &Query,
    limit: usize,
    types: &[RecordType],
    progress: &mut dyn FnMut(Progress),
) -> Result<SearchOutcome> {
    let Opened {
        mut index,
        mut rebuilt,
    } = Index::open(store, cache_dir, progress)?;
    let attempt = |index: &mut Index| -> Result<(SyncReport, Vec<Hit>)> {
        let sync = index.sync()?;
        let hits = index.search(query, limit, types)?;
        Ok((sync, hits))
    };
    let (sync, hits) = match attempt(&mut index) {
        Err(Error::Corrupt { detail, .. }) => {
            rebuilt = Some(index.rebuild(RebuildCause::Damaged(detail), progress)?);
            attempt(&mut index)?
        }
        other => other?,
    };
    Ok(SearchOutcome {
        hits,
        rebuilt,
        sync,
    })
}

impl Index {
    /// Opens the index of `store` in `cache_dir` (created if needed). A
    /// missing, damaged or out-of-date index is rebuilt first, reporting
    /// through `progress`; another process rebuilding the same index is
    /// waited for.
    pub fn open(
        store: &Store,
        cache_dir: &Path,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Opened> {
        fs::create_dir_all(cache_dir).map_err(|e| Error::io(cache_dir, e))?;
        let paths = IndexPaths::new(cache_dir, store);
        if let Ok(conn) = db::probe(&paths.db, store.root())? {
            return Ok(Opened {
                index: Index::from_parts(store, paths, conn),
                rebuilt: None,
            });
        }
        let _building = HeldLock::take(&paths.build_lock)?;
        // Probed again under the lock: whoever held it may have rebuilt.
        let cause = match db::probe(&paths.db, store.root())? {
            Ok(conn) => {
                return Ok(Opened {
                    index: Index::from_parts(store, paths, conn),
                    rebuilt: None,
                });
            }
            Err(cause) => cause,
        };
        let report = rebuild::rebuild(store, &paths, cause, progress)?;
        let conn = Index::reopen(store, &paths)?;
        Ok(Opened {
            index: Index::from_parts(store, paths, conn),
            rebuilt: Some(report),
        })
    }

    /// Opens the index only if it can be used as it is; never builds or
    /// changes anything (for `reindex --check` and `status`). `Ok(Err(cause))`
    /// says why it cannot be used.
    pub fn open_existing(store: &Store, cache_dir: &Path) -> Result<Result<Index, RebuildCause>> {
        let paths = IndexPaths::new(cache_dir, store);
        Ok(db::probe(&paths.db, store.root())?.map(|conn| Index::from_parts(store, paths, conn)))
    }

    /// Rebuilds the index from every record (`memctl reindex`, or after
    /// [`Error::Corrupt`]). Searches in other processes meanwhile answer
    /// from the old index.
    pub fn rebuild(
        &mut self,
        cause: RebuildCause,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<RebuildReport> {
        let _building = HeldLock::take(&self.paths.build_lock)?;
        // Our own connection must not hold a damaged file open while it is
        // deleted and replaced.
        let placeholder =
            Connection::open_in_memory().map_err(|e| Error::sqlite(&self.paths.db, e))?;
        drop(std::mem::replace(&mut self.conn, placeholder));
        let report = rebuild::rebuild(&self.store, &self.paths, cause, progress);
        self.conn = Index::reopen(&self.store, &self.paths)?;
        report
    }

    /// The store this index belongs to.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Where the index and its lock files are.
    pub fn paths(&self) -> &IndexPaths {
        &self.paths
    }

    fn from_parts(store: &Store, paths: IndexPaths, conn: Connection) -> Index {
        Index {
            store: store.clone(),
            paths,
            conn,
        }
    }

    /// Opens the index just built; anything but a usable file is an error.
    fn reopen(store: &Store, paths: &IndexPaths) -> Result<Connection> {
        db::probe(&paths.db, store.root())?.map_err(|cause| Error::Corrupt {
            path: paths.db.clone(),
            detail: format!("unusable right after a rebuild: {cause}"),
        })
    }
}
