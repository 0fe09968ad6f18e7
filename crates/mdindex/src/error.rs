//! What can go wrong with an index, each naming the file concerned.
//!
//! A message holds its cause's text, and the cause is not also offered as
//! [`std::error::Error::source`]: an error report that prints the chain
//! (anyhow's) would otherwise print it twice.

use std::io;
use std::path::PathBuf;

use crate::db::RebuildCause;
use crate::query::QueryError;

/// An index error. Every variant but [`Error::Query`] names the file it is about.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// SQLite failed on the index file.
    #[error("index {path}: {cause}")]
    Sqlite {
        path: PathBuf,
        cause: rusqlite::Error,
    },
    /// [`crate::Index::open_existing`] found no index it can use as it is.
    #[error("index {path} cannot be used as it is: {cause}")]
    Unusable { path: PathBuf, cause: RebuildCause },
    /// The query cannot be searched for.
    #[error(transparent)]
    Query(#[from] QueryError),
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
    #[error("{path}: {cause}")]
    Io { path: PathBuf, cause: io::Error },
    /// `memctl watch` found another watcher holding the store's watch lock.
    #[error("a watcher already runs for {store} (it holds {lock})")]
    WatcherRunning { store: PathBuf, lock: PathBuf },
    /// The file watcher could not be started.
    #[error("cannot watch {path}: {cause}")]
    Watch { path: PathBuf, cause: notify::Error },
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
            Error::Sqlite { cause, .. } => matches!(
                cause.sqlite_error_code(),
                Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
            ),
            Error::Locked { .. } => true,
            _ => false,
        }
    }

    /// Whether the error comes from the cache folder itself rather than
    /// from the index in it or from the store: it cannot be created,
    /// written or read (a read-only home, a full disk, a file where the
    /// folder should be). A temporary index elsewhere can still answer.
    pub fn is_cache_unusable(&self, cache_dir: &std::path::Path) -> bool {
        use rusqlite::ErrorCode;
        match self {
            Error::Io { path, .. } => path.starts_with(cache_dir),
            Error::Sqlite { cause, .. } => matches!(
                cause.sqlite_error_code(),
                Some(
                    ErrorCode::CannotOpen
                        | ErrorCode::ReadOnly
                        | ErrorCode::DiskFull
                        | ErrorCode::SystemIoFailure
                        | ErrorCode::PermissionDenied
                )
            ),
            _ => false,
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, cause: io::Error) -> Error {
        Error::Io {
            path: path.into(),
            cause,
        }
    }

    /// Wraps a SQLite error, telling damage to the file apart from other failures.
    pub(crate) fn sqlite(path: impl Into<PathBuf>, cause: rusqlite::Error) -> Error {
        let path = path.into();
        if is_damage(&cause) {
            Error::Corrupt {
                path,
                detail: cause.to_string(),
            }
        } else {
            Error::Sqlite { path, cause }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every message of the chain, as an error report prints them.
    fn report(err: &dyn std::error::Error) -> String {
        let mut parts = vec![err.to_string()];
        let mut cause = err.source();
        while let Some(next) = cause {
            parts.push(next.to_string());
            cause = next.source();
        }
        parts.join(": ")
    }

    #[test]
    fn error_prints_its_cause_once() {
        let io = Error::io("/cache/x.sqlite", io::Error::other("disk full"));
        assert_eq!(report(&io), "/cache/x.sqlite: disk full");
        let sqlite = Error::sqlite(
            "/cache/x.sqlite",
            rusqlite::Error::InvalidParameterName("p".into()),
        );
        assert_eq!(report(&sqlite).matches("Invalid parameter name").count(), 1);
    }
}
