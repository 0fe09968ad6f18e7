//! Full rebuilds: every record read into a fresh file in one transaction,
//! which then replaces the live index the way SQLite allows.

use std::fs;
use std::io;
use std::path::Path;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use mdstore::{FileEntry, Skipped, Store, WalkItem};
use rusqlite::backup::{Backup, StepResult};

use crate::db::{self, RebuildCause};
use crate::error::{Error, Result, SqliteContext};
use crate::location::{IndexPaths, sibling};
use crate::rows;

/// How far a rebuild has got, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Record files read so far.
    pub done: usize,
    /// Record files found by the walk.
    pub total: usize,
}

/// Records each reader thread prepares ahead of the inserts at most.
const QUEUE_RECORDS: usize = 128;

/// Progress is reported every this many records (and at the end).
const PROGRESS_EVERY: usize = 64;

/// The page cache of the build connection: big enough that index pages stay
/// in memory while records stream in, small against the 100 MiB budget.
const BUILD_CACHE_KIB: i64 = 32 * 1024;

/// How long a finished build waits for other writers to let it copy itself in.
const LIVE_LOCK_PATIENCE: Duration = Duration::from_secs(120);

/// What a rebuild did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RebuildReport {
    pub cause: RebuildCause,
    /// Records now in the index.
    pub indexed: usize,
    /// Files that look like records but could not be read as one, and why.
    pub skipped: Vec<Skipped>,
}

/// Builds the index of `store` into `<index>.new` and moves it in. The
/// caller holds the build lock and has closed its own connection to the live
/// file if that file is damaged.
pub(crate) fn rebuild(
    store: &Store,
    paths: &IndexPaths,
    cause: RebuildCause,
    progress: &mut dyn FnMut(Progress),
) -> Result<RebuildReport> {
    let fresh = sibling(&paths.db, ".new");
    remove_if_present(&fresh)?;
    let result = build(store, &fresh, progress).and_then(|(indexed, skipped)| {
        replace_live(paths, &fresh)?;
        Ok(RebuildReport {
            cause,
            indexed,
            skipped,
        })
    });
    if result.is_err() {
        // Best effort: a leftover is removed by the next rebuild anyway.
        let _ = fs::remove_file(&fresh);
    }
    result
}

/// Reads every record into a new database at `path`.
fn build(
    store: &Store,
    path: &Path,
    progress: &mut dyn FnMut(Progress),
) -> Result<(usize, Vec<Skipped>)> {
    let now = rows::now_ns();
    // Stat-only walk first: its entries (paths and stats, about 150 bytes a
    // record) give the progress total; contents are read one at a time.
    let mut entries: Vec<FileEntry> = Vec::new();
    let mut skipped = Vec::new();
    for item in store.walk_parallel(crate::worker_threads()) {
        match item {
            WalkItem::Record(entry) => entries.push(entry),
            WalkItem::Skipped(skip) => skipped.push(skip),
        }
    }
    let total = entries.len();
    progress(Progress { done: 0, total });

    let conn = db::connect(path, true)?;
    // A file nobody else sees until it is complete needs neither a journal
    // nor syncs; it is fsynced once before it replaces the live index.
    conn.execute_batch(&format!(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -{BUILD_CACHE_KIB};"
    ))
    .at(path)?;
    db::create_schema(&conn, path, store.root(), now)?;
    // A watcher's marks made while this build ran land in the old file and
    // are lost when it is replaced: one whole-store mark makes the next
    // sync compare everything, so nothing changed meanwhile is missed.
    conn.execute("INSERT INTO dirty (rel_path) VALUES ('')", [])
        .at(path)?;
    let tx = conn.unchecked_transaction().at(path)?;
    // Reading, parsing and preparing text cost about twice what the inserts
    // do, so reader threads do them (record i on reader i mod n) while this
    // thread inserts, taking records back in order. Bounded queues keep
    // memory flat whatever the store's size.
    let readers = crate::worker_threads();
    let (senders, queues): (Vec<_>, Vec<_>) = (0..readers)
        .map(|_| mpsc::sync_channel(QUEUE_RECORDS))
        .unzip();
    let (indexed, unreadable) = thread::scope(|scope| {
        for (reader, sender) in senders.into_iter().enumerate() {
            let entries = &entries;
            scope.spawn(move || {
                for entry in entries.iter().skip(reader).step_by(readers) {
                    // A failed send means the inserting side stopped.
                    if sender
                        .send(store.read_entry(entry).map(|record| {
                            (
                                rows::Prepared::new(record),
                                rows::Doubts::of(store, entry, now),
                            )
                        }))
                        .is_err()
                    {
                        break;
                    }
                }
            });
        }
        // The queues move into the inserting loop, so that however it ends
        // they are dropped, which releases readers blocked on a full queue.
        insert_in_order(&tx, path, &entries, queues, &mut |done| {
            progress(Progress { done, total })
        })
    })?;
    tx.commit().at(path)?;
    drop(conn);
    fs::File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| Error::io(path, e))?;
    progress(Progress { done: total, total });
    skipped.extend(unreadable);
    skipped.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
    Ok((indexed, skipped))
}

/// Inserts the records the reader threads prepare, in walk order (record i
/// comes from queue i mod n). Returns how many were indexed, with the files
/// that could not be read as records.
fn insert_in_order(
    conn: &rusqlite::Connection,
    path: &Path,
    entries: &[FileEntry],
    queues: Vec<mpsc::Receiver<Result<(rows::Prepared, rows::Doubts), Skipped>>>,
    progress: &mut dyn FnMut(usize),
) -> Result<(usize, Vec<Skipped>)> {
    let mut indexed = 0;
    let mut skipped = Vec::new();
    for (done, entry) in entries.iter().enumerate() {
        // A reader that stopped early panicked; the scope reports it.
        let Ok(item) = queues[done % queues.len()].recv() else {
            break;
        };
        match item {
            Ok((prepared, doubts)) => {
                rows::insert(conn, entry, &prepared, doubts).at(path)?;
                indexed += 1;
            }
            Err(skip) => skipped.push(skip),
        }
        if (done + 1) % PROGRESS_EVERY == 0 {
            progress(done + 1);
        }
    }
    Ok((indexed, skipped))
}

/// Puts the database at `fresh` in place of the live index. A live index
/// that SQLite can open receives it through the online backup API, in one
/// write transaction, so that readers in other processes keep their old
/// snapshot until it commits (renaming over an open database would corrupt
/// their view). A damaged or missing one is deleted with its WAL and
/// shared-memory files and the fresh file renamed in.
fn replace_live(paths: &IndexPaths, fresh: &Path) -> Result<()> {
    match db::file_state(&paths.db)? {
        db::FileState::Sound => copy_into_live(paths, fresh),
        db::FileState::Missing | db::FileState::Damaged(_) => move_into_place(paths, fresh),
    }
}

fn copy_into_live(paths: &IndexPaths, fresh: &Path) -> Result<()> {
    let live = &paths.db;
    let source = db::connect(fresh, false)?;
    let mut dest = db::connect(live, false)?;
    db::set_live_mode(&dest, live)?;
    {
        let backup = Backup::new(&source, &mut dest).at(live)?;
        let start = Instant::now();
        loop {
            match backup.step(-1).at(live)? {
                StepResult::Done => break,
                StepResult::More => {}
                // Another connection is writing; readers never block this.
                StepResult::Busy | StepResult::Locked => {
                    if start.elapsed() > LIVE_LOCK_PATIENCE {
                        return Err(Error::Locked {
                            path: live.clone(),
                            waited: LIVE_LOCK_PATIENCE,
                        });
                    }
                    thread::sleep(Duration::from_millis(10));
                }
                _ => {}
            }
        }
    }
    // The copy went through the WAL; fold it back now if no reader is in
    // the way, without waiting for readers (a TRUNCATE checkpoint would wait
    // for each of them through the busy timeout). Otherwise later commits
    // fold it back and `journal_size_limit` shrinks it.
    dest.busy_timeout(Duration::ZERO).at(live)?;
    let _ = dest.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    drop(source);
    remove_if_present(fresh)
}

fn move_into_place(paths: &IndexPaths, fresh: &Path) -> Result<()> {
    remove_if_present(&paths.db)?;
    // A WAL left beside a deleted index must not be replayed into the new one.
    for file in paths.wal_and_shm() {
        remove_if_present(&file)?;
    }
    fs::rename(fresh, &paths.db).map_err(|e| Error::io(&paths.db, e))?;
    let conn = db::connect(&paths.db, false)?;
    db::set_live_mode(&conn, &paths.db)
}

fn remove_if_present(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(Error::io(path, e)),
        _ => Ok(()),
    }
}

#[cfg(test)]
pub(crate) fn no_progress() -> impl FnMut(Progress) {
    |_| {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_is_copied_into_a_live_wal_index_and_stays_wal() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(&dir.path().join("store")).unwrap();
        let paths = IndexPaths::new(&dir.path().join("cache"), &store);
        fs::create_dir_all(dir.path().join("cache")).unwrap();
        rebuild(&store, &paths, RebuildCause::Missing, &mut no_progress()).unwrap();
        let reader = db::connect(&paths.db, false).unwrap();
        let before: String = reader
            .query_row(
                "SELECT value FROM meta WHERE key = 'built_at_ns'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        rebuild(&store, &paths, RebuildCause::Requested, &mut no_progress()).unwrap();
        let after: String = reader
            .query_row(
                "SELECT value FROM meta WHERE key = 'built_at_ns'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_ne!(before, after);
        let mode: String = reader
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let check: String = reader
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
        assert!(!sibling(&paths.db, ".new").exists());
    }
}
