//! The watcher (`memctl watch`, and the MCP server): it marks changed paths
//! dirty in the index as events arrive, so that searches re-read only those.
//!
//! Events come straight from `notify`'s recommended watcher, not through
//! `notify-debouncer-full`. That debouncer holds every event until its
//! timeout has passed (then up to one tick more), and a search must wait
//! for the marks of everything saved before it started (the sync cookie,
//! see [`crate::liveness`]), so its timeout would be added to every search;
//! its other services (one event per burst, rename stitching) matter to
//! consumers that act on each event, while marking a path dirty is
//! idempotent and a rename is two paths to re-read. So this module
//! debounces by batching instead: it blocks for one event, takes whatever
//! else is already queued, and commits the marks of the whole batch in one
//! transaction, which puts an event in the dirty table within a millisecond
//! or two and needs no timer thread while the store is quiet. (Measured on a
//! shared 2-core machine, release build, 10,000 and 100,000 records: a
//! search's whole cookie round trip plus re-reading one marked path took
//! 0.3 to 1.5 ms.) After a quiet
//! moment it re-reads the marked paths itself, so that searches usually
//! find nothing left to do.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use mdstore::Store;
use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};
use rusqlite::TransactionBehavior;

use crate::error::{Error, Result, SqliteContext};
use crate::liveness::{self, HeldLock};
use crate::location::{FileIdentity, IndexPaths};
use crate::rebuild::{Progress, RebuildReport};
use crate::sync::{CompareReason, SyncReport};
use crate::{Index, Opened, RebuildCause};

/// Events taken into one batch at most, so that a flood still commits.
const MAX_BATCH: usize = 4096;

/// How long the store must be quiet before the watcher re-reads its marks.
const QUIET: Duration = Duration::from_millis(100);

/// Pause before retrying marks that another writer kept out.
const BUSY_PAUSE: Duration = Duration::from_millis(20);

/// How often a quiet watcher looks whether its store folder is still
/// there, in case the event that said it went away was lost (a folder
/// removed with its parent, a network file system).
const ROOT_CHECK: Duration = Duration::from_secs(5);

/// How a watcher runs, beyond the store it watches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WatchOptions {
    /// Stop after this long without a search (a sync cookie): a watcher
    /// started for an agent's session should not outlive its use.
    pub idle_exit: Option<Duration>,
}

/// What a running watcher reports, for `memctl watch -v` and logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchNote {
    /// One batch of events marked these many paths dirty.
    Marked { paths: usize },
    /// The whole store was marked for a compare, and why.
    Rescan { why: String },
    /// The watcher re-read its marks after a quiet moment.
    Applied(SyncReport),
    /// The index was rebuilt under the watcher (deleted, damaged).
    Rebuilt(RebuildReport),
    /// Something went wrong that the watcher survives.
    Problem(String),
    /// No search came for [`WatchOptions::idle_exit`]: the watcher stops.
    Idle { after: Duration },
}

/// A running watcher. Dropping it stops it; the OS releases its locks if
/// the process dies, and searches then compare the whole store again.
pub struct Watcher {
    store_root: PathBuf,
    notify: Option<RecommendedWatcher>,
    thread: Option<JoinHandle<Result<()>>>,
}

/// A watcher just started, with what starting it took.
pub struct Started {
    pub watcher: Watcher,
    /// Present when the index had to be built first.
    pub rebuilt: Option<RebuildReport>,
    /// The start-up sync, done after watching began and before readiness.
    pub initial: SyncReport,
}

impl Watcher {
    /// Starts watching `store`: takes the watch lock (failing with
    /// [`Error::WatcherRunning`] if another watcher has it), opens the index
    /// (building it if needed), starts receiving events, syncs the whole
    /// store, then declares itself ready. `on_note` runs on the watcher's
    /// thread.
    pub fn start(
        store: &Store,
        cache_dir: &Path,
        on_note: impl FnMut(WatchNote) + Send + 'static,
    ) -> Result<Started> {
        Watcher::start_with(store, cache_dir, WatchOptions::default(), on_note)
    }

    /// [`Watcher::start`] with `options`.
    pub fn start_with(
        store: &Store,
        cache_dir: &Path,
        options: WatchOptions,
        on_note: impl FnMut(WatchNote) + Send + 'static,
    ) -> Result<Started> {
        mdstore::atomic::create_private_dir_all(cache_dir).map_err(|e| Error::io(cache_dir, e))?;
        let paths = IndexPaths::new(cache_dir, store);
        let watch_lock =
            HeldLock::try_take(&paths.watch_lock)?.ok_or_else(|| Error::WatcherRunning {
                store: store.root().to_path_buf(),
                lock: paths.watch_lock.clone(),
            })?;
        let Opened { mut index, rebuilt } = Index::open(store, cache_dir, &mut |_: Progress| {})?;
        let (sender, events) = mpsc::channel();
        let watch_error = |cause| Error::Watch {
            path: store.root().to_path_buf(),
            cause,
        };
        let mut notify = notify::recommended_watcher(sender).map_err(watch_error)?;
        notify
            .watch(store.root(), RecursiveMode::Recursive)
            .map_err(watch_error)?;
        liveness::remove_stale_cookies(store.root());
        // Everything changed before this sync is in it; everything after
        // arrives as events.
        let initial = index.sync_compare(CompareReason::WatcherStart)?;
        let ready_lock = HeldLock::take(&paths.ready_lock)?;
        let mut state = Loop {
            index,
            events,
            on_note: Box::new(on_note),
            idle_exit: options.idle_exit,
            last_search: Instant::now(),
            root: FileIdentity::of(store.root()),
            _locks: [watch_lock, ready_lock],
        };
        let thread = thread::Builder::new()
            .name("memctl-watch".into())
            .spawn(move || state.run())
            .map_err(|e| Error::io(store.root(), e))?;
        Ok(Started {
            watcher: Watcher {
                store_root: store.root().to_path_buf(),
                notify: Some(notify),
                thread: Some(thread),
            },
            rebuilt,
            initial,
        })
    }

    /// Blocks until the watcher stops by itself: `Ok` after
    /// [`WatchOptions::idle_exit`] without a search (a [`WatchNote::Idle`]
    /// says so), an error when it can no longer keep the index fresh (the
    /// store folder moved away, the event source failed), which says why.
    pub fn wait(mut self) -> Result<()> {
        match self.thread.take() {
            Some(thread) => join(thread, &self.store_root),
            None => Ok(()),
        }
    }

    /// Stops watching and waits for the watcher's thread to finish.
    pub fn stop(mut self) -> Result<()> {
        self.shut_down()
    }

    fn shut_down(&mut self) -> Result<()> {
        // Dropping the notify watcher closes the event channel, which ends
        // the loop.
        drop(self.notify.take());
        match self.thread.take() {
            Some(thread) => join(thread, &self.store_root),
            None => Ok(()),
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.shut_down();
    }
}

fn join(thread: JoinHandle<Result<()>>, store_root: &Path) -> Result<()> {
    thread.join().unwrap_or_else(|_| {
        Err(Error::WatcherStopped {
            store: store_root.to_path_buf(),
            detail: "the watcher thread panicked".into(),
        })
    })
}

/// The watcher thread's state.
struct Loop {
    index: Index,
    events: Receiver<notify::Result<notify::Event>>,
    on_note: Box<dyn FnMut(WatchNote) + Send>,
    idle_exit: Option<Duration>,
    /// When the last sync cookie (a search) arrived, or the start.
    last_search: Instant,
    /// The store folder watched: another folder made at its path later is
    /// not watched, so it counts as the store gone.
    root: Option<FileIdentity>,
    /// The watch and ready locks, held for the life of the loop.
    _locks: [HeldLock; 2],
}

/// What one batch of events asks for.
#[derive(Debug, Default)]
struct Batch {
    marks: BTreeSet<String>,
    rescan: Option<String>,
    cookies: Vec<PathBuf>,
    /// Why the watcher cannot go on, if it cannot.
    fatal: Option<String>,
}

impl Loop {
    fn run(&mut self) -> Result<()> {
        let mut unapplied = false;
        loop {
            let first = match self.events.recv_timeout(self.patience(unapplied)) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => {
                    if unapplied {
                        unapplied = !self.apply();
                    }
                    self.check_root()?;
                    if self.idle_over() {
                        return Ok(());
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            };
            let mut batch = Batch::default();
            self.classify(first, &mut batch);
            let mut taken = 1;
            while taken < MAX_BATCH {
                match self.events.try_recv() {
                    Ok(event) => self.classify(event, &mut batch),
                    Err(_) => break,
                }
                taken += 1;
            }
            self.commit(&batch)?;
            // Only now are the marks of every event before each cookie in
            // the index: the searcher waiting on it may go on.
            if !batch.cookies.is_empty() {
                self.last_search = Instant::now();
            }
            for cookie in &batch.cookies {
                if let Err(e) = fs::remove_file(cookie)
                    && e.kind() != io::ErrorKind::NotFound
                {
                    (self.on_note)(WatchNote::Problem(format!(
                        "cannot remove {}: {e}",
                        cookie.display()
                    )));
                }
            }
            if let Some(why) = batch.fatal {
                return Err(Error::WatcherStopped {
                    store: self.index.store().root().to_path_buf(),
                    detail: why,
                });
            }
            if let Some(why) = batch.rescan {
                (self.on_note)(WatchNote::Rescan { why });
                unapplied = true;
            }
            if !batch.marks.is_empty() {
                (self.on_note)(WatchNote::Marked {
                    paths: batch.marks.len(),
                });
                unapplied = true;
            }
            // A store that changes all the time is never quiet, and its
            // watcher must still stop when nobody searches it.
            if self.idle_over() {
                return Ok(());
            }
        }
    }

    /// How long to wait for the next event: a quiet moment when marks wait
    /// to be re-read, else until the next look at the store folder or the
    /// idle deadline, whichever comes first.
    fn patience(&self, unapplied: bool) -> Duration {
        if unapplied {
            return QUIET;
        }
        let idle_left = self
            .idle_exit
            .map(|idle| idle.saturating_sub(self.last_search.elapsed()));
        idle_left.map_or(ROOT_CHECK, |left| left.min(ROOT_CHECK))
    }

    /// An error when the store folder is gone or another folder stands at
    /// its path: the watcher can no longer see its changes.
    fn check_root(&self) -> Result<()> {
        let root = self.index.store().root();
        if FileIdentity::of(root).is_some() && FileIdentity::of(root) == self.root {
            return Ok(());
        }
        Err(Error::WatcherStopped {
            store: root.to_path_buf(),
            detail: format!("the store folder {} was moved or deleted", root.display()),
        })
    }

    /// Whether no search came for the idle time (said in a note).
    fn idle_over(&mut self) -> bool {
        let Some(idle) = self.idle_exit else {
            return false;
        };
        if self.last_search.elapsed() < idle {
            return false;
        }
        (self.on_note)(WatchNote::Idle { after: idle });
        true
    }

    /// Adds what one event means to the batch.
    fn classify(&self, event: notify::Result<notify::Event>, batch: &mut Batch) {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                let why = format!("watcher error: {error}");
                if matches!(error.kind, notify::ErrorKind::MaxFilesWatch) {
                    // Folders that cannot be watched would go stale unseen.
                    batch.fatal = Some(why.clone());
                }
                batch.rescan = Some(why);
                return;
            }
        };
        if event.need_rescan() {
            batch.rescan = Some("the event queue overflowed".into());
            return;
        }
        let is_creation = matches!(event.kind, EventKind::Create(_));
        match event.kind {
            // Opening or reading a file changes nothing; the close after a
            // write is seen as the write itself.
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => {}
            EventKind::Access(_) => return,
            _ => {}
        }
        let store = self.index.store();
        let root = store.root();
        for path in &event.paths {
            if path == root {
                if matches!(
                    event.kind,
                    EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
                ) {
                    batch.fatal = Some(format!(
                        "the store folder {} was moved or deleted",
                        root.display()
                    ));
                }
                batch.rescan = Some(format!("the store folder changed ({:?})", event.kind));
                continue;
            }
            if liveness::is_cookie(root, path) {
                if is_creation {
                    batch.cookies.push(path.clone());
                }
                continue;
            }
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            if rel.components().any(|c| {
                c.as_os_str()
                    .to_str()
                    .is_none_or(|name| name.starts_with('.'))
            }) {
                continue;
            }
            if store.record_rel_path(path).is_some() {
                batch.marks.insert(rel.to_string_lossy().into_owned());
                continue;
            }
            match fs::symlink_metadata(path) {
                // New folders: files made in them before their watch was
                // added sent no events.
                Ok(meta) if meta.is_dir() => {
                    batch.rescan = Some(format!("folder {} changed", rel.display()));
                }
                // Any other file is no record.
                Ok(_) => {}
                // Gone: perhaps a folder of records, which the sync checks.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    batch.marks.insert(rel.to_string_lossy().into_owned());
                }
                Err(e) => batch.rescan = Some(format!("cannot look at {}: {e}", rel.display())),
            }
        }
    }

    /// Writes the batch's marks, into whatever index file is current.
    fn commit(&mut self, batch: &Batch) -> Result<()> {
        if batch.marks.is_empty() && batch.rescan.is_none() {
            return Ok(());
        }
        loop {
            self.follow_replacement()?;
            match self.write_marks(batch) {
                Ok(()) => {}
                Err(Error::Corrupt { detail, .. }) => {
                    let report = self
                        .index
                        .rebuild(RebuildCause::Damaged(detail), &mut |_| {})?;
                    (self.on_note)(WatchNote::Rebuilt(report));
                    continue;
                }
                Err(e) if e.is_busy() => {
                    thread::sleep(BUSY_PAUSE);
                    continue;
                }
                Err(e) => return Err(e),
            }
            // Replaced between the check and the commit: the marks went to
            // the old file, so write them again.
            if !self.index.is_replaced() {
                return Ok(());
            }
        }
    }

    fn write_marks(&mut self, batch: &Batch) -> Result<()> {
        let path = self.index.paths().db.clone();
        let tx = self
            .index
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .at(&path)?;
        {
            // REPLACE gives a re-marked path a new, higher seq: a compare
            // that started before this mark must not clear it.
            let mut insert = tx
                .prepare_cached("INSERT OR REPLACE INTO dirty (rel_path) VALUES (?1)")
                .at(&path)?;
            for mark in &batch.marks {
                insert.execute([mark]).at(&path)?;
            }
            if batch.rescan.is_some() {
                insert.execute([""]).at(&path)?;
            }
        }
        tx.commit().at(&path)
    }

    /// Reopens the index if its file was deleted or replaced (a rebuild by
    /// another process after damage): marks written to the old file would
    /// never be seen. The new file gets a whole-store mark, since events
    /// between its build and now were marked in the old one.
    fn follow_replacement(&mut self) -> Result<()> {
        let Some(Opened { index, rebuilt }) = self.index.follow_replacement()? else {
            return Ok(());
        };
        self.index = index;
        if let Some(report) = rebuilt {
            (self.on_note)(WatchNote::Rebuilt(report));
        }
        let path = self.index.paths().db.clone();
        self.index
            .conn
            .execute("INSERT OR REPLACE INTO dirty (rel_path) VALUES ('')", [])
            .at(&path)?;
        (self.on_note)(WatchNote::Rescan {
            why: format!("the index file {} was replaced", path.display()),
        });
        Ok(())
    }

    /// Re-reads the marked paths; whether that is done (a busy index is
    /// tried again after the next quiet moment).
    fn apply(&mut self) -> bool {
        match self.index.sync_dirty() {
            Ok(report) => {
                (self.on_note)(WatchNote::Applied(report));
                true
            }
            Err(e) if e.is_busy() => false,
            Err(e) => {
                (self.on_note)(WatchNote::Problem(format!("re-reading marked paths: {e}")));
                // Searches re-read the marks themselves; nothing is lost.
                true
            }
        }
    }
}
