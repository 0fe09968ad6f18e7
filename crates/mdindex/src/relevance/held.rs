//! Which query terms each hit holds, decided by FTS5 itself on a small
//! temporary table that holds only the hits' text (from `docs`, prepared
//! as the index prepares it, under the index's tokenizer). Asking the index
//! instead ("does row 42 match `deploy`?") read the word's whole list of
//! rows each time, and a word most records contain has thousands; matching
//! the text in our own code instead would have to copy every folding rule
//! of FTS5's tokenizer (diacritics only on Latin letters, marks as
//! separators elsewhere, final sigma), and got scripts wrong. A hit with a
//! long body is the exception: the store's index is asked about it.

use crate::error::{Result, SqliteContext};
use crate::{Hit, Index};

/// A hit whose body is longer than this is asked about in the store's index
/// instead of copied: preparing and tokenizing thirty bodies of 250 KB took
/// 0.8 s, and one probe of the index costs the same whatever the body.
const HELD_BY_TEXT_MAX_BYTES: i64 = 16 * 1024;

/// Where a hit holds a query term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    No,
    /// In the body only.
    Body,
    /// In the id, name, description or tags: what the record says it is about.
    Head,
}

/// The columns of what a record says it is about, as an FTS5 column filter.
const HEAD_COLUMNS: &str = "{id name description tags}";

impl Index {
    /// For each of `hits`, in order, where it holds each of `exprs` (FTS5
    /// MATCH expressions of the index's query language); [`Held::No`]
    /// throughout for a hit whose row went away meanwhile.
    pub(crate) fn held_by_hits(&self, hits: &[Hit], exprs: &[String]) -> Result<Vec<Vec<Held>>> {
        let path = &self.paths.db;
        let large = self.fill_held_table(hits)?;
        let mut matching = self
            .conn
            .prepare_cached("SELECT rowid FROM temp.held WHERE held MATCH ?1")
            .at(path)?;
        let mut probe = self
            .conn
            .prepare_cached("SELECT 1 FROM fts WHERE fts MATCH ?1 AND rowid = ?2")
            .at(path)?;
        let mut held = vec![vec![Held::No; exprs.len()]; hits.len()];
        for (term, expr) in exprs.iter().enumerate() {
            // Anywhere first, then in the head, which overrides.
            let head = format!("{HEAD_COLUMNS} : ({expr})");
            for (expr, found) in [(expr.as_str(), Held::Body), (head.as_str(), Held::Head)] {
                let rows = matching
                    .query_map([expr], |r| r.get::<_, i64>(0))
                    .at(path)?;
                for at in rows {
                    if let Some(hit) = usize::try_from(at.at(path)?)
                        .ok()
                        .and_then(|a| held.get_mut(a))
                    {
                        hit[term] = found;
                    }
                }
                for &(at, doc) in &large {
                    if probe.exists((expr, doc)).at(path)? {
                        held[at][term] = found;
                    }
                }
            }
        }
        Ok(held)
    }

    /// `temp.held` holding the indexed text of each of `hits`, its row the
    /// hit's place; the place and index row of each hit too large to copy
    /// there, which the store's index is asked about instead.
    fn fill_held_table(&self, hits: &[Hit]) -> Result<Vec<(usize, i64)>> {
        let path = &self.paths.db;
        let tokenizer = crate::fts::TOKENIZER.replace('\'', "''");
        self.conn
            .execute_batch(&format!(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.held USING fts5 (
                     id, name, description, tags, body, tokenize = '{tokenizer}'
                 );
                 DELETE FROM temp.held;"
            ))
            .at(path)?;
        let mut size = self
            .conn
            .prepare_cached("SELECT doc, length(CAST(body AS BLOB)) FROM docs WHERE rel_path = ?1")
            .at(path)?;
        let mut row = self
            .conn
            .prepare_cached("SELECT id, name, description, tags, body FROM docs WHERE doc = ?1")
            .at(path)?;
        let mut insert = self
            .conn
            .prepare_cached(
                "INSERT INTO temp.held (rowid, id, name, description, tags, body)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .at(path)?;
        let mut large = Vec::new();
        for (at, hit) in hits.iter().enumerate() {
            let Ok(rel) = hit.path.strip_prefix(self.store.root()) else {
                continue;
            };
            let found = size
                .query_map([crate::rows::rel_key(rel)], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
                })
                .at(path)?
                .next()
                .transpose()
                .at(path)?;
            let Some((doc, body_bytes)) = found else {
                continue;
            };
            if body_bytes > HELD_BY_TEXT_MAX_BYTES {
                large.push((at, doc));
                continue;
            }
            let [id, name, description, tags, body] = row
                .query_row([doc], |r| {
                    Ok::<[String; 5], _>([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?])
                })
                .at(path)?;
            let [id, name, description, tags, body] =
                [id, name, description, tag_text(&tags), body].map(|c| mdwords::index_text(&c));
            insert
                .execute(rusqlite::params![
                    at as i64,
                    id,
                    name,
                    description,
                    tags,
                    body
                ])
                .at(path)?;
        }
        Ok(large)
    }
}

/// The tags column's text as it was indexed: `docs` keeps the tags as a
/// JSON list (lower-cased, which the tokenizer's folding makes no
/// difference to), the index their words.
fn tag_text(json: &str) -> String {
    serde_json::from_str::<Vec<String>>(json)
        .map(|tags| tags.join(" "))
        .unwrap_or_else(|_| json.to_string())
}
