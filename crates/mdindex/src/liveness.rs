//! How searches learn whether a watcher keeps the index fresh, and how they
//! make sure it has seen everything saved before they started.
//!
//! A watcher holds two OS locks beside the index: `<index>.watch` for its
//! whole life, and `<index>.ready` once its start-up sync is done. Readiness
//! is a lock rather than a flag in the database because the OS drops a lock
//! when its process dies: a flag left set by a dead watcher could be
//! mistaken for the readiness of a new one that has not synced yet.
//!
//! A search that finds the ready lock taken runs a sync cookie round trip
//! (as watchman does): it creates `.memctl-cookie-<pid>-<n>` in the store
//! root and waits for the watcher to delete it, which the watcher does only
//! after committing the dirty marks of every event it received before the
//! cookie's. Dotfiles are never records, so cookies never reach the index.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::process;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::location::{FileIdentity, IndexPaths};

/// The file-name prefix of sync cookies.
pub(crate) const COOKIE_PREFIX: &str = ".memctl-cookie-";

/// How long a search waits for the watcher to acknowledge its cookie before
/// it compares the whole store itself.
pub(crate) const COOKIE_PATIENCE: Duration = Duration::from_millis(500);

/// Whether a watcher keeps an index fresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WatcherState {
    /// No watcher runs: searches compare the store with the index first.
    Absent,
    /// A watcher runs but has not finished its start-up sync.
    Starting,
    /// A watcher runs and marks every change: searches re-read only those.
    Ready,
}

/// Looks at the watcher's locks without disturbing a running watcher (a
/// free lock is taken and dropped at once).
pub fn watcher_state(paths: &IndexPaths) -> WatcherState {
    if is_held(&paths.ready_lock) {
        WatcherState::Ready
    } else if is_held(&paths.watch_lock) {
        WatcherState::Starting
    } else {
        WatcherState::Absent
    }
}

fn is_held(path: &Path) -> bool {
    match File::open(path) {
        Ok(file) => matches!(file.try_lock(), Err(TryLockError::WouldBlock)),
        Err(_) => false,
    }
}

/// An OS lock held until dropped (or until the process dies).
#[derive(Debug)]
pub(crate) struct HeldLock {
    _file: File,
}

impl HeldLock {
    /// Takes the lock unless another holder has it (`Ok(None)`).
    pub(crate) fn try_take(path: &Path) -> Result<Option<HeldLock>> {
        let file = open_lock_file(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(HeldLock { _file: file })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(Error::io(path, e)),
        }
    }

    /// Takes the lock, waiting for the current holder as long as it takes.
    pub(crate) fn take(path: &Path) -> Result<HeldLock> {
        let file = open_lock_file(path)?;
        file.lock().map_err(|e| Error::io(path, e))?;
        Ok(HeldLock { _file: file })
    }
}

/// The lock a rebuild holds, on a file removed when the lock is released,
/// so that no empty lock files pile up in the cache folder.
#[derive(Debug)]
pub(crate) struct BuildLock {
    path: PathBuf,
    _file: File,
}

impl BuildLock {
    /// Takes the lock, waiting for the current holder as long as it takes.
    /// A holder removes the file before releasing it, so a lock got on a
    /// file no longer at `path` guards nothing: it is taken again.
    pub(crate) fn take(path: &Path) -> Result<BuildLock> {
        loop {
            let file = open_lock_file(path)?;
            file.lock().map_err(|e| Error::io(path, e))?;
            let current = FileIdentity::of(path);
            if current.is_some() && current == FileIdentity::of_open(&file) {
                return Ok(BuildLock {
                    path: path.to_path_buf(),
                    _file: file,
                });
            }
        }
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        // Removed while still held; a failure leaves an empty file that
        // the next holder reuses and removes.
        let _ = fs::remove_file(&self.path);
    }
}

fn open_lock_file(path: &Path) -> Result<File> {
    mdstore::atomic::open_private(
        path,
        OpenOptions::new().create(true).truncate(false).write(true),
    )
    .map_err(|e| Error::io(path, e))
}

/// Whether `path` (from a watcher event) is a sync cookie of the store at `root`.
pub(crate) fn is_cookie(root: &Path, path: &Path) -> bool {
    path.parent() == Some(root)
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(COOKIE_PREFIX))
}

/// Cookies older than this were left by a search that died while waiting.
const STALE_COOKIE: Duration = Duration::from_secs(10);

/// Removes cookies left in `root` by searches that died while waiting for
/// a watcher (best effort: they are dotfiles, never records). Recent ones
/// may belong to a search still waiting, and are left alone.
pub(crate) fn remove_stale_cookies(root: &Path) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_COOKIE);
        if stale && is_cookie(root, &path) {
            let _ = fs::remove_file(path);
        }
    }
}

/// Creates a cookie in `root` and waits for a watcher to delete it. `Err`
/// says, in words for the sync report, why the watcher cannot be relied on.
pub(crate) fn cookie_round_trip(root: &Path, patience: Duration) -> Result<(), String> {
    let cookie = create_cookie(root)
        .map_err(|e| format!("cannot create a sync cookie in {}: {e}", root.display()))?;
    let start = Instant::now();
    let mut pause = Duration::from_micros(50);
    loop {
        match fs::symlink_metadata(&cookie) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            _ if start.elapsed() >= patience => {
                let _ = fs::remove_file(&cookie);
                return Err(format!(
                    "the watcher did not answer within {} ms",
                    patience.as_millis()
                ));
            }
            _ => thread::sleep(pause),
        }
        pause = (pause * 2).min(Duration::from_millis(2));
    }
}

fn create_cookie(root: &Path) -> io::Result<PathBuf> {
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    loop {
        let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
        let path = root.join(format!("{COOKIE_PREFIX}{}-{serial}", process::id()));
        // A cookie left by a dead process with our pid: take the next number.
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(_) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_tell_the_watcher_state() {
        let dir = tempfile::tempdir().unwrap();
        let paths = IndexPaths::new(dir.path(), &mdstore::Store::open(dir.path()).unwrap());
        assert_eq!(watcher_state(&paths), WatcherState::Absent);
        let live = HeldLock::try_take(&paths.watch_lock).unwrap().unwrap();
        assert!(HeldLock::try_take(&paths.watch_lock).unwrap().is_none());
        assert_eq!(watcher_state(&paths), WatcherState::Starting);
        let ready = HeldLock::take(&paths.ready_lock).unwrap();
        assert_eq!(watcher_state(&paths), WatcherState::Ready);
        drop((live, ready));
        assert_eq!(watcher_state(&paths), WatcherState::Absent);
    }

    #[test]
    fn an_unanswered_cookie_times_out_and_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let err = cookie_round_trip(dir.path(), Duration::from_millis(20)).unwrap_err();
        assert!(err.contains("did not answer"), "{err}");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn only_stale_cookies_are_cleaned_up() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join(format!("{COOKIE_PREFIX}1-0"));
        let recent = dir.path().join(format!("{COOKIE_PREFIX}1-1"));
        let other = dir.path().join(".other");
        for path in [&old, &recent, &other] {
            fs::write(path, b"").unwrap();
        }
        let long_ago = std::time::SystemTime::now() - Duration::from_secs(60);
        for path in [&old, &other] {
            File::options()
                .write(true)
                .open(path)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        }
        remove_stale_cookies(dir.path());
        assert!(!old.exists());
        assert!(recent.exists() && other.exists());
    }

    #[test]
    fn a_deleted_cookie_is_an_answer() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let answerer = thread::spawn(move || {
            loop {
                for entry in fs::read_dir(&root).unwrap() {
                    let path = entry.unwrap().path();
                    if is_cookie(&root, &path) {
                        fs::remove_file(path).unwrap();
                        return;
                    }
                }
                thread::yield_now();
            }
        });
        cookie_round_trip(dir.path(), Duration::from_secs(30)).unwrap();
        answerer.join().unwrap();
    }
}
