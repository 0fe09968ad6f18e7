//! One record's rows: what `docs` and `fts` hold for it, written and removed
//! in the caller's transaction.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use mdstore::{FileEntry, Record};
use rusqlite::{Connection, OptionalExtension};

/// A file whose mtime is this close to the clock when it is indexed (or
/// ahead of it) may still change without its mtime changing (coarse
/// timestamps: 2 s on FAT, 1 s on some others), so its content is checked
/// again until it is older than this.
pub(crate) const RACY_WINDOW_NS: i64 = 2_000_000_000;

/// The wall clock in nanoseconds since the Unix epoch.
pub(crate) fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Whether a file with this mtime, looked at when the clock read `now_ns`,
/// could still change unseen by its stat.
pub(crate) fn is_racy(mtime_ns: i64, now_ns: i64) -> bool {
    now_ns.saturating_sub(mtime_ns) < RACY_WINDOW_NS
}

/// Whether `entry` could still change unseen by its stat: its mtime or its
/// ctime is too recent. The ctime counts because `cp -p` sets an old mtime
/// on new content, and a ctime tick (a few milliseconds on Linux) can hold
/// two changes.
fn entry_is_racy(entry: &FileEntry, now_ns: i64) -> bool {
    is_racy(entry.mtime_ns.max(entry.ctime_ns), now_ns)
}

/// Why a file's stat may not show its next change, so that a sync must
/// look at its content again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Doubts {
    /// Its mtime was too recent to trust when it was read (see [`is_racy`]).
    pub racy: bool,
    /// It is a symlink: its target changes without an event on its path,
    /// so a watcher's marks never cover it.
    pub linked: bool,
}

impl Doubts {
    /// The doubts about `entry`, looked at when the clock read `now_ns`.
    pub(crate) fn of(store: &mdstore::Store, entry: &FileEntry, now_ns: i64) -> Doubts {
        Doubts {
            racy: entry_is_racy(entry, now_ns),
            linked: std::fs::symlink_metadata(store.root().join(&entry.rel_path))
                .is_ok_and(|m| m.file_type().is_symlink()),
        }
    }
}

/// The key of a record path in the index.
pub(crate) fn rel_key(rel_path: &Path) -> String {
    rel_path.to_string_lossy().into_owned()
}

/// Inode numbers are stored bit for bit in SQLite's signed integers.
pub(crate) fn inode_to_sql(inode: u64) -> i64 {
    i64::from_ne_bytes(inode.to_ne_bytes())
}

/// Sizes are capped at 256 KiB by the store; saturate rather than wrap.
pub(crate) fn size_to_sql(size: u64) -> i64 {
    i64::try_from(size).unwrap_or(i64::MAX)
}

/// What the freshness scan keeps of each indexed file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stat {
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub size: i64,
    pub inode: i64,
}

impl Stat {
    pub(crate) fn of(entry: &FileEntry) -> Stat {
        Stat::from(mdstore::RecordStat::of(entry))
    }
}

impl From<mdstore::RecordStat> for Stat {
    fn from(stat: mdstore::RecordStat) -> Stat {
        Stat {
            mtime_ns: stat.mtime_ns,
            ctime_ns: stat.ctime_ns,
            size: size_to_sql(stat.size),
            inode: inode_to_sql(stat.inode),
        }
    }
}

/// An indexed file as the freshness scan sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Indexed {
    pub stat: Stat,
    pub racy: bool,
}

/// Every indexed file by path, in one query over the covering index
/// `docs_stat`, hashed with foldhash: the keys are file names in the
/// user's own folder, not worth SipHash's defence against chosen collisions.
pub(crate) fn load_stats(
    conn: &Connection,
) -> rusqlite::Result<foldhash::HashMap<String, Indexed>> {
    let mut stmt =
        conn.prepare_cached("SELECT rel_path, mtime_ns, ctime_ns, size, inode, racy FROM docs")?;
    let rows = stmt.query_map([], |row| {
        Ok((
            row.get::<_, String>(0)?,
            Indexed {
                stat: Stat {
                    mtime_ns: row.get(1)?,
                    ctime_ns: row.get(2)?,
                    size: row.get(3)?,
                    inode: row.get(4)?,
                },
                racy: row.get(5)?,
            },
        ))
    })?;
    rows.collect()
}

/// A fingerprint of everything the index takes from a record. Two reads
/// with equal fingerprints index identically, whatever else changed in the
/// file. It hashes the parsed record rather than the file's bytes so that
/// it describes exactly the read that was indexed: a second read for the
/// bytes could see a later version than the one parsed.
pub(crate) fn fingerprint(record: &Record) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    let mut field = |bytes: &[u8]| {
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    let meta = &record.meta;
    field(record.id.as_bytes());
    field(meta.name.as_deref().unwrap_or("").as_bytes());
    field(meta.record_type.map_or("", |t| t.as_str()).as_bytes());
    field(meta.description.as_deref().unwrap_or("").as_bytes());
    field(tags_json(record).as_bytes());
    field(record.body.as_bytes());
    field(&updated_ns(record).unwrap_or(i64::MIN).to_le_bytes());
    field(&meta.revision.map_or(-1, i128::from).to_le_bytes());
    field(record.source().as_str().as_bytes());
    field(meta.expires.as_deref().unwrap_or("").as_bytes());
    *hasher.finalize().as_bytes()
}

/// Tags as stored: lower-cased, in a JSON array (filtered with `json_each`).
fn tags_json(record: &Record) -> String {
    let tags: Vec<String> = record.meta.tags.iter().map(|t| t.to_lowercase()).collect();
    serde_json::Value::from(tags).to_string()
}

fn updated_ns(record: &Record) -> Option<i64> {
    record
        .meta
        .updated
        .and_then(|t| i64::try_from(t.as_nanosecond()).ok())
}

/// What writing a record did to the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Written {
    Added,
    Updated,
    /// Same content; at most its stat or racy flag was refreshed.
    Unchanged,
}

/// A record with everything computed that its rows need: the costly part
/// of indexing (hashing, preparing text), which needs no connection and
/// can run on another thread.
pub(crate) struct Prepared {
    pub record: Record,
    hash: [u8; 32],
    /// `mdwords::index_text` of the FTS columns, in their order.
    fts: [String; 5],
}

impl Prepared {
    pub(crate) fn new(record: Record) -> Prepared {
        let meta = &record.meta;
        let fts = [
            mdwords::index_text(&record.id),
            mdwords::index_text(meta.name.as_deref().unwrap_or(&record.id)),
            mdwords::index_text(meta.description.as_deref().unwrap_or("")),
            mdwords::index_text(&meta.tags.join(" ")),
            mdwords::index_text(&record.body),
        ];
        Prepared {
            hash: fingerprint(&record),
            fts,
            record,
        }
    }
}

/// Inserts a record known not to be indexed yet (a rebuild).
pub(crate) fn insert(
    conn: &Connection,
    entry: &FileEntry,
    prepared: &Prepared,
    doubts: Doubts,
) -> rusqlite::Result<()> {
    let doc = insert_doc(conn, entry, &prepared.record, doubts, &prepared.hash)?;
    insert_fts(conn, doc, &prepared.fts)
}

/// Writes a record read just now, replacing what the index held for its path.
pub(crate) fn upsert(
    conn: &Connection,
    entry: &FileEntry,
    record: Record,
    doubts: Doubts,
) -> rusqlite::Result<Written> {
    let hash = fingerprint(&record);
    let key = rel_key(&entry.rel_path);
    let existing: Option<(i64, Vec<u8>)> = conn
        .prepare_cached("SELECT doc, hash FROM docs WHERE rel_path = ?1")?
        .query_row([&key], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    let written = match existing {
        Some((doc, old_hash)) if old_hash == hash => {
            let stat = Stat::of(entry);
            conn.prepare_cached(
                "UPDATE docs SET mtime_ns = ?2, ctime_ns = ?3, size = ?4, inode = ?5, racy = ?6,
                                 linked = ?7
                 WHERE doc = ?1",
            )?
            .execute((
                doc,
                stat.mtime_ns,
                stat.ctime_ns,
                stat.size,
                stat.inode,
                doubts.racy,
                doubts.linked,
            ))?;
            return Ok(Written::Unchanged);
        }
        Some((doc, _)) => {
            delete_doc(conn, doc)?;
            Written::Updated
        }
        None => Written::Added,
    };
    insert(conn, entry, &Prepared::new(record), doubts)?;
    Ok(written)
}

/// Removes a path from the index; whether it was there.
pub(crate) fn remove(conn: &Connection, rel_path: &str) -> rusqlite::Result<bool> {
    let doc: Option<i64> = conn
        .prepare_cached("SELECT doc FROM docs WHERE rel_path = ?1")?
        .query_row([rel_path], |row| row.get(0))
        .optional()?;
    match doc {
        Some(doc) => delete_doc(conn, doc).map(|()| true),
        None => Ok(false),
    }
}

fn delete_doc(conn: &Connection, doc: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM fts WHERE rowid = ?1")?
        .execute([doc])?;
    conn.prepare_cached("DELETE FROM docs WHERE doc = ?1")?
        .execute([doc])?;
    Ok(())
}

fn insert_doc(
    conn: &Connection,
    entry: &FileEntry,
    record: &Record,
    doubts: Doubts,
    hash: &[u8; 32],
) -> rusqlite::Result<i64> {
    let meta = &record.meta;
    let stat = Stat::of(entry);
    let revision = meta.revision.map(|r| i64::try_from(r).unwrap_or(i64::MAX));
    conn.prepare_cached(
        "INSERT INTO docs (rel_path, id, name, type, description, tags, body, updated_ns, revision,
                           source, expires, mtime_ns, ctime_ns, size, inode, hash, racy, linked)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
    )?
    .execute(rusqlite::params![
        rel_key(&entry.rel_path),
        record.id,
        meta.name.as_deref().unwrap_or(&record.id),
        meta.record_type.map(|t| t.as_str()),
        meta.description.as_deref().unwrap_or(""),
        tags_json(record),
        record.body,
        updated_ns(record),
        revision,
        record.source().as_str(),
        meta.expires,
        stat.mtime_ns,
        stat.ctime_ns,
        stat.size,
        stat.inode,
        &hash[..],
        doubts.racy,
        doubts.linked,
    ])?;
    Ok(conn.last_insert_rowid())
}

fn insert_fts(conn: &Connection, doc: i64, fts: &[String; 5]) -> rusqlite::Result<()> {
    let [id, name, description, tags, body] = fts;
    conn.prepare_cached(
        "INSERT INTO fts (rowid, id, name, description, tags, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(rusqlite::params![doc, id, name, description, tags, body])?;
    Ok(())
}
