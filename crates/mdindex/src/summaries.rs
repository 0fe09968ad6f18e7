//! The index as a header view of its store: what a write consults (ids,
//! paths, types, descriptions) for every record, without opening a file.
//!
//! A write must know every record's header (SPEC §6 classification and the
//! `MEMORY.md` it regenerates). Reading 100,000 headers costs seconds; a
//! synced index has them already, so writers ask it first and read the
//! files only when there is no usable index.

use std::path::PathBuf;

use jiff::Timestamp;
use mdstore::{Meta, RecordType, Source, Summary};

use crate::Index;
use crate::error::{Result, SqliteContext};

impl Index {
    /// Every indexed record's header, as [`mdstore::Store::read_summary`]
    /// gives it (tags folded to lower case). Sync first
    /// ([`Index::sync`]) for headers that match the files now.
    pub fn summaries(&self) -> Result<Vec<Summary>> {
        self.summaries_where("TRUE")
    }

    /// The headers of the records that carry an `expires` (usually few),
    /// so that a caller can leave out the expired ones without reading the
    /// headers of all the others.
    pub fn expiring(&self) -> Result<Vec<Summary>> {
        self.summaries_where("expires IS NOT NULL")
    }

    fn summaries_where(&self, condition: &str) -> Result<Vec<Summary>> {
        let path = &self.paths.db;
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT rel_path, id, name, type, description, tags, updated_ns, revision, source,
                        expires
                 FROM docs WHERE {condition} ORDER BY rel_path"
            ))
            .at(path)?;
        let rows = stmt
            .query_map([], |row| {
                let tags: String = row.get(5)?;
                let updated: Option<i64> = row.get(6)?;
                let revision: Option<i64> = row.get(7)?;
                let source: String = row.get(8)?;
                let record_type: Option<String> = row.get(3)?;
                Ok(Summary {
                    rel_path: PathBuf::from(row.get::<_, String>(0)?),
                    id: row.get(1)?,
                    meta: Meta {
                        name: Some(row.get(2)?),
                        record_type: record_type.as_deref().and_then(RecordType::parse),
                        description: Some(row.get(4)?),
                        tags: serde_json::from_str(&tags).unwrap_or_default(),
                        updated: updated
                            .and_then(|ns| Timestamp::from_nanosecond(i128::from(ns)).ok()),
                        revision: revision.and_then(|r| u64::try_from(r).ok()),
                        source: Source::parse(&source),
                        expires: row.get(9)?,
                        ..Meta::default()
                    },
                })
            })
            .at(path)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().at(path)
    }
}
