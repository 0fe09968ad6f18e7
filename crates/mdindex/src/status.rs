//! `memctl status`: the state of a store's index.

use std::fs;
use std::path::PathBuf;

use jiff::Timestamp;
use serde::Serialize;

use crate::Index;
use crate::db;
use crate::error::{Result, SqliteContext};
use crate::liveness::{self, WatcherState};

/// The state of one index.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IndexStatus {
    /// The SQLite file.
    pub path: PathBuf,
    /// The file and its write-ahead log, in bytes.
    pub size_bytes: u64,
    pub records: u64,
    /// When the index was last rebuilt (RFC 3339).
    pub built_at: Option<String>,
    /// When a sync last changed it (RFC 3339).
    pub updated_at: Option<String>,
    pub watcher: WatcherState,
    /// Paths a watcher marked that no search has re-read yet.
    pub pending_marks: u64,
    pub schema_version: u32,
}

impl Index {
    pub fn status(&self) -> Result<IndexStatus> {
        let path = &self.paths.db;
        let size_of = |p: &PathBuf| fs::metadata(p).map_or(0, |m| m.len());
        let [wal, _shm] = self.paths.wal_and_shm();
        let count = |sql: &str| -> Result<u64> {
            let n: i64 = self.conn.query_row(sql, [], |row| row.get(0)).at(path)?;
            Ok(u64::try_from(n).unwrap_or(0))
        };
        let time = |key: &str| -> Result<Option<String>> {
            Ok(db::get_meta(&self.conn, path, key)?
                .and_then(|v| v.parse::<i128>().ok())
                .and_then(|ns| Timestamp::from_nanosecond(ns).ok())
                .map(|t| t.to_string()))
        };
        Ok(IndexStatus {
            path: path.clone(),
            size_bytes: size_of(path) + size_of(&wal),
            records: count("SELECT count(*) FROM docs")?,
            built_at: time(db::KEY_BUILT)?,
            updated_at: time(db::KEY_UPDATED)?,
            watcher: liveness::watcher_state(&self.paths),
            pending_marks: count("SELECT count(*) FROM dirty")?,
            schema_version: db::SCHEMA_VERSION,
        })
    }
}
