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
let query = query::parse("pytest").unwrap();
let outcome = mdindex::search_store(&store, &cache, &query, 10, &[], &mut |_| {}).unwrap();
assert!(outcome.rebuilt.is_some()); // the first use builds the index
```
*/
#![forbid(unsafe_code)]

mod check;
mod db;
mod error;
pub mod fts;
mod liveness;
mod location;
pub mod query;
mod rebuild;
pub mod relevance;
mod rows;
mod search;
pub mod semantic;
pub mod snippet;
mod status;
mod summaries;
mod sync;
mod watch;

use std::path::Path;

use mdstore::{RecordType, Store};
use rusqlite::Connection;

pub use check::{CheckReport, Difference};
pub use db::{RebuildCause, SCHEMA_VERSION};
pub use error::{Error, Result};
pub use liveness::{WatcherState, watcher_state};
pub use location::IndexPaths;
pub use rebuild::{Progress, RebuildReport};
pub use search::{Hit, merge_ranked};
pub use semantic::{EmbedFailure, Semantic, VectorReport};
pub use status::IndexStatus;
pub use sync::{CompareReason, SyncMode, SyncReport};
pub use watch::{Started, WatchNote, WatchOptions, Watcher};

use liveness::BuildLock;
use location::FileIdentity;
use query::Query;

/// The index of one store, open.
#[derive(Debug)]
pub struct Index {
    store: Store,
    paths: IndexPaths,
    conn: Connection,
    /// The file `conn` was opened on.
    identity: Option<FileIdentity>,
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
    /// Present when the index in the cache folder could not be used or
    /// written (a read-only home, a full disk, the folder a file): the
    /// answer came from a temporary index, built for this search and
    /// deleted after it. Say so.
    pub temporary_index: Option<Error>,
    /// The evidence of each hit, in the same order, from
    /// [`search_store_with_evidence`] and [`recall_store`]; empty from
    /// [`search_store`].
    pub evidence: Vec<relevance::Evidence>,
    /// What keeping the vectors fresh did, when the search used the model.
    pub vectors: Option<VectorReport>,
    /// The model was asked for but failed mid-search: the answer is by
    /// words alone. Say so.
    pub semantic_failed: Option<EmbedFailure>,
    /// With semantic matching, the best cosine between the query and any
    /// record its filters allow (issue 24: how close a prompt comes to
    /// what the store holds); `None` without it or when it fell back.
    pub closest: Option<f32>,
}

/// Opens the index of `store` (building it if missing, damaged or out of
/// date), brings it up to date with the files as they are now, and runs
/// `query`. Damage found mid-way rebuilds the index and runs it again; a
/// cache folder that cannot be used gives way to a temporary index (see
/// [`SearchOutcome::temporary_index`]). `progress` is called only while a
/// rebuild reads records. A query that would select every record is
/// [`query::QueryError::NothingToSearch`].
pub fn search_store(
    store: &Store,
    cache_dir: &Path,
    query: &Query,
    limit: usize,
    types: &[RecordType],
    progress: &mut dyn FnMut(Progress),
) -> Result<SearchOutcome> {
    let search = Search::new(query, limit, types, Judge::No);
    search_with(store, cache_dir, &search, progress)
}

/// [`search_store`] with the semantic ranking fused into the lexical one
/// (see [`semantic`]): the vectors are brought up to date first.
pub fn hybrid_search_store(
    store: &Store,
    cache_dir: &Path,
    query: &Query,
    limit: usize,
    types: &[RecordType],
    semantic: Semantic<'_>,
    progress: &mut dyn FnMut(Progress),
) -> Result<SearchOutcome> {
    let mut search = Search::new(query, limit, types, Judge::No);
    search.semantic = Some(semantic);
    search_with(store, cache_dir, &search, progress)
}

/// [`search_store`] that also weighs each hit's [`relevance::Evidence`],
/// for judging whether to show it unasked.
pub fn search_store_with_evidence(
    store: &Store,
    cache_dir: &Path,
    query: &Query,
    limit: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<SearchOutcome> {
    let search = Search::new(query, limit, &[], Judge::Evidence);
    search_with(store, cache_dir, &search, progress)
}

/// The records of `store` worth showing unasked for a prompt's `query`
/// (see [`Index::recall`]): at most `limit`, each passing `threshold`,
/// with its evidence. Opened, synced and rebuilt as [`search_store`] does.
pub fn recall_store(
    store: &Store,
    cache_dir: &Path,
    query: &Query,
    limit: usize,
    threshold: &relevance::Threshold,
    progress: &mut dyn FnMut(Progress),
) -> Result<SearchOutcome> {
    let search = Search::new(query, limit, &[], Judge::Recall(*threshold));
    search_with(store, cache_dir, &search, progress)
}

/// `hits` of `store` (best first, as a recall of it has just answered) in
/// the order of the fusion of that order with their closeness to
/// `semantic`'s text ([`Index::rerank`]), after embedding those that have
/// no vector: meaning orders, it neither adds a record nor drops one.
/// `None` when the index cannot be used as it is: it is neither built nor
/// synced here, since the hits were found in it a moment ago and only
/// their order is asked, and a hook does not rebuild an index to order
/// two records. `context` asks this only when there are two records to
/// order, so that the model is loaded only then.
pub fn rerank_store(
    store: &Store,
    cache_dir: &Path,
    hits: Vec<Hit>,
    semantic: Semantic<'_>,
) -> Result<Option<semantic::Reranked>> {
    match Index::open_existing(store, cache_dir) {
        Ok(index) => index.rerank(hits, semantic).map(Some),
        Err(Error::Unusable { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

fn search_with(
    store: &Store,
    cache_dir: &Path,
    search: &Search<'_>,
    progress: &mut dyn FnMut(Progress),
) -> Result<SearchOutcome> {
    search.query.ensure_selective(search.types)?;
    match search_in(store, cache_dir, search, progress) {
        Err(e) if e.is_cache_unusable(cache_dir) => {
            let temporary = tempfile::Builder::new()
                .prefix("memctl-index-")
                .tempdir()
                .map_err(|io| Error::io(std::env::temp_dir(), io))?;
            let mut outcome = search_in(store, temporary.path(), search, progress)?;
            outcome.temporary_index = Some(e);
            Ok(outcome)
        }
        other => other,
    }
}

/// What [`search_in`] runs.
struct Search<'a> {
    query: &'a Query,
    limit: usize,
    types: &'a [RecordType],
    judge: Judge,
    semantic: Option<Semantic<'a>>,
}

impl<'a> Search<'a> {
    fn new(query: &'a Query, limit: usize, types: &'a [RecordType], judge: Judge) -> Self {
        Search {
            query,
            limit,
            types,
            judge,
            semantic: None,
        }
    }
}

/// A search's answer, before it becomes a [`SearchOutcome`].
struct Answer {
    sync: SyncReport,
    hits: Vec<Hit>,
    evidence: Vec<relevance::Evidence>,
    vectors: Option<VectorReport>,
    semantic_failed: Option<EmbedFailure>,
    closest: Option<f32>,
}

/// What a search weighs besides the ranking.
#[derive(Clone, Copy)]
enum Judge {
    No,
    /// Every hit's evidence.
    Evidence,
    /// Only the hits that pass, ranked without the words that cannot decide.
    Recall(relevance::Threshold),
}

fn search_in(
    store: &Store,
    cache_dir: &Path,
    search: &Search<'_>,
    progress: &mut dyn FnMut(Progress),
) -> Result<SearchOutcome> {
    let Opened {
        mut index,
        mut rebuilt,
    } = Index::open(store, cache_dir, progress)?;
    let answer = match answer(&mut index, search) {
        Err(Error::Corrupt { detail, .. }) => {
            rebuilt = Some(index.rebuild(RebuildCause::Damaged(detail), progress)?);
            answer(&mut index, search)?
        }
        other => other?,
    };
    Ok(SearchOutcome {
        hits: answer.hits,
        rebuilt,
        sync: answer.sync,
        temporary_index: None,
        evidence: answer.evidence,
        vectors: answer.vectors,
        semantic_failed: answer.semantic_failed,
        closest: answer.closest,
    })
}

/// Syncs `index` (and its vectors, when the search uses the model) and runs
/// `search`. A model that fails leaves the answer to words alone.
fn answer(index: &mut Index, search: &Search<'_>) -> Result<Answer> {
    let sync = index.sync()?;
    let mut vectors = None;
    let mut semantic_failed = None;
    let mut semantic = search.semantic;
    if let Some(asked) = semantic {
        match index.refresh_vectors(asked.model, asked.deadline)? {
            Ok(report) => vectors = Some(report),
            Err(failure) => {
                semantic_failed = Some(failure);
                semantic = None;
            }
        }
    }
    let (query, limit, types) = (search.query, search.limit, search.types);
    let mut closest = None;
    let mut fell_back = |failure: EmbedFailure| semantic_failed = Some(failure);
    let (hits, evidence) = match (search.judge, semantic) {
        (Judge::Recall(threshold), _) => {
            index.recall(query, limit, &threshold)?.into_iter().unzip()
        }
        (judge, semantic) => {
            let hits = match semantic {
                None => index.search(query, limit, types)?,
                Some(semantic) => {
                    match index.hybrid(query, limit, types, semantic, search::Snippets::Made)? {
                        Ok((hits, best)) => {
                            closest = best;
                            hits
                        }
                        Err(failure) => {
                            fell_back(failure);
                            index.search(query, limit, types)?
                        }
                    }
                }
            };
            let evidence = match judge {
                Judge::Evidence => index.evidence(query, &hits)?,
                _ => Vec::new(),
            };
            (hits, evidence)
        }
    };
    Ok(Answer {
        sync,
        hits,
        evidence,
        vectors,
        semantic_failed,
        closest,
    })
}

/// Threads for work that splits (statting a store, reading records): one a
/// core, at most four (beyond that the disk and the one SQLite writer bound).
fn worker_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, 4))
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
        mdstore::atomic::create_private_dir_all(cache_dir).map_err(|e| Error::io(cache_dir, e))?;
        Index::open_at(store, IndexPaths::new(cache_dir, store), progress)
    }

    fn open_at(
        store: &Store,
        paths: IndexPaths,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Opened> {
        match Index::probe(store, &paths) {
            Err(Error::Unusable { .. }) => {}
            found => {
                return found.map(|index| Opened {
                    index,
                    rebuilt: None,
                });
            }
        }
        let _building = BuildLock::take(&paths.build_lock)?;
        // Probed again under the lock: whoever held it may have rebuilt.
        let cause = match Index::probe(store, &paths) {
            Err(Error::Unusable { cause, .. }) => cause,
            found => {
                return found.map(|index| Opened {
                    index,
                    rebuilt: None,
                });
            }
        };
        let report = rebuild::rebuild(store, &paths, cause, progress)?;
        Ok(Opened {
            index: Index::probe_rebuilt(store, &paths)?,
            rebuilt: Some(report),
        })
    }

    /// Opens the index only if it can be used as it is; never builds or
    /// changes anything (for `reindex --check` and `status`).
    /// [`Error::Unusable`] says why it cannot be used.
    pub fn open_existing(store: &Store, cache_dir: &Path) -> Result<Index> {
        Index::probe(store, &IndexPaths::new(cache_dir, store))
    }

    /// Rebuilds the index from every record (`memctl reindex`, or after
    /// [`Error::Corrupt`]). Searches in other processes meanwhile answer
    /// from the old index.
    pub fn rebuild(
        &mut self,
        cause: RebuildCause,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<RebuildReport> {
        let _building = BuildLock::take(&self.paths.build_lock)?;
        // Our own connection must not hold a damaged file open while it is
        // deleted and replaced.
        let placeholder =
            Connection::open_in_memory().map_err(|e| Error::sqlite(&self.paths.db, e))?;
        drop(std::mem::replace(&mut self.conn, placeholder));
        let report = rebuild::rebuild(&self.store, &self.paths, cause, progress);
        *self = Index::probe_rebuilt(&self.store, &self.paths)?;
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

    /// Opens the index at `paths` if it is usable as it is, else
    /// [`Error::Unusable`].
    fn probe(store: &Store, paths: &IndexPaths) -> Result<Index> {
        // Taken before opening: if the file is replaced in between, the
        // next check sees a difference and reopens, which is harmless.
        let identity = FileIdentity::of(&paths.db);
        match db::probe(&paths.db, store.root())? {
            db::Probed::Usable(conn) => Ok(Index {
                store: store.clone(),
                paths: paths.clone(),
                conn,
                identity,
            }),
            db::Probed::Rebuild(cause) => Err(Error::Unusable {
                path: paths.db.clone(),
                cause,
            }),
        }
    }

    /// Opens the index just built; anything but a usable file is an error.
    fn probe_rebuilt(store: &Store, paths: &IndexPaths) -> Result<Index> {
        Index::probe(store, paths).map_err(|e| match e {
            Error::Unusable { path, cause } => Error::Corrupt {
                path,
                detail: format!("unusable right after a rebuild: {cause}"),
            },
            e => e,
        })
    }

    /// Whether the file at the index path is no longer the one this
    /// connection reads (deleted, or replaced by another process's rebuild).
    pub(crate) fn is_replaced(&self) -> bool {
        self.identity.is_none() || FileIdentity::of(&self.paths.db) != self.identity
    }

    /// Reopens the index if its file was deleted or replaced since it was
    /// opened, building it if it is missing: a long-lived `Index` (a
    /// watcher, a server) would otherwise read and write a file nobody else
    /// sees. `None` when nothing had to be done.
    pub(crate) fn follow_replacement(&mut self) -> Result<Option<Opened>> {
        if !self.is_replaced() {
            return Ok(None);
        }
        let opened = Index::open_at(&self.store, self.paths.clone(), &mut |_| {})?;
        Ok(Some(opened))
    }
}
