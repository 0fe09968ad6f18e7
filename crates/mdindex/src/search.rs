//! Running a parsed query against the index: matching, filters, ranking and
//! the result rows that `memctl search` prints.

use std::collections::HashMap;
use std::path::PathBuf;

use jiff::Timestamp;
use mdstore::expiry::Expiry;
use mdstore::{RecordType, Source};
use rusqlite::types::Value;
use serde::{Serialize, Serializer};

use crate::Index;
use crate::error::{Result, SqliteContext};
use crate::query::Query;
use crate::semantic::{self, EmbedFailure, Semantic};
use crate::snippet::{self, Snippet};

/// Snippets are at most this many characters.
const SNIPPET_CHARS: usize = 160;

const NS_PER_DAY: f64 = 86_400e9;

/// One result: everything SPEC §5's `--json` shows except `scope`, which
/// the caller adds (it knows which store it searched).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hit {
    pub id: String,
    pub name: String,
    #[serde(rename = "type", serialize_with = "type_name")]
    pub record_type: Option<RecordType>,
    /// The record file, absolute.
    pub path: PathBuf,
    pub description: String,
    /// Serialized with the matches in `[` `]`.
    #[serde(serialize_with = "bracketed")]
    pub snippet: Snippet,
    /// Relevance, positive, higher is better; [`merge_ranked`] makes it
    /// relative to the best hit of its store (1). For a query of filters
    /// only it falls with age (`1 / (1 + age in days)`).
    pub score: f64,
    /// RFC 3339, UTC.
    pub updated: Option<String>,
    /// Whole days since `updated`.
    pub age_days: Option<i64>,
    pub revision: Option<u64>,
    #[serde(serialize_with = "source_name")]
    pub source: Source,
    /// The record's `expires` as written (SPEC §2), so that a caller can
    /// tell whether it still holds ([`Hit::has_expired`]) without reading
    /// the file again.
    #[serde(skip)]
    pub expires: Option<String>,
}

impl Hit {
    /// Whether the record's `expires` has passed at `now`
    /// (`mdstore::expiry`, the one reading of it).
    pub fn has_expired(&self, now: Timestamp) -> bool {
        self.expires
            .as_deref()
            .and_then(Expiry::parse)
            .is_some_and(|expiry| expiry.is_past(now))
    }
}

/// What [`Index::hybrid`] gives: the hits, and the best cosine of any
/// record the query's filters allow (`None` when the query stays lexical).
pub(crate) type Fused = (Vec<Hit>, Option<f32>);

/// Merges the hits of several stores, listed nearest first, into one
/// ranking of at most `limit`, each hit with its store's label. BM25 scores
/// depend on each store's own statistics, so each store's scores are made
/// relative to its best hit first (its best scores 1); ties go to the
/// store listed first.
pub fn merge_ranked<L>(per_store: Vec<(L, Vec<Hit>)>, limit: usize) -> Vec<(L, Hit)>
where
    L: Clone,
{
    let mut merged: Vec<(usize, L, Hit)> = Vec::new();
    for (order, (label, hits)) in per_store.into_iter().enumerate() {
        let best = hits.iter().map(|h| h.score).fold(0.0_f64, f64::max);
        merged.extend(hits.into_iter().map(|mut hit| {
            if best > 0.0 {
                hit.score /= best;
            }
            (order, label.clone(), hit)
        }));
    }
    // Stable: within a store, its own order is kept.
    merged.sort_by(|a, b| b.2.score.total_cmp(&a.2.score).then(a.0.cmp(&b.0)));
    merged.truncate(limit);
    merged
        .into_iter()
        .map(|(_, label, hit)| (label, hit))
        .collect()
}

fn type_name<S: Serializer>(t: &Option<RecordType>, serializer: S) -> Result<S::Ok, S::Error> {
    t.map(RecordType::as_str).serialize(serializer)
}

fn source_name<S: Serializer>(source: &Source, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(source.as_str())
}

fn bracketed<S: Serializer>(snippet: &Snippet, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&snippet.bracketed())
}

impl Index {
    /// The best `limit` records for `query`, restricted to `types` when not
    /// empty (as well as to the query's own `type:` and `tag:` filters).
    /// Free text ranks by BM25 with [`crate::fts::BM25_WEIGHTS`]; a query of
    /// filters only lists the most recently updated first. Sync first
    /// ([`Index::sync`]) for an answer that reflects the files now. A query
    /// that would select every record is [`crate::query::QueryError::NothingToSearch`].
    pub fn search(&self, query: &Query, limit: usize, types: &[RecordType]) -> Result<Vec<Hit>> {
        self.ranked(query, limit, types, Snippets::Made)
    }

    /// [`Index::search`], with every hit's snippet left empty when
    /// `snippets` says so: a snippet stems its whole body, and `memctl
    /// context` shows none.
    pub(crate) fn ranked(
        &self,
        query: &Query,
        limit: usize,
        types: &[RecordType],
        snippets: Snippets,
    ) -> Result<Vec<Hit>> {
        query.ensure_selective(types)?;
        let rows = self.lexical_rows(query, limit, types)?;
        let now = query.now().as_nanosecond();
        Ok(rows
            .into_iter()
            .map(|row| self.hit(row, query, now, snippets))
            .collect())
    }

    /// The best `limit` rows for `query` by words alone (see [`Index::search`]).
    fn lexical_rows(&self, query: &Query, limit: usize, types: &[RecordType]) -> Result<Vec<Row>> {
        let (filters, mut params) = filter_sql(query, types);
        let sql = match query.fts_match() {
            Some(matching) => {
                let weights: Vec<String> = crate::fts::BM25_WEIGHTS
                    .iter()
                    .map(|w| format!("{w:?}"))
                    .collect();
                params.insert(0, Value::Text(matching));
                format!(
                    "SELECT {COLUMNS}, -bm25(fts, {weights}) AS score
                     FROM fts JOIN docs d ON d.doc = fts.rowid
                     WHERE fts MATCH ?{filters}
                     ORDER BY score DESC, d.updated_ns DESC, d.rel_path
                     LIMIT ?",
                    weights = weights.join(", ")
                )
            }
            None => format!(
                "SELECT {COLUMNS}, NULL AS score FROM docs d WHERE 1{filters}
                 ORDER BY d.updated_ns DESC, d.rel_path LIMIT ?"
            ),
        };
        params.push(Value::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
        self.rows(&sql, params)
    }

    /// The rows of the records at `rel_paths`, in no particular order.
    fn rows_of(&self, rel_paths: &[String]) -> Result<Vec<Row>> {
        if rel_paths.is_empty() {
            return Ok(Vec::new());
        }
        let (filter, params) = rel_path_filter(rel_paths);
        let sql = format!("SELECT {COLUMNS}, NULL AS score FROM docs d WHERE 1{filter}");
        self.rows(&sql, params)
    }

    fn rows(&self, sql: &str, params: Vec<Value>) -> Result<Vec<Row>> {
        let path = &self.paths.db;
        let mut stmt = self.conn.prepare(sql).at(path)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params), |row| {
                Ok(Row {
                    id: row.get(0)?,
                    name: row.get(1)?,
                    record_type: row.get(2)?,
                    rel_path: row.get(3)?,
                    description: row.get(4)?,
                    body: row.get(5)?,
                    updated_ns: row.get(6)?,
                    revision: row.get(7)?,
                    source: row.get(8)?,
                    expires: row.get(9)?,
                    score: row.get(10)?,
                })
            })
            .at(path)?;
        rows.collect::<rusqlite::Result<Vec<Row>>>().at(path)
    }

    /// [`Index::ranked`] with the semantic ranking fused in (reciprocal
    /// rank, [`semantic::fuse`]): the best [`semantic::FUSED_DEPTH`] by
    /// words and by meaning (those at least [`semantic::MIN_COSINE`] close),
    /// each hit's score its fused score, and the best cosine of any record
    /// the filters allow (`None` when the query stays lexical). A query of
    /// filters only, or one with required terms (`+word`, `"phrase"`),
    /// stays lexical: its words are conditions, not a description. Vectors
    /// must be fresh ([`Index::refresh_vectors`]).
    pub(crate) fn hybrid(
        &self,
        query: &Query,
        limit: usize,
        types: &[RecordType],
        semantic: Semantic<'_>,
        snippets: Snippets,
    ) -> Result<Result<Fused, EmbedFailure>> {
        if query.fts_match().is_none() || !query.must.is_empty() {
            return self
                .ranked(query, limit, types, snippets)
                .map(|hits| Ok((hits, None)));
        }
        query.ensure_selective(types)?;
        let prompt = match semantic.model.embed(semantic.text) {
            Ok(prompt) => prompt,
            Err(e) => return Ok(Err(EmbedFailure::Model(e))),
        };
        let lexical = self.lexical_rows(query, limit.max(semantic::FUSED_DEPTH), types)?;
        let (filters, params) = filter_sql(query, types);
        let ranking = match self.semantic_ranking(semantic.model, &prompt, &filters, &params)? {
            Ok(ranking) => ranking,
            Err(failure) => return Ok(Err(failure)),
        };
        let closest = ranking.first().map(|(_, cosine)| *cosine);
        let near: Vec<String> = ranking
            .into_iter()
            .take_while(|(_, cosine)| *cosine >= semantic::MIN_COSINE)
            .take(semantic::FUSED_DEPTH)
            .map(|(rel_path, _)| rel_path)
            .collect();
        let by_words: Vec<String> = lexical.iter().map(|row| row.rel_path.clone()).collect();
        let mut fused = semantic::fuse(&by_words, &near);
        fused.truncate(limit);
        let wanted: Vec<String> = fused
            .iter()
            .map(|(rel_path, _)| rel_path)
            .filter(|rel_path| !lexical.iter().any(|row| &row.rel_path == *rel_path))
            .cloned()
            .collect();
        let mut rows: HashMap<String, Row> = lexical
            .into_iter()
            .chain(self.rows_of(&wanted)?)
            .map(|row| (row.rel_path.clone(), row))
            .collect();
        let now = query.now().as_nanosecond();
        let hits = fused
            .into_iter()
            .filter_map(|(doc, score)| {
                let mut row = rows.remove(&doc)?;
                row.score = Some(score);
                Some(self.hit(row, query, now, snippets))
            })
            .collect();
        Ok(Ok((hits, closest)))
    }

    fn hit(&self, row: Row, query: &Query, now_ns: i128, snippets: Snippets) -> Hit {
        let updated = row
            .updated_ns
            .and_then(|ns| Timestamp::from_nanosecond(i128::from(ns)).ok());
        let age_ns = updated.map(|t| (now_ns - t.as_nanosecond()).max(0));
        let age_days_exact = age_ns.map(|ns| ns as f64 / NS_PER_DAY);
        let score = row
            .score
            .unwrap_or_else(|| age_days_exact.map_or(0.0, |days| 1.0 / (1.0 + days)));
        let snippet_source = if row.body.trim().is_empty() {
            &row.description
        } else {
            &row.body
        };
        Hit {
            snippet: match snippets {
                Snippets::Made => snippet::make(snippet_source, query, SNIPPET_CHARS),
                Snippets::Left => Snippet::default(),
            },
            path: self.store.root().join(&row.rel_path),
            id: row.id,
            name: row.name,
            // The index holds what the record's header parsed to.
            record_type: row.record_type.as_deref().and_then(RecordType::parse),
            description: row.description,
            score,
            updated: updated.map(|t| t.to_string()),
            age_days: age_days_exact.map(|days| days.floor() as i64),
            revision: row.revision.and_then(|r| u64::try_from(r).ok()),
            source: Source::parse(&row.source).unwrap_or(Source::Inferred),
            expires: row.expires,
        }
    }
}

/// The columns of a [`Row`] (its score follows them).
const COLUMNS: &str = "d.id, d.name, d.type, d.rel_path, d.description, d.body, d.updated_ns, d.revision, d.source, d.expires";

/// The conditions on `d` (each starting ` AND`) of `query`'s filters and
/// `types`, with their parameters.
fn filter_sql(query: &Query, types: &[RecordType]) -> (String, Vec<Value>) {
    let mut params: Vec<Value> = Vec::new();
    let mut filters = String::new();
    for list in [&query.types[..], types] {
        if !list.is_empty() {
            let marks = vec!["?"; list.len()].join(", ");
            filters.push_str(&format!(" AND d.type IN ({marks})"));
            params.extend(list.iter().map(|t| Value::Text(t.as_str().to_string())));
        }
    }
    for tag in &query.tags {
        filters.push_str(" AND EXISTS (SELECT 1 FROM json_each(d.tags) WHERE json_each.value = ?)");
        params.push(Value::Text(tag.to_lowercase()));
    }
    if let Some(exclude) = query.fts_exclude() {
        filters.push_str(" AND d.doc NOT IN (SELECT rowid FROM fts WHERE fts MATCH ?)");
        params.push(Value::Text(exclude));
    }
    (filters, params)
}

/// The condition ` AND d.rel_path IN (…)` for `rel_paths`, with its parameters.
pub(crate) fn rel_path_filter(rel_paths: &[String]) -> (String, Vec<Value>) {
    let marks = vec!["?"; rel_paths.len()].join(", ");
    let params = rel_paths.iter().map(|p| Value::Text(p.clone())).collect();
    (format!(" AND d.rel_path IN ({marks})"), params)
}

/// Whether hits get their snippets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Snippets {
    Made,
    Left,
}

struct Row {
    id: String,
    name: String,
    record_type: Option<String>,
    rel_path: String,
    description: String,
    body: String,
    updated_ns: Option<i64>,
    revision: Option<i64>,
    source: String,
    expires: Option<String>,
    score: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, score: f64) -> Hit {
        Hit {
            id: id.into(),
            name: id.into(),
            record_type: None,
            path: PathBuf::from(id),
            description: String::new(),
            snippet: Snippet::default(),
            score,
            updated: None,
            age_days: None,
            revision: None,
            source: Source::User,
            expires: None,
        }
    }

    #[test]
    fn scores_merged_across_stores_are_relative_to_each_stores_best() {
        let merged = merge_ranked(
            vec![
                ("workspace", vec![hit("w1", 2.0), hit("w2", 1.0)]),
                (
                    "global",
                    vec![hit("g1", 40.0), hit("g2", 30.0), hit("g3", 4.0)],
                ),
            ],
            4,
        );
        let order: Vec<(&str, &str, f64)> = merged
            .iter()
            .map(|(scope, h)| (*scope, h.id.as_str(), h.score))
            .collect();
        assert_eq!(
            order,
            vec![
                ("workspace", "w1", 1.0),
                ("global", "g1", 1.0),
                ("global", "g2", 0.75),
                ("workspace", "w2", 0.5),
            ]
        );
    }
}
