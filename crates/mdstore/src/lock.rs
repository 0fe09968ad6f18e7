//! The store's write lock: an OS file lock held for the whole of a write.
//!
//! On Unix the lock is taken on the store folder itself, so the store holds
//! no lock file and every process that can see the folder agrees on the
//! lock whatever its environment. Elsewhere a `.memctl.lock` dotfile is used.

use std::fs::{File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

/// A held write lock; released on drop (and by the OS if the process dies).
#[derive(Debug)]
pub struct StoreLock {
    _file: File,
}

/// Why the lock could not be had.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("another memctl process held the write lock of {} for {waited:?}", .root.display())]
    Timeout { root: PathBuf, waited: Duration },
    #[error("cannot open the store's lock: {0}")]
    Io(#[from] io::Error),
    /// The lock was had, but what a killed writer left half-done could not
    /// be finished or undone (`crate::recover`): nothing is written.
    #[error("{}: a write that was interrupted half-way could not be repaired ({source}); nothing was written", .root.display())]
    Interrupted { root: PathBuf, source: io::Error },
}

impl StoreLock {
    /// Takes the exclusive lock on the store at `root`, waiting up to `timeout`.
    pub fn acquire(root: &Path, timeout: Duration) -> Result<StoreLock, LockError> {
        let file = open_lock_file(root)?;
        let start = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(StoreLock { _file: file }),
                Err(TryLockError::WouldBlock) => {}
                Err(TryLockError::Error(e)) => return Err(LockError::Io(e)),
            }
            if start.elapsed() >= timeout {
                return Err(LockError::Timeout {
                    root: root.to_path_buf(),
                    waited: timeout,
                });
            }
            thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(25));
        }
    }
}

#[cfg(unix)]
fn open_lock_file(root: &Path) -> io::Result<File> {
    File::open(root)
}

#[cfg(not(unix))]
fn open_lock_file(root: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(root.join(".memctl.lock"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_locker_times_out_then_gets_it_after_release() {
        let dir = tempfile::tempdir().unwrap();
        let first = StoreLock::acquire(dir.path(), Duration::from_millis(50)).unwrap();
        let err = StoreLock::acquire(dir.path(), Duration::from_millis(30)).unwrap_err();
        assert!(matches!(err, LockError::Timeout { .. }));
        drop(first);
        StoreLock::acquire(dir.path(), Duration::from_millis(30)).unwrap();
    }
}
