//! Freshness: bringing the index up to date with the files before a search.
//!
//! Without a ready watcher, the store is walked (stat only, through
//! [`mdstore::Store::walk_quick`]: each file statted by its directory entry,
//! on every worker thread) and compared with the index's stats, loaded in
//! one query into a hash map while the walk runs; only what differs is read. With
//! one, only the paths it marked dirty are read (no walk, no stat of the
//! store), after a sync-cookie round trip proves it has seen every change
//! made before the search started (see [`crate::liveness`]).

use std::fs;
use std::path::{Path, PathBuf};
use std::thread;

use mdstore::{Met, Skipped, WalkItem};
use rusqlite::{Connection, TransactionBehavior};

use crate::Index;
use crate::db;
use crate::error::{Result, SqliteContext};
use crate::liveness::{self, WatcherState};
use crate::rebuild::RebuildReport;
use crate::rows::{self, Stat, Written};

/// How a sync found what to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyncMode {
    /// The whole store was walked and compared with the index.
    Compared(CompareReason),
    /// Only the paths a ready watcher marked were read.
    Dirty { marks: usize },
    /// One path was re-read on request ([`Index::note_changed`]).
    OnePath,
}

/// Why a sync compared the whole store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompareReason {
    /// No ready watcher: the normal path.
    NoWatcher,
    /// A watcher runs but has not finished its start-up sync.
    WatcherStarting,
    /// The watcher asked for it (event queue overflow, a watcher error, a
    /// folder created or moved, the index rebuilt under it).
    WatcherRescan,
    /// The watcher did not acknowledge the sync cookie; the text says why.
    WatcherSilent(String),
    /// A watcher's own start-up sync.
    WatcherStart,
}

/// What a sync did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncReport {
    pub mode: SyncMode,
    pub added: usize,
    pub updated: usize,
    pub removed: usize,
    /// Record-like files that could not be read as records, and why.
    pub skipped: Vec<Skipped>,
    /// Present when the index file had been deleted since this `Index` was
    /// opened and was rebuilt first.
    pub rebuilt: Option<RebuildReport>,
}

impl SyncReport {
    fn new(mode: SyncMode) -> SyncReport {
        SyncReport {
            mode,
            added: 0,
            updated: 0,
            removed: 0,
            skipped: Vec::new(),
            rebuilt: None,
        }
    }

    /// Whether the index changed.
    pub fn changed(&self) -> bool {
        self.added + self.updated + self.removed > 0
    }

    /// A line worth showing a user: set when a running watcher could not
    /// be relied on and the whole store was compared instead.
    pub fn notice(&self) -> Option<String> {
        match &self.mode {
            SyncMode::Compared(CompareReason::WatcherSilent(why)) => {
                Some(format!("{why}; compared the whole store instead"))
            }
            _ => None,
        }
    }
}

/// One path to bring up to date.
struct Refresh<'a> {
    conn: &'a Connection,
    report: &'a mut SyncReport,
}

impl Index {
    /// Brings the index up to date with the files as they are now (see the
    /// module documentation for how). Returns [`crate::Error::Corrupt`] if the
    /// index file proves damaged; [`crate::search_store`] handles that.
    pub fn sync(&mut self) -> Result<SyncReport> {
        let mut rebuilt = None;
        if let Some(opened) = self.follow_replacement()? {
            *self = opened.index;
            rebuilt = opened.rebuilt;
        }
        let mut report = match liveness::watcher_state(&self.paths) {
            WatcherState::Absent => self.sync_compare(CompareReason::NoWatcher),
            WatcherState::Starting => self.sync_compare(CompareReason::WatcherStarting),
            WatcherState::Ready => {
                match liveness::cookie_round_trip(self.store.root(), liveness::COOKIE_PATIENCE) {
                    Ok(()) => self.sync_dirty(),
                    Err(why) => self.sync_compare(CompareReason::WatcherSilent(why)),
                }
            }
        }?;
        report.rebuilt = rebuilt;
        Ok(report)
    }

    /// Re-reads one record path now (after memctl wrote or removed it), so
    /// that the index never lags memctl's own writes.
    pub fn note_changed(&mut self, rel_path: &Path) -> Result<SyncReport> {
        let path = self.paths.db.clone();
        let mut report = SyncReport::new(SyncMode::OnePath);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .at(&path)?;
        Refresh {
            conn: &tx,
            report: &mut report,
        }
        .path(&self.store, rel_path)
        .at(&path)?;
        finish(&tx, &path, &report)?;
        tx.commit().at(&path)?;
        Ok(report)
    }

    /// Re-reads the paths a ready watcher marked dirty. A whole-store mark,
    /// or a mark on what is now a folder (whose new files the watcher may
    /// have missed), turns it into a whole-store compare.
    pub(crate) fn sync_dirty(&mut self) -> Result<SyncReport> {
        let path = self.paths.db.clone();
        let marks: Vec<(i64, String)> = self
            .conn
            .prepare_cached("SELECT seq, rel_path FROM dirty ORDER BY seq")
            .and_then(|mut stmt| {
                stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect()
            })
            .at(&path)?;
        let root = self.store.root();
        let needs_compare = marks.iter().any(|(_, rel)| {
            rel.is_empty() || fs::symlink_metadata(root.join(rel)).is_ok_and(|m| m.is_dir())
        });
        if needs_compare {
            return self.sync_compare(CompareReason::WatcherRescan);
        }
        // Symlinks change with their targets, which send no event for them.
        let linked: Vec<String> = self
            .conn
            .prepare_cached("SELECT rel_path FROM docs WHERE linked")
            .and_then(|mut stmt| stmt.query_map([], |row| row.get(0))?.collect())
            .at(&path)?;
        let mut report = SyncReport::new(SyncMode::Dirty { marks: marks.len() });
        if marks.is_empty() && linked.is_empty() {
            return Ok(report);
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .at(&path)?;
        let mut refresh = Refresh {
            conn: &tx,
            report: &mut report,
        };
        for (_, rel) in &marks {
            refresh.path(&self.store, Path::new(rel)).at(&path)?;
            // A vanished folder: the records indexed under it.
            for below in indexed_below(&tx, rel).at(&path)? {
                refresh.path(&self.store, Path::new(&below)).at(&path)?;
            }
        }
        for rel in &linked {
            refresh.path(&self.store, Path::new(rel)).at(&path)?;
        }
        if let Some(&(last_seq, _)) = marks.last() {
            tx.execute("DELETE FROM dirty WHERE seq <= ?1", [last_seq])
                .at(&path)?;
        }
        finish(&tx, &path, &report)?;
        tx.commit().at(&path)?;
        Ok(report)
    }

    /// Walks the store (stat only), compares it with the index and re-reads
    /// what differs, plus the racy entries whose stat cannot be trusted yet.
    pub(crate) fn sync_compare(&mut self, reason: CompareReason) -> Result<SyncReport> {
        let path = self.paths.db.clone();
        let mut report = SyncReport::new(SyncMode::Compared(reason));
        // Marks up to here are covered by the walk below; later ones are kept.
        let last_seq: Option<i64> = self
            .conn
            .query_row("SELECT max(seq) FROM dirty", [], |row| row.get(0))
            .at(&path)?;
        // The walk (stat calls) and the index's stats (one query) overlap.
        let store = &self.store;
        let (walked, indexed) = thread::scope(|scope| {
            let walk = scope.spawn(|| store.walk_quick(crate::worker_threads()));
            let indexed = rows::load_stats(&self.conn);
            let walked = walk
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (walked, indexed)
        });
        let mut indexed = indexed.at(&path)?;
        let mut to_read: Vec<PathBuf> = Vec::new();
        walked.for_each(|met| match met {
            Met::Record(rel, stat) => match indexed.remove(rel) {
                Some(known) if known.stat == Stat::from(stat) && !known.racy => {}
                _ => to_read.push(PathBuf::from(rel)),
            },
            Met::Item(WalkItem::Record(entry)) => {
                match indexed.remove(&rows::rel_key(&entry.rel_path)) {
                    Some(known) if known.stat == Stat::of(&entry) && !known.racy => {}
                    _ => to_read.push(entry.rel_path),
                }
            }
            Met::Item(WalkItem::Skipped(skip)) => {
                if indexed.remove(&rows::rel_key(&skip.rel_path)).is_some() {
                    to_read.push(skip.rel_path);
                } else {
                    report.skipped.push(skip);
                }
            }
        });
        // The walk is unordered; what is reported and read is not.
        report.skipped.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
        // Indexed but not found by the walk: deleted or renamed away.
        to_read.extend(indexed.into_keys().map(PathBuf::from));
        to_read.sort_unstable();
        if to_read.is_empty() && last_seq.is_none() {
            return Ok(report);
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .at(&path)?;
        let mut refresh = Refresh {
            conn: &tx,
            report: &mut report,
        };
        for rel in &to_read {
            refresh.path(&self.store, rel).at(&path)?;
        }
        if let Some(last_seq) = last_seq {
            tx.execute("DELETE FROM dirty WHERE seq <= ?1", [last_seq])
                .at(&path)?;
        }
        finish(&tx, &path, &report)?;
        tx.commit().at(&path)?;
        Ok(report)
    }
}

impl Refresh<'_> {
    /// Makes the index agree with the file at `rel_path` as it is now:
    /// stat, then read (so that the stored stat is never newer than the
    /// content read), then write, or remove the path if it is gone or no
    /// longer readable as a record.
    fn path(&mut self, store: &mdstore::Store, rel_path: &Path) -> rusqlite::Result<()> {
        let key = rows::rel_key(rel_path);
        if store
            .record_rel_path(&store.root().join(rel_path))
            .is_none()
        {
            if rows::remove(self.conn, &key)? {
                self.report.removed += 1;
            }
            return Ok(());
        }
        // Taken before the stat, so that "racy" errs on the safe side.
        let now = rows::now_ns();
        let entry = match store.stat(rel_path) {
            Ok(Some(entry)) => entry,
            Ok(None) => {
                if rows::remove(self.conn, &key)? {
                    self.report.removed += 1;
                }
                return Ok(());
            }
            Err(reason) => {
                self.skip(
                    &key,
                    Skipped {
                        rel_path: rel_path.to_path_buf(),
                        reason,
                    },
                )?;
                return Ok(());
            }
        };
        match store.read_entry(&entry) {
            Ok(record) => match rows::upsert(
                self.conn,
                &entry,
                record,
                rows::Doubts::of(store, &entry, now),
            )? {
                Written::Added => self.report.added += 1,
                Written::Updated => self.report.updated += 1,
                Written::Unchanged => {}
            },
            Err(skip) => self.skip(&key, skip)?,
        }
        Ok(())
    }

    fn skip(&mut self, key: &str, skip: Skipped) -> rusqlite::Result<()> {
        if rows::remove(self.conn, key)? {
            self.report.removed += 1;
        }
        self.report.skipped.push(skip);
        Ok(())
    }
}

/// The indexed record paths inside folder `rel` (none when `rel` is a file).
fn indexed_below(conn: &Connection, rel: &str) -> rusqlite::Result<Vec<String>> {
    let separator = std::path::MAIN_SEPARATOR;
    let Some(after_separator) = char::from_u32(u32::from(separator) + 1) else {
        return Ok(Vec::new());
    };
    // Every path that starts with `rel/` sorts between these two (TEXT
    // compares bytewise with the default collation).
    let low = format!("{rel}{separator}");
    let high = format!("{rel}{after_separator}");
    let mut stmt =
        conn.prepare_cached("SELECT rel_path FROM docs WHERE rel_path >= ?1 AND rel_path < ?2")?;
    stmt.query_map([low, high], |row| row.get(0))?.collect()
}

/// Records when the index last changed.
fn finish(conn: &Connection, path: &Path, report: &SyncReport) -> Result<()> {
    if report.changed() {
        db::set_meta(conn, path, db::KEY_UPDATED, &rows::now_ns().to_string())?;
    }
    Ok(())
}
