//! `reindex --check`: every difference between the index and the files,
//! found without changing either.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;

use mdstore::{Skipped, WalkItem};

use crate::Index;
use crate::error::{Result, SqliteContext};
use crate::rows::{self, Stat};

/// One way the index disagrees with the files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// A record file the index does not have.
    Missing { rel_path: PathBuf },
    /// An indexed path that is no record file (any more).
    Extra { rel_path: PathBuf },
    /// Indexed from another version of the file: what the index holds
    /// differs from what the file says now.
    Stale { rel_path: PathBuf },
    /// The file is the same as indexed, but its stat is not (touched, or
    /// rewritten with the same content), so a search would re-read it.
    Restat { rel_path: PathBuf },
    /// The index file itself fails SQLite's or FTS5's integrity checks.
    Damaged { detail: String },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::Missing { rel_path } => {
                write!(f, "{}: not in the index", rel_path.display())
            }
            Difference::Extra { rel_path } => write!(
                f,
                "{}: in the index, but not a record file",
                rel_path.display()
            ),
            Difference::Stale { rel_path } => write!(
                f,
                "{}: the index holds an older version",
                rel_path.display()
            ),
            Difference::Restat { rel_path } => {
                write!(
                    f,
                    "{}: same content, but changed on disk since indexed",
                    rel_path.display()
                )
            }
            Difference::Damaged { detail } => write!(f, "the index file is damaged: {detail}"),
        }
    }
}

/// What [`Index::check`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// Record files read and compared.
    pub records: usize,
    pub differences: Vec<Difference>,
    /// Record-like files that are not read as records (not differences).
    pub skipped: Vec<Skipped>,
}

impl CheckReport {
    pub fn is_clean(&self) -> bool {
        self.differences.is_empty()
    }
}

impl Index {
    /// Compares the index with every record file, reading each one, and
    /// runs SQLite's and FTS5's integrity checks. Changes nothing.
    pub fn check(&self) -> Result<CheckReport> {
        let path = &self.paths.db;
        let mut report = CheckReport::default();
        let quick: String = self
            .conn
            .query_row("PRAGMA quick_check(1)", [], |row| row.get(0))
            .at(path)?;
        if quick != "ok" {
            report
                .differences
                .push(Difference::Damaged { detail: quick });
            return Ok(report);
        }
        if let Err(e) = self.conn.execute(
            "INSERT INTO fts (fts, rank) VALUES ('integrity-check', 0)",
            [],
        ) {
            report.differences.push(Difference::Damaged {
                detail: e.to_string(),
            });
            return Ok(report);
        }
        let mut indexed: HashMap<String, (Stat, Vec<u8>)> = self
            .conn
            .prepare("SELECT rel_path, mtime_ns, ctime_ns, size, inode, hash FROM docs")
            .and_then(|mut stmt| {
                stmt.query_map([], |row| {
                    let stat = Stat {
                        mtime_ns: row.get(1)?,
                        ctime_ns: row.get(2)?,
                        size: row.get(3)?,
                        inode: row.get(4)?,
                    };
                    Ok((row.get(0)?, (stat, row.get(5)?)))
                })?
                .collect()
            })
            .at(path)?;
        for item in self.store.walk_parallel(crate::worker_threads()) {
            let entry = match item {
                WalkItem::Record(entry) => entry,
                WalkItem::Skipped(skip) => {
                    if indexed.remove(&rows::rel_key(&skip.rel_path)).is_some() {
                        report.differences.push(Difference::Extra {
                            rel_path: skip.rel_path.clone(),
                        });
                    }
                    report.skipped.push(skip);
                    continue;
                }
            };
            let rel_path = entry.rel_path.clone();
            let read = self.store.read_entry(&entry);
            if read.is_ok() {
                report.records += 1;
            }
            let Some((stat, hash)) = indexed.remove(&rows::rel_key(&rel_path)) else {
                match read {
                    Ok(_) => report.differences.push(Difference::Missing { rel_path }),
                    Err(skip) => report.skipped.push(skip),
                }
                continue;
            };
            match read {
                Ok(record) if rows::fingerprint(&record)[..] != hash[..] => {
                    report.differences.push(Difference::Stale { rel_path });
                }
                Ok(_) if stat != Stat::of(&entry) => {
                    report.differences.push(Difference::Restat { rel_path })
                }
                Ok(_) => {}
                Err(skip) => {
                    report.differences.push(Difference::Extra { rel_path });
                    report.skipped.push(skip);
                }
            }
        }
        let mut gone: Vec<PathBuf> = indexed.into_keys().map(PathBuf::from).collect();
        gone.sort();
        report.differences.extend(
            gone.into_iter()
                .map(|rel_path| Difference::Extra { rel_path }),
        );
        Ok(report)
    }
}
