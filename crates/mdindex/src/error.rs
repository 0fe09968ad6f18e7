//! What can go wrong with an index, each naming the file concerned.

use std::io;
use std::path::PathBuf;

/// An index error. Every variant names the file it is about.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// SQLite failed on the index file.
    #[error("index {path}: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    /// The index file proved unreadable as a database while in use (not at
    /// open): the caller rebuilds it (see [`Error::is_corrupt`]).
    #[error("index {path} is corrupt: {detail}")]
    Corrupt { path: PathBuf, detail: String },
    /// Other processes kept the index locked for too long.
    #[error("index {path} stayed locked by other processes for {waited:?}")]
    Locked {
        path: PathBuf,
        waited: std::time::Duration,
    },
    /// A file or folder could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// `memctl watch` found another watcher holding the store's watch lock.
    #[error("a watcher already runs for {store} (it holds {lock})")]
    WatcherRunning { store: PathBuf, lock: PathBuf },
    /// The file watcher could not be started.
    #[error("cannot watch {path}: {source}")]
    Watch {
        path: PathBuf,
        #[source]
        source: notify::Error,
    },
    /// The watcher's event stream ended without being asked to stop.
    #[error("the watcher of {store} stopped: {detail}")]
    WatcherStopped { store: PathBuf, detail: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether the index file itself is damaged, so that a rebuild is the cure.
    pub fn is_corrupt(&self) -> bool {
        matches!(self, Error::Corrupt { .. })
    }

    /// Whether another connection held the index's write lock past the
    /// busy timeout (worth retrying).
    pub fn is_busy(&self) -> bool {
        use rusqlite::ErrorCode;
        match self {
            Error::Sqlite { source, .. } => matches!(
                source.sqlite_error_code(),
                Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
            ),
            Error::Locked { .. } => true,
            _ => false,
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Wraps a SQLite error, telling damage to the file apart from other failures.
    pub(crate) fn sqlite(path: impl Into<PathBuf>, source: rusqlite::Error) -> Error {
        let path = path.into();
        if is_damage(&source) {
            Error::Corrupt {
                path,
                detail: source.to_string(),
            }
        } else {
            Error::Sqlite { path, source }
        }
    }
}

/// SQLite's codes for a file that is not (or no longer) a sound database.
pub(crate) fn is_damage(err: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode;
    matches!(
        err.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

/// Attaches the index path to rusqlite results.
pub(crate) trait SqliteContext<T> {
    fn at(self, path: &std::path::Path) -> Result<T>;
}

impl<T> SqliteContext<T> for rusqlite::Result<T> {
    fn at(self, path: &std::path::Path) -> Result<T> {
        self.map_err(|e| Error::sqlite(path, e))
    }
}
