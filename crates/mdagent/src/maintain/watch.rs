//! `memctl watch`: a store's index kept current until interrupted, or
//! until a stretch without searches, so that searches re-read only what
//! changed (SPEC §4). A session's hook starts one in the background
//! ([`crate::lifecycle`]).

use std::path::PathBuf;
use std::time::Duration;

use mdindex::{RebuildReport, WatchNote, WatchOptions, Watcher};

use super::{INIT_HINT, MaintainError};
use crate::Config;
use crate::lifecycle::{Job, reports};
use crate::stores::{self, ScopedStore};

/// How a watcher ended without failing.
#[derive(Debug)]
pub enum Watched {
    /// Interrupted, or idle for the time asked.
    Stopped,
    /// Started in the background while another watcher keeps this store
    /// (two sessions starting at once): this one leaves it to that one.
    LeftToAnother(PathBuf),
}

/// The store of the default scope, to watch.
pub fn store_to_watch(config: &Config) -> Result<ScopedStore, MaintainError> {
    let scope = stores::default_scope(config);
    stores::read_stores(config)?
        .into_iter()
        .find(|s| s.scope == scope)
        .ok_or(MaintainError::NoStore {
            scope: if scope == stores::Scope::Global {
                "global "
            } else {
                "workspace "
            },
            what: "to watch",
            hint: INIT_HINT,
        })
}

/// Watches `scoped` until interrupted or idle for `idle_exit`, giving
/// every note to `on_note` and calling `on_ready` once watching began (with
/// the rebuild the index needed first). A watcher started by a hook
/// (`background`) is watched by no one: its failure is recorded, to be told
/// at the next session start.
pub fn run(
    config: &Config,
    scoped: &ScopedStore,
    idle_exit: Option<Duration>,
    background: bool,
    on_note: impl FnMut(WatchNote) + Send + 'static,
    on_ready: impl FnOnce(Option<&RebuildReport>),
) -> Result<Watched, MaintainError> {
    let result = watch(config, scoped, idle_exit, background, on_note, on_ready);
    // A store that went away ends its watcher's life: nothing to report.
    if background
        && let Err(e) = &result
        && scoped.store.root().is_dir()
    {
        let message = crate::explain::message_of(e);
        reports::record(
            config,
            scoped,
            Job::Watch,
            &format!(
                "the watcher stopped: {message}; searches compare the store with its index instead (slower) until a session starts another"
            ),
        );
    }
    result
}

fn watch(
    config: &Config,
    scoped: &ScopedStore,
    idle_exit: Option<Duration>,
    background: bool,
    on_note: impl FnMut(WatchNote) + Send + 'static,
    on_ready: impl FnOnce(Option<&RebuildReport>),
) -> Result<Watched, MaintainError> {
    let options = WatchOptions { idle_exit };
    let started = match Watcher::start_with(&scoped.store, config.cache_dir(), options, on_note) {
        Ok(started) => started,
        Err(mdindex::Error::WatcherRunning { store, .. }) if background => {
            return Ok(Watched::LeftToAnother(store));
        }
        // Another watcher's is a conflict (`crate::explain`).
        Err(e) => return Err(MaintainError::WatchStart(Box::new(e))),
    };
    on_ready(started.rebuilt.as_ref());
    started
        .watcher
        .wait()
        .map_err(|e| MaintainError::Watch(Box::new(e)))?;
    Ok(Watched::Stopped)
}

/// The stores a long-lived face (the MCP server) keeps watched, and what
/// went wrong on the way.
#[derive(Default)]
pub struct KeptWatched {
    /// The caller's own watchers, to keep alive while it lives.
    pub watchers: Vec<Watcher>,
    /// One line each; without a watcher a search compares the store with
    /// its index instead.
    pub warnings: Vec<String>,
}

/// Keeps each store watched while the caller lives: by the detached
/// watcher a hook starts, which outlives it ([`crate::lifecycle::keep_watched`]),
/// or, when the settings turn that job off, by watchers of the caller's own,
/// each giving its notes to `on_note`. A store that another watcher already
/// keeps is left to it.
pub fn keep_watched(
    config: &Config,
    on_note: impl FnMut(WatchNote) + Send + Clone + 'static,
) -> KeptWatched {
    let mut kept = KeptWatched::default();
    let stores = match stores::read_stores(config) {
        Ok(stores) => stores,
        Err(e) => {
            kept.warnings.push(format!("no store watched: {e}"));
            return kept;
        }
    };
    if let Ok(launcher) = crate::lifecycle::Launcher::current() {
        let detached = crate::lifecycle::keep_watched(config, &launcher, &stores);
        kept.warnings.extend(detached.warnings);
        if detached.detached {
            return kept;
        }
    }
    for scoped in &stores {
        match Watcher::start(&scoped.store, config.cache_dir(), on_note.clone()) {
            Ok(started) => kept.watchers.push(started.watcher),
            Err(mdindex::Error::WatcherRunning { .. }) => {}
            Err(e) => kept.warnings.push(format!(
                "no watcher for the {} store ({e}); searches compare it with the index instead",
                scoped.scope.as_str()
            )),
        }
    }
    kept
}
