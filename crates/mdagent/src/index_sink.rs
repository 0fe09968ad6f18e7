//! Where writes meet the search index: the header view a write plans from,
//! and the sink that tells the index which files a write changed, so that
//! it never lags memctl's own writes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mdindex::Index;
use mdstore::Store;
use mdstore::lock::LockError;
use mdstore::txn::{ChangeSink, Transaction};
use mdstore::view::StoreView;

use crate::Config;

/// Starts a write to `store`: its lock, waited for up to `timeout`
/// ([`Config::lock_timeout`], read by the caller before anything is
/// planned), and the view the write plans from.
pub fn begin<'s>(
    config: &Config,
    store: &'s Store,
    timeout: Duration,
) -> Result<Transaction<'s>, LockError> {
    let cache = config.cache_dir();
    Transaction::begin(store, timeout, |store| view_for_write(cache, store))
}

/// The search index of a store, told of each transaction's changes.
pub struct IndexSink<'a> {
    pub cache: &'a Path,
    pub store: &'a Store,
}

impl<'a> IndexSink<'a> {
    pub fn new(config: &'a Config, store: &'a Store) -> IndexSink<'a> {
        IndexSink {
            cache: config.cache_dir(),
            store,
        }
    }
}

impl ChangeSink for IndexSink<'_> {
    fn changed(&mut self, rel_paths: &[PathBuf]) {
        after_write(self.cache, self.store, rel_paths);
    }
}

/// Tells the index that memctl itself changed these record paths, so that it
/// never lags its own writes. An index that does not exist yet is left for
/// the next search to build. Failures are not fatal: the files are the
/// truth, and the next search compares them with the index anyway.
fn after_write(cache: &Path, store: &Store, rel_paths: &[PathBuf]) {
    if rel_paths.is_empty() {
        return;
    }
    let Ok(mut index) = Index::open_existing(store, cache) else {
        return;
    };
    for rel_path in rel_paths {
        if let Err(e) = index.note_changed(rel_path) {
            eprintln!(
                "warning: the search index was not updated ({e}); the next search will catch up"
            );
            return;
        }
    }
}

/// The header view a write plans from: from the search index when one is
/// usable (synced first, so it matches the files now: cheap with a watcher,
/// a stat of every file without), else from reading every header. A write
/// never builds an index; the next search does.
pub fn view_for_write(cache: &Path, store: &Store) -> StoreView {
    let from_index = || -> Option<Vec<mdstore::Summary>> {
        let mut index = Index::open_existing(store, cache).ok()?;
        index.sync().ok()?;
        index.summaries().ok()
    };
    match from_index() {
        Some(summaries) => StoreView::from_summaries(store, summaries),
        None => StoreView::load(store),
    }
}
