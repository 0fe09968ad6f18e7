//! The index file: its schema, how a connection is set up, and whether an
//! existing file can be used or must be rebuilt.

use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use crate::error::{Error, Result, SqliteContext, is_damage};
use crate::location::sibling;

/// Bumped whenever the tables below change, so that an older index is rebuilt.
pub const SCHEMA_VERSION: u32 = 5;

/// How long a statement waits for another connection's write lock. Rebuilds
/// hold it while they copy a new index in (seconds at 100,000 records).
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Documents and tokens of the shared BM25 background (see
/// [`insert_background`]).
pub(crate) const BACKGROUND_DOCS: i64 = 100;
const BACKGROUND_TOKENS: usize = 100;

/// Bytes a write-ahead log is cut back to after a checkpoint.
const WAL_SIZE_LIMIT: i64 = 4 * 1024 * 1024;

/// Meta keys.
pub(crate) const KEY_SCHEMA: &str = "schema_version";
pub(crate) const KEY_TEXT: &str = "text_version";
pub(crate) const KEY_TOKENIZER: &str = "tokenizer";
pub(crate) const KEY_ROOT: &str = "store_root";
pub(crate) const KEY_BUILT: &str = "built_at_ns";
pub(crate) const KEY_UPDATED: &str = "updated_at_ns";

/// The tables every usable index has.
const TABLES: [&str; 4] = ["meta", "docs", "dirty", "fts"];

/// The schema. `docs` keeps what results show (the body for snippets); `fts`
/// is contentless (the text is in `docs` already) and keyed by `docs.doc`.
/// `docs_stat` covers the freshness scan, so that it never reads bodies;
/// `docs_linked` finds the (usually no) symlinked records at once, and
/// `docs_expires` the (usually few) records that carry an `expires`.
/// `dirty` holds the paths a watcher saw change; `seq` only grows
/// (AUTOINCREMENT), so that a sync can clear exactly the marks it has seen,
/// and an empty `rel_path` means "compare the whole store".
fn schema_sql() -> String {
    let tokenizer = crate::fts::TOKENIZER.replace('\'', "''");
    format!(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
         CREATE TABLE docs (
             doc INTEGER PRIMARY KEY,
             rel_path TEXT NOT NULL UNIQUE,
             id TEXT NOT NULL,
             name TEXT NOT NULL,
             type TEXT,
             description TEXT NOT NULL,
             tags TEXT NOT NULL,
             body TEXT NOT NULL,
             updated_ns INTEGER,
             revision INTEGER,
             source TEXT NOT NULL,
             expires TEXT,
             mtime_ns INTEGER NOT NULL,
             ctime_ns INTEGER NOT NULL,
             size INTEGER NOT NULL,
             inode INTEGER NOT NULL,
             hash BLOB NOT NULL,
             racy INTEGER NOT NULL,
             linked INTEGER NOT NULL
         );
         CREATE INDEX docs_stat ON docs (rel_path, mtime_ns, ctime_ns, size, inode, racy);
         CREATE INDEX docs_updated ON docs (updated_ns);
         CREATE INDEX docs_linked ON docs (rel_path) WHERE linked;
         CREATE INDEX docs_expires ON docs (rel_path) WHERE expires IS NOT NULL;
         CREATE TABLE dirty (seq INTEGER PRIMARY KEY AUTOINCREMENT, rel_path TEXT NOT NULL UNIQUE);
         CREATE VIRTUAL TABLE fts USING fts5 (
             id, name, description, tags, body,
             content = '', contentless_delete = 1, tokenize = '{tokenizer}'
         );"
    )
}

/// Why an index file is (re)built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RebuildCause {
    /// There is no index file yet (or it was deleted).
    Missing,
    /// The caller asked for it (`memctl reindex`).
    Requested,
    /// The file is damaged: not a database, truncated, or SQLite reports corruption.
    Damaged(String),
    /// A database, but not one of ours (an empty file, a missing table).
    Unrecognised(String),
    SchemaVersion {
        found: String,
        expected: u32,
    },
    TextVersion {
        found: String,
        expected: u32,
    },
    Tokenizer {
        found: String,
        expected: String,
    },
    /// Built for another store (a hash collision, or a store moved in place).
    StoreRoot {
        found: String,
        expected: String,
    },
}

impl fmt::Display for RebuildCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RebuildCause::Missing => f.write_str("there was no index file"),
            RebuildCause::Requested => f.write_str("a rebuild was requested"),
            RebuildCause::Damaged(detail) => write!(f, "the index file was damaged ({detail})"),
            RebuildCause::Unrecognised(detail) => {
                write!(f, "the index file was not a memctl index ({detail})")
            }
            RebuildCause::SchemaVersion { found, expected } => {
                write!(
                    f,
                    "index schema version {found}, this memctl uses {expected}"
                )
            }
            RebuildCause::TextVersion { found, expected } => {
                write!(f, "index text version {found}, this memctl uses {expected}")
            }
            RebuildCause::Tokenizer { found, expected } => {
                write!(
                    f,
                    "index tokenizer {found:?}, this memctl uses {expected:?}"
                )
            }
            RebuildCause::StoreRoot { found, expected } => {
                write!(f, "the index was built for {found}, not {expected}")
            }
        }
    }
}

/// Opens a connection with the settings every index connection uses.
///
/// The index says what the user's records hold: it is the owner's alone
/// (0600), made so before SQLite opens it, which gives its WAL and
/// shared-memory files the database file's mode.
pub(crate) fn connect(path: &Path, create: bool) -> Result<Connection> {
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
        mdstore::atomic::open_private(
            path,
            fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true),
        )
        .map_err(|e| Error::io(path, e))?;
    }
    for file in [
        path.to_path_buf(),
        sibling(path, "-wal"),
        sibling(path, "-shm"),
    ] {
        mdstore::atomic::keep_private(&file).map_err(|e| Error::io(&file, e))?;
    }
    let conn = Connection::open_with_flags(path, flags).at(path)?;
    conn.busy_timeout(BUSY_TIMEOUT).at(path)?;
    Ok(conn)
}

/// Switches a live index to WAL (readers never wait for a writer, and see
/// the old index while a rebuild is copied in) with `synchronous=NORMAL`
/// (durable enough for a cache that can be rebuilt).
pub(crate) fn set_live_mode(conn: &Connection, path: &Path) -> Result<()> {
    // The pragma answers the mode it got; a file system without shared
    // memory keeps the old one, which is slower for concurrent use but correct.
    let _mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
        .at(path)?;
    conn.pragma_update(None, "synchronous", "NORMAL").at(path)?;
    // A WAL that grew (a rebuild copies the whole index through it) is cut
    // back to this size when it is next reset.
    conn.pragma_update(None, "journal_size_limit", WAL_SIZE_LIMIT)
        .at(path)
}

/// Creates the schema and the meta rows in a fresh, empty database.
pub(crate) fn create_schema(
    conn: &Connection,
    path: &Path,
    store_root: &Path,
    now_ns: i64,
) -> Result<()> {
    conn.execute_batch(&schema_sql()).at(path)?;
    let root = store_root.to_string_lossy();
    let rows: [(&str, String); 6] = [
        (KEY_SCHEMA, SCHEMA_VERSION.to_string()),
        (KEY_TEXT, mdwords::TEXT_VERSION.to_string()),
        (KEY_TOKENIZER, crate::fts::TOKENIZER.to_string()),
        (KEY_ROOT, root.into_owned()),
        (KEY_BUILT, now_ns.to_string()),
        (KEY_UPDATED, now_ns.to_string()),
    ];
    for (key, value) in rows {
        set_meta(conn, path, key, &value)?;
    }
    insert_background(conn, path)
}

/// Background documents: every index's BM25 statistics (its document count
/// and average length) start from the same [`BACKGROUND_DOCS`] documents of
/// [`BACKGROUND_TOKENS`] tokens that no query matches (rowids below zero,
/// with no `docs` row, so they are never returned).
///
/// FTS5 floors the IDF of a word that most rows contain at 1e-6, so in a
/// small store a record all about a word everyone mentions scored about 0,
/// below a passing mention of the same word in a larger store, and the
/// workspace and global results, merged by score, came out in the wrong
/// order. With the shared background, IDF and length normalisation mean
/// nearly the same in stores of any size; in a large store the background
/// is negligible. On the retrieval evaluation (docs/RETRIEVAL.md's corpora)
/// it left recall@5/10 and MRR@10 unchanged at 200 records and raised
/// MRR@10 on 25- and 60-record subsets (0.964 to 1.000, 0.941 to 0.973).
fn insert_background(conn: &Connection, path: &Path) -> Result<()> {
    // Private-use characters: token characters to every tokenizer, and
    // nothing a record's prepared text contains.
    let filler = vec!["\u{E000}\u{E001}\u{E002}"; BACKGROUND_TOKENS].join(" ");
    let mut insert = conn
        .prepare("INSERT INTO fts (rowid, body) VALUES (?1, ?2)")
        .at(path)?;
    for n in 1..=BACKGROUND_DOCS {
        insert.execute((-n, &filler)).at(path)?;
    }
    Ok(())
}

pub(crate) fn set_meta(conn: &Connection, path: &Path, key: &str, value: &str) -> Result<()> {
    conn.prepare_cached("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)")
        .and_then(|mut stmt| stmt.execute((key, value)))
        .at(path)?;
    Ok(())
}

pub(crate) fn get_meta(conn: &Connection, path: &Path, key: &str) -> Result<Option<String>> {
    conn.prepare_cached("SELECT value FROM meta WHERE key = ?1")
        .and_then(|mut stmt| stmt.query_row([key], |row| row.get(0)).optional())
        .at(path)
}

/// What probing an index file found.
#[derive(Debug)]
pub(crate) enum Probed {
    /// Open, and usable as it is.
    Usable(Connection),
    /// It must be (re)built first, and why.
    Rebuild(RebuildCause),
}

/// What an index file is, as a SQLite file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FileState {
    Missing,
    /// Not a database, truncated, or damaged where SQLite looked.
    Damaged(String),
    /// SQLite opens it and reads its schema (it may still be foreign or old).
    Sound,
}

/// Classifies the file at `path` with cheap checks only: the header, then
/// opening it and reading its schema.
pub(crate) fn file_state(path: &Path) -> Result<FileState> {
    Ok(match open_checked(path)? {
        Probed::Rebuild(RebuildCause::Missing) => FileState::Missing,
        Probed::Rebuild(RebuildCause::Damaged(detail)) => FileState::Damaged(detail),
        Probed::Rebuild(_) | Probed::Usable(_) => FileState::Sound,
    })
}

/// Opens an existing index if it can be used as it is, or says why it must
/// be rebuilt. Only cheap checks run here (the file header, the schema and
/// the meta rows): damage deeper in the file shows up as [`Error::Corrupt`]
/// at first use, and `PRAGMA quick_check`, which reads every page, runs only
/// in [`crate::Index::check`].
pub(crate) fn probe(path: &Path, store_root: &Path) -> Result<Probed> {
    let conn = match open_checked(path)? {
        Probed::Usable(conn) => conn,
        rebuild => return Ok(rebuild),
    };
    Ok(match read_versions(&conn, store_root) {
        Ok(None) => Probed::Usable(conn),
        Ok(Some(cause)) => Probed::Rebuild(cause),
        Err(e) if is_damage(&e) => Probed::Rebuild(RebuildCause::Damaged(e.to_string())),
        Err(e) => Probed::Rebuild(RebuildCause::Unrecognised(e.to_string())),
    })
}

/// Checks the header, opens the file in live mode and reads its schema.
fn open_checked(path: &Path) -> Result<Probed> {
    match check_header(path) {
        Ok(None) => {}
        Ok(Some(cause)) => return Ok(Probed::Rebuild(cause)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Probed::Rebuild(RebuildCause::Missing));
        }
        Err(e) => return Err(Error::io(path, e)),
    }
    let opened = connect(path, false).and_then(|conn| {
        set_live_mode(&conn, path)?;
        conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))
            .at(path)?;
        Ok(conn)
    });
    match opened {
        Ok(conn) => Ok(Probed::Usable(conn)),
        Err(Error::Corrupt { detail, .. }) => Ok(Probed::Rebuild(RebuildCause::Damaged(detail))),
        Err(e) => Err(e),
    }
}

/// Compares the meta rows with this build; `None` when they all match.
fn read_versions(conn: &Connection, store_root: &Path) -> rusqlite::Result<Option<RebuildCause>> {
    let placeholders = vec!["?"; TABLES.len()].join(", ");
    let tables: i64 = conn.query_row(
        &format!(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ({placeholders})"
        ),
        rusqlite::params_from_iter(TABLES),
        |row| row.get(0),
    )?;
    if usize::try_from(tables).ok() != Some(TABLES.len()) {
        return Ok(Some(RebuildCause::Unrecognised(format!(
            "{tables} of its {} tables",
            TABLES.len()
        ))));
    }
    let mut values: std::collections::HashMap<&str, String> = std::collections::HashMap::new();
    for key in [KEY_SCHEMA, KEY_TEXT, KEY_TOKENIZER, KEY_ROOT] {
        let value: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
                row.get(0)
            })
            .optional()?;
        match value {
            Some(value) => values.insert(key, value),
            None => {
                return Ok(Some(RebuildCause::Unrecognised(format!(
                    "its meta table has no {key}"
                ))));
            }
        };
    }
    let mut meta = |key: &str| values.remove(key).unwrap_or_default();
    let schema = meta(KEY_SCHEMA);
    if schema != SCHEMA_VERSION.to_string() {
        return Ok(Some(RebuildCause::SchemaVersion {
            found: schema,
            expected: SCHEMA_VERSION,
        }));
    }
    let text_version = meta(KEY_TEXT);
    if text_version != mdwords::TEXT_VERSION.to_string() {
        return Ok(Some(RebuildCause::TextVersion {
            found: text_version,
            expected: mdwords::TEXT_VERSION,
        }));
    }
    let tokenizer = meta(KEY_TOKENIZER);
    if tokenizer != crate::fts::TOKENIZER {
        return Ok(Some(RebuildCause::Tokenizer {
            found: tokenizer,
            expected: crate::fts::TOKENIZER.to_string(),
        }));
    }
    let root = meta(KEY_ROOT);
    let expected = store_root.to_string_lossy();
    if root != expected {
        return Ok(Some(RebuildCause::StoreRoot {
            found: root,
            expected: expected.into_owned(),
        }));
    }
    Ok(None)
}

/// The 100-byte SQLite header: its magic, page size and page count must fit
/// the file, which catches a foreign file and a truncated one without
/// reading further. `Ok(None)` when it looks sound.
fn check_header(path: &Path) -> io::Result<Option<RebuildCause>> {
    let mut file = fs::File::open(path)?;
    let len = file.metadata()?.len();
    let damaged = |detail: String| Ok(Some(RebuildCause::Damaged(detail)));
    if len == 0 {
        return Ok(Some(RebuildCause::Unrecognised("the file is empty".into())));
    }
    let mut header = [0u8; 100];
    if len < header.len() as u64 {
        return damaged(format!("only {len} bytes"));
    }
    file.read_exact(&mut header)?;
    if &header[..16] != b"SQLite format 3\0" {
        return damaged("file is not a database".into());
    }
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65536,
        n => u64::from(n),
    };
    if !(512..=65536).contains(&page_size) || !page_size.is_power_of_two() {
        return damaged(format!("bad page size {page_size}"));
    }
    let be32 = |at: usize| {
        u32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    // The page count is valid only when the "version valid for" number
    // matches the change counter (SQLite file format, §1.3.7).
    let pages = u64::from(be32(28));
    if be32(92) == be32(24) && pages > 0 && len < pages * page_size {
        return damaged(format!("truncated: {len} bytes of {}", pages * page_size));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rebuild_cause(probed: Probed) -> RebuildCause {
        match probed {
            Probed::Rebuild(cause) => cause,
            Probed::Usable(_) => panic!("usable"),
        }
    }

    fn fresh(dir: &Path) -> std::path::PathBuf {
        let path = dir.join("i.sqlite");
        let conn = connect(&path, true).unwrap();
        set_live_mode(&conn, &path).unwrap();
        create_schema(&conn, &path, Path::new("/store"), 0).unwrap();
        path
    }

    #[test]
    fn bundled_sqlite_has_fts5_with_contentless_delete() {
        let conn = Connection::open_in_memory().unwrap();
        let version: String = conn
            .query_row("SELECT sqlite_version()", [], |r| r.get(0))
            .unwrap();
        let parts: Vec<u32> = version.split('.').map(|p| p.parse().unwrap()).collect();
        assert!(
            parts[0] == 3 && parts[1] >= 43,
            "contentless_delete needs SQLite 3.43, have {version}"
        );
        create_schema(&conn, Path::new(":memory:"), Path::new("/s"), 0).unwrap();
        conn.execute(
            "INSERT INTO fts (rowid, id, name, description, tags, body) VALUES (7, 'a', 'a', 'alpha', '', 'beta gamma')",
            [],
        )
        .unwrap();
        let score: f64 = conn
            .query_row(
                "SELECT bm25(fts) FROM fts WHERE fts MATCH 'beta'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(score < 0.0);
        conn.execute("DELETE FROM fts WHERE rowid = 7", []).unwrap();
        let left: i64 = conn
            .query_row("SELECT count(*) FROM fts WHERE fts MATCH 'beta'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(left, 0);
    }

    #[test]
    fn the_hot_queries_never_scan_the_docs_table() {
        let conn = Connection::open_in_memory().unwrap();
        create_schema(&conn, Path::new(":memory:"), Path::new("/s"), 0).unwrap();
        let plan = |sql: &str| -> String {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let rows = stmt.query_map([], |row| row.get::<_, String>(3)).unwrap();
            rows.map(Result::unwrap).collect::<Vec<_>>().join("; ")
        };
        let stat_scan = plan("SELECT rel_path, mtime_ns, ctime_ns, size, inode, racy FROM docs");
        assert!(
            stat_scan.contains("COVERING INDEX docs_stat"),
            "{stat_scan}"
        );
        let linked = plan("SELECT rel_path FROM docs WHERE linked");
        assert!(linked.contains("docs_linked"), "{linked}");
        let by_path = plan("SELECT doc, hash FROM docs WHERE rel_path = 'a.md'");
        assert!(by_path.contains("USING INDEX"), "{by_path}");
    }

    #[test]
    fn a_fresh_index_probes_usable() {
        let dir = tempfile::tempdir().unwrap();
        let path = fresh(dir.path());
        assert!(matches!(
            probe(&path, Path::new("/store")).unwrap(),
            Probed::Usable(_)
        ));
    }

    #[test]
    fn probe_names_why_an_index_cannot_be_used() {
        let dir = tempfile::tempdir().unwrap();
        let cause = |path: &Path, root: &str| rebuild_cause(probe(path, Path::new(root)).unwrap());

        assert_eq!(
            cause(&dir.path().join("none.sqlite"), "/store"),
            RebuildCause::Missing
        );

        let path = fresh(dir.path());
        assert!(matches!(
            cause(&path, "/elsewhere"),
            RebuildCause::StoreRoot { .. }
        ));

        let conn = connect(&path, false).unwrap();
        set_meta(&conn, &path, KEY_TEXT, "0").unwrap();
        assert!(matches!(
            cause(&path, "/store"),
            RebuildCause::TextVersion { .. }
        ));
        set_meta(&conn, &path, KEY_SCHEMA, "0").unwrap();
        assert!(matches!(
            cause(&path, "/store"),
            RebuildCause::SchemaVersion { .. }
        ));
        conn.execute("DELETE FROM meta WHERE key = ?1", [KEY_SCHEMA])
            .unwrap();
        assert_eq!(
            cause(&path, "/store"),
            RebuildCause::Unrecognised("its meta table has no schema_version".into())
        );
        drop(conn);

        let garbage = dir.path().join("garbage.sqlite");
        fs::write(&garbage, vec![0x5a; 8192]).unwrap();
        assert!(matches!(
            cause(&garbage, "/store"),
            RebuildCause::Damaged(_)
        ));

        let empty = dir.path().join("empty.sqlite");
        fs::write(&empty, b"").unwrap();
        assert!(matches!(
            cause(&empty, "/store"),
            RebuildCause::Unrecognised(_)
        ));
    }

    #[test]
    fn probe_sees_a_truncated_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = fresh(dir.path());
        let conn = connect(&path, false).unwrap();
        for i in 0..200 {
            conn.execute(
                "INSERT INTO docs (rel_path, id, name, description, tags, body, source, mtime_ns, ctime_ns, size, inode, hash, racy, linked)
                 VALUES (?1, 'x', 'x', 'x', '[]', ?2, 'user', 0, 0, 0, 0, x'', 0, 0)",
                (format!("{i}.md"), "body text ".repeat(100)),
            )
            .unwrap();
        }
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        drop(conn);
        let len = fs::metadata(&path).unwrap().len();
        fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(len / 2)
            .unwrap();
        assert!(matches!(
            rebuild_cause(probe(&path, Path::new("/store")).unwrap()),
            RebuildCause::Damaged(_)
        ));
    }
}
