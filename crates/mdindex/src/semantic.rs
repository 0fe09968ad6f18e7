//! Semantic matching (issue 18): each record's sentence embedding, kept in
//! the index like its terms (derived, rebuildable, never in the store), and
//! the fusion of the semantic ranking with the lexical one.
//!
//! Vectors live in the `vectors` table, keyed by the record's content hash
//! (`docs.hash`) and the [`VECTORS_VERSION`] that made them. They are not
//! part of the schema a usable index must have: a missing table is created,
//! rows of another model or of the wrong length are dropped, and a table of
//! the wrong shape is replaced, so deleting or damaging them costs only the
//! time to embed again. [`Index::refresh_vectors`] embeds every record that
//! has no vector; a search that uses the model refreshes first, after its
//! sync, so a record edited on disk is embedded again before the answer.
//!
//! The text embedded is the record's name, description and the start of
//! its body ([`EMBED_CHARS`]): the encoder's cost grows with length, and
//! the opening of a record says what it is about. Nothing is redacted: the
//! vectors sit beside the index's own copy of every body, in the same cache
//! folder, and leave the machine no more than it does.

use std::collections::HashMap;

use mdembed::{DIM, Embedding, Model};
use rusqlite::OptionalExtension as _;

use crate::error::{Result, SqliteContext};
use crate::search::rel_path_filter;
use crate::{Hit, Index};

/// Which model and which choice of text made a vector; a vector of any
/// other version is embedded again.
pub const VECTORS_VERSION: &str = concat!("use-multilingual-v3@0.2.1", "/text1/f16");

/// Characters of a record (name, description, body, in that order) that are
/// embedded.
pub const EMBED_CHARS: usize = 1000;

/// Reciprocal-rank fusion's constant (Cormack et al. 2009): a record ranked
/// r-th (from 1) by words gets `1 / (RRF_K + r)`, by meaning
/// [`MEANING_WEIGHT`] times that. Chosen by leaving one labelled set out
/// at a time (docs/CONTEXT.md, "With semantic matching"): the literature's
/// k = 60 with equal weights lowered `search`'s hit@5 on three of the four
/// real and own folders (en-js2 0.898 to 0.880, own/ko 0.902 to 0.854);
/// k = 10 keeps the first places of the word ranking ahead of a record
/// that meaning alone ranks first.
pub const RRF_K: f64 = 10.0;

/// What meaning's ranking counts against words' in the fusion (see
/// [`RRF_K`]): half.
pub const MEANING_WEIGHT: f64 = 0.5;

/// Records of each ranking that the fusion considers.
pub const FUSED_DEPTH: usize = 50;

/// A record found only by meaning must be at least this close to the query
/// (cosine), so that a search about nothing the store holds still says so.
/// A question and the record that answers it in other words score 0.23 to
/// 0.42 with USE (a record's text is long); unrelated pairs near 0.
pub const MIN_COSINE: f32 = 0.2;

/// The bytes of a stored vector ([`to_bytes`]).
const VECTOR_BYTES: usize = DIM * 2;

/// Records embedded per batch (the model spreads a batch over its threads).
const BATCH: usize = 64;

/// The vectors, and an index of the records' hashes: without it, finding
/// a record's vector (or that it has none) read the whole `docs` table,
/// bodies and all, since `hash` follows `body` in a row (0.3 s a query at
/// 10,000 records; 0.01 s with it). A table with rowids: in a `WITHOUT
/// ROWID` table a row of over about 1,000 bytes spills into a page of its
/// own, so each vector took a whole 4 KiB page.
const CREATE_TABLE: &str = "CREATE TABLE IF NOT EXISTS vectors (
    hash BLOB PRIMARY KEY,
    version TEXT NOT NULL,
    vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS docs_hash ON docs (hash, rel_path)";

/// Semantic matching asked of a search: the model, the query as the user
/// wrote it (the encoder reads text, not the parsed terms), and when the
/// request must stop embedding records (`None`: when all are embedded).
#[derive(Clone, Copy, Debug)]
pub struct Semantic<'a> {
    pub model: &'a Model,
    pub text: &'a str,
    /// A hook is killed at the agent's timeout (10 s): the first prompt
    /// after the model is turned on on a large store would be killed while
    /// embedding every record. Records are kept batch by batch; past this
    /// instant the search stops after at least one batch and answers by
    /// words ([`EmbedFailure::Unfinished`]), and the next request goes on.
    pub deadline: Option<std::time::Instant>,
}

/// Which vectors the table may hold when [`Index::embed_missing`] looks for
/// the records without one.
#[derive(Clone, Copy)]
enum Left {
    /// Only vectors of [`VECTORS_VERSION`]: [`Index::refresh_vectors`] has
    /// just dropped the others.
    OnlyCurrent,
    /// Vectors of other versions too.
    AnyVersion,
}

/// [`Index::rerank`]'s answer: the hits in their new order and what
/// embedding the ones without a vector did, or the model's failure.
pub type Reranked = std::result::Result<(Vec<Hit>, VectorReport), EmbedFailure>;

/// What [`Index::refresh_vectors`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VectorReport {
    /// Records embedded (new, edited, or whose vector was lost).
    pub embedded: usize,
    /// Vectors dropped: of records gone, of another model, or damaged.
    pub dropped: usize,
    /// The table had the wrong shape and was made again.
    pub healed: bool,
}

/// Records by their path in the store, each with its cosine to a query,
/// closest first.
pub(crate) type Ranking = Vec<(String, f32)>;

/// Why semantic matching did not answer a search (it answers lexically).
#[derive(Debug, thiserror::Error)]
pub enum EmbedFailure {
    #[error("the model failed: {0}")]
    Model(#[from] mdembed::Error),
    /// The request's time ran out while records were being embedded.
    #[error(
        "the records are being embedded ({embedded} done this time, {left} left; each is kept), and the words decide until they are"
    )]
    Unfinished { embedded: usize, left: usize },
}

impl Index {
    /// Embeds every record that has no vector of [`VECTORS_VERSION`], and
    /// drops the vectors of records that are gone or damaged.
    /// Past `deadline`, it stops after at least one batch
    /// ([`Semantic::deadline`]).
    pub fn refresh_vectors(
        &self,
        model: &Model,
        deadline: Option<std::time::Instant>,
    ) -> Result<Result<VectorReport, EmbedFailure>> {
        let path = &self.paths.db;
        let mut report = VectorReport {
            healed: self.ensure_vector_table()?,
            ..VectorReport::default()
        };
        let width = i64::try_from(VECTOR_BYTES).unwrap_or(i64::MAX);
        report.dropped = self
            .conn
            .execute(
                // The hashes gone from `docs` as one merge of the two
                // hash indexes: `hash NOT IN (SELECT hash FROM docs)`
                // searched `docs_hash` once a vector (about 10 ms of a
                // hook's time at 10,000 records). `docs.hash` is never
                // NULL, so both say the same.
                "DELETE FROM vectors WHERE version <> ?1 OR length(vector) <> ?2
                 OR hash IN (SELECT hash FROM vectors EXCEPT SELECT hash FROM docs)",
                (VECTORS_VERSION, width),
            )
            .at(path)?;
        Ok(self
            .embed_missing(model, Left::OnlyCurrent, "", &[], deadline)?
            .map(|embedded| VectorReport { embedded, ..report }))
    }

    /// Embeds those of `rel_paths` (records by their path in the store)
    /// that have no vector of [`VECTORS_VERSION`], and nothing else: what
    /// `context` needs to put the records it shows in order, so that the
    /// hook's cost grows with what it shows, not with the store (a store
    /// whose model was just turned on would otherwise be embedded whole
    /// before the first prompt's answer, 35 s at 10,000 records).
    /// Vectors of records that are gone stay until a search refreshes them
    /// all; no answer reads them, since vectors are found through `docs`.
    pub(crate) fn refresh_vectors_of(
        &self,
        model: &Model,
        rel_paths: &[String],
    ) -> Result<Result<VectorReport, EmbedFailure>> {
        let healed = self.ensure_vector_table()?;
        let (filter, params) = rel_path_filter(rel_paths);
        Ok(self
            .embed_missing(model, Left::AnyVersion, &filter, &params, None)?
            .map(|embedded| VectorReport {
                embedded,
                dropped: 0,
                healed,
            }))
    }

    /// Embeds the records allowed by `filter` (an SQL condition on `d`,
    /// with its `params`) that have no vector of [`VECTORS_VERSION`];
    /// how many. `left` says which vectors the table may hold.
    fn embed_missing(
        &self,
        model: &Model,
        left: Left,
        filter: &str,
        params: &[rusqlite::types::Value],
        deadline: Option<std::time::Instant>,
    ) -> Result<Result<usize, EmbedFailure>> {
        let path = &self.paths.db;
        // Once only current vectors are left, a hash in the table's key
        // is enough: the key's index answers alone, where asking for the
        // version read each row (about 25 ms at 10,000 records).
        let current = match left {
            Left::OnlyCurrent => "",
            Left::AnyVersion => " AND v.version = ?1",
        };
        // The hashes first, from the index alone; the text only of those
        // that need it.
        let missing: Vec<(Vec<u8>, String)> = {
            let sql = format!(
                "SELECT d.hash, min(d.rel_path) FROM docs d
                 WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.hash = d.hash{current}
                                   ){filter}
                 GROUP BY d.hash ORDER BY 2"
            );
            let mut all = match left {
                Left::OnlyCurrent => Vec::new(),
                Left::AnyVersion => vec![rusqlite::types::Value::Text(VECTORS_VERSION.to_string())],
            };
            all.extend_from_slice(params);
            let mut stmt = self.conn.prepare(&sql).at(path)?;
            let rows = stmt
                .query_map(rusqlite::params_from_iter(all), |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })
                .at(path)?;
            rows.collect::<rusqlite::Result<_>>().at(path)?
        };
        let mut text_of = self
            .conn
            .prepare_cached("SELECT name, description, body FROM docs WHERE rel_path = ?1")
            .at(path)?;
        let missing: Vec<(Vec<u8>, String)> = missing
            .into_iter()
            .map(|(hash, rel_path)| {
                let parts: [String; 3] = text_of.query_row([&rel_path], |row| {
                    Ok([row.get(0)?, row.get(1)?, row.get(2)?])
                })?;
                Ok((hash, embed_text(&parts)))
            })
            .collect::<rusqlite::Result<_>>()
            .at(path)?;
        let out_of_time = || deadline.is_some_and(|d| std::time::Instant::now() >= d);
        in_batches(&missing, &out_of_time, |batch| {
            let texts: Vec<&str> = batch.iter().map(|(_, text)| text.as_str()).collect();
            let vectors = match model.embed_batch(&texts) {
                Ok(vectors) => vectors,
                Err(e) => return Ok(Err(EmbedFailure::Model(e))),
            };
            let mut insert = self
                .conn
                .prepare_cached(
                    "INSERT OR REPLACE INTO vectors (hash, version, vector) VALUES (?1, ?2, ?3)",
                )
                .at(path)?;
            for ((hash, _), vector) in batch.iter().zip(&vectors) {
                insert
                    .execute((hash, VECTORS_VERSION, to_bytes(vector)))
                    .at(path)?;
            }
            Ok(Ok(()))
        })
    }

    /// Creates the vector table if it is missing, and makes it again if it
    /// has the wrong columns; `true` when it had to be made again.
    fn ensure_vector_table(&self) -> Result<bool> {
        let path = &self.paths.db;
        self.conn.execute_batch(CREATE_TABLE).at(path)?;
        let shaped = self
            .conn
            .query_row(
                "SELECT hash, version, vector FROM vectors LIMIT 1",
                [],
                |_| Ok(()),
            )
            .optional();
        match shaped {
            Ok(_) => Ok(false),
            Err(e) if crate::error::is_damage(&e) => Err(e).at(path),
            Err(_) => {
                self.conn
                    .execute_batch(&format!("DROP TABLE vectors; {CREATE_TABLE}"))
                    .at(path)?;
                Ok(true)
            }
        }
    }

    /// Every record (by its path in the store) allowed by `filter` (an SQL condition on
    /// `d`, with its `params`), with its cosine to `query`, closest first. A
    /// stored vector the model cannot have made (see [`from_bytes`]: the
    /// cache is derived data anything can write) is dropped and made again
    /// with `model` before the ranking is made.
    pub(crate) fn semantic_ranking(
        &self,
        model: &Model,
        query: &Embedding,
        filter: &str,
        params: &[rusqlite::types::Value],
    ) -> Result<Result<Ranking, EmbedFailure>> {
        let (ranked, refused) = self.cosines(query, filter, params)?;
        if refused.is_empty() {
            return Ok(Ok(ranked));
        }
        let mut delete = self
            .conn
            .prepare_cached("DELETE FROM vectors WHERE hash = ?1")
            .at(&self.paths.db)?;
        for hash in &refused {
            delete.execute([hash]).at(&self.paths.db)?;
        }
        if let Err(failure) = self.embed_missing(model, Left::AnyVersion, filter, params, None)? {
            return Ok(Err(failure));
        }
        Ok(Ok(self.cosines(query, filter, params)?.0))
    }

    /// The cosines of [`Index::semantic_ranking`], closest first, and the
    /// hashes of the stored vectors refused.
    fn cosines(
        &self,
        query: &Embedding,
        filter: &str,
        params: &[rusqlite::types::Value],
    ) -> Result<(Ranking, Vec<Vec<u8>>)> {
        let path = &self.paths.db;
        let sql = format!(
            "SELECT d.rel_path, v.vector, v.hash FROM docs d JOIN vectors v ON v.hash = d.hash
             WHERE v.version = ?{filter}"
        );
        let mut all = vec![rusqlite::types::Value::Text(VECTORS_VERSION.to_string())];
        all.extend_from_slice(params);
        let mut stmt = self.conn.prepare(&sql).at(path)?;
        // Each vector is read where SQLite holds it, not copied out, and
        // a row's hash only when its vector is refused.
        let rows = stmt
            .query_map(rusqlite::params_from_iter(all), |row| {
                let vector = row.get_ref(1)?.as_blob().ok().and_then(from_bytes);
                Ok(match vector {
                    Some(vector) => Ok((row.get::<_, String>(0)?, mdembed::cosine(query, &vector))),
                    None => Err(row.get::<_, Vec<u8>>(2)?),
                })
            })
            .at(path)?;
        let mut ranked = Vec::new();
        let mut refused = Vec::new();
        for row in rows {
            match row.at(path)? {
                Ok(cosine) => ranked.push(cosine),
                Err(hash) => refused.push(hash),
            }
        }
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Ok((ranked, refused))
    }

    /// `passed` (records the lexical decision let through, best first) in
    /// the order of the fusion of that order with their
    /// closeness to the prompt, each hit's score its fused score, after
    /// embedding those of them that have no vector
    /// (`Index::refresh_vectors_of`). Meaning only reorders here: it
    /// neither adds a record nor drops one, since no cosine tells a prompt
    /// that deserves a record from one that deserves none
    /// (docs/RETRIEVAL.md).
    pub fn rerank(&self, passed: Vec<Hit>, semantic: Semantic<'_>) -> Result<Reranked> {
        if passed.len() < 2 {
            return Ok(Ok((passed, VectorReport::default())));
        }
        let root = self.store.root();
        let rel_paths: Vec<String> = passed
            .iter()
            .map(|hit| {
                let rel = hit.path.strip_prefix(root).unwrap_or(&hit.path);
                crate::rows::rel_key(rel)
            })
            .collect();
        let report = match self.refresh_vectors_of(semantic.model, &rel_paths)? {
            Ok(report) => report,
            Err(failure) => return Ok(Err(failure)),
        };
        let prompt = match semantic.model.embed(semantic.text) {
            Ok(prompt) => prompt,
            Err(e) => return Ok(Err(EmbedFailure::Model(e))),
        };
        let (filter, params) = rel_path_filter(&rel_paths);
        let near: Vec<String> =
            match self.semantic_ranking(semantic.model, &prompt, &filter, &params)? {
                Ok(ranking) => ranking.into_iter().map(|(rel_path, _)| rel_path).collect(),
                Err(failure) => return Ok(Err(failure)),
            };
        let fused = fuse(&rel_paths, &near);
        let mut by_path: HashMap<String, Hit> = rel_paths.into_iter().zip(passed).collect();
        let reranked = fused
            .into_iter()
            .filter_map(|(rel_path, score)| {
                let mut hit = by_path.remove(&rel_path)?;
                hit.score = score;
                Some(hit)
            })
            .collect();
        Ok(Ok((reranked, report)))
    }
}

/// The text of a record that is embedded: its name (words, not a slug),
/// description and body, joined, cut at [`EMBED_CHARS`] characters.
/// Runs `each` on `items` a [`BATCH`] at a time (each batch is kept as it
/// is done, autocommitted), how many; once `out_of_time` says so, stops
/// after at least one batch, saying how many are left.
fn in_batches<T>(
    items: &[T],
    out_of_time: &dyn Fn() -> bool,
    mut each: impl FnMut(&[T]) -> Result<Result<(), EmbedFailure>>,
) -> Result<Result<usize, EmbedFailure>> {
    let mut done = 0;
    for batch in items.chunks(BATCH) {
        if done > 0 && out_of_time() {
            return Ok(Err(EmbedFailure::Unfinished {
                embedded: done,
                left: items.len() - done,
            }));
        }
        if let Err(failure) = each(batch)? {
            return Ok(Err(failure));
        }
        done += batch.len();
    }
    Ok(Ok(done))
}

fn embed_text([name, description, body]: &[String; 3]) -> String {
    let name = name.replace(['-', '_'], " ");
    let joined = format!("{name}. {description}\n{body}");
    match joined.char_indices().nth(EMBED_CHARS) {
        Some((cut, _)) => joined[..cut].to_string(),
        None => joined,
    }
}

/// A vector's bytes: 16-bit floats, little-endian: three rows to a 4 KiB
/// page where 32-bit floats (2 KiB and the key) fitted one; half precision
/// changes a cosine by less than 0.001 (`half_precision_keeps_cosines`).
fn to_bytes(vector: &Embedding) -> Vec<u8> {
    vector
        .iter()
        .flat_map(|&v| half::f16::from_f32(v).to_le_bytes())
        .collect()
}

/// A stored vector, or `None` when it is not one the model could have
/// made: of another length, holding a value that is not finite, or not of
/// unit length (half precision keeps that within 0.001). The cache is
/// derived data anyone can write, and a NaN's cosine would rank first.
fn from_bytes(bytes: &[u8]) -> Option<Embedding> {
    if bytes.len() != VECTOR_BYTES {
        return None;
    }
    let mut vector = [0f32; DIM];
    widen(bytes, &mut vector);
    let squared_norm = mdembed::cosine(&vector, &vector);
    ((squared_norm - 1.0).abs() < 0.01).then_some(vector)
}

/// `bytes` (little-endian half-precision floats) as 32-bit floats in
/// `out`, the whole slice at once: `half` converts it with the processor's
/// vector instructions where it has them, which a search of 10,000 stored
/// vectors (five million values) feels; the values are the same exactly
/// as one at a time (`widening_a_slice_is_exactly_one_value_at_a_time`).
fn widen(bytes: &[u8], out: &mut [f32]) {
    use half::slice::{HalfBitsSliceExt as _, HalfFloatSliceExt as _};
    let bits: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect();
    bits.reinterpret_cast::<half::f16>()
        .convert_to_f32_slice(out);
}

/// Weighted reciprocal-rank fusion of the ranking by words and the one by
/// meaning (each best first; meaning's counts [`MEANING_WEIGHT`]): every key
/// with its fused score, best first; ties keep the order of first
/// appearance, words' first.
pub fn fuse<K: Clone + Eq + std::hash::Hash>(by_words: &[K], by_meaning: &[K]) -> Vec<(K, f64)> {
    let mut scores: HashMap<K, (f64, usize)> = HashMap::new();
    let mut seen = 0;
    for (ranking, weight) in [(by_words, 1.0), (by_meaning, MEANING_WEIGHT)] {
        for (rank, key) in ranking.iter().enumerate() {
            let gain = weight / (RRF_K + rank as f64 + 1.0);
            let entry = scores.entry(key.clone()).or_insert_with(|| {
                seen += 1;
                (0.0, seen)
            });
            entry.0 += gain;
        }
    }
    let mut fused: Vec<(K, f64, usize)> = scores
        .into_iter()
        .map(|(key, (score, first))| (key, score, first))
        .collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    fused
        .into_iter()
        .map(|(key, score, _)| (key, score))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fusion_rewards_agreement_and_meaning_alone_never_overtakes_the_first_by_words() {
        let fused = fuse(&["a", "b", "c"], &["b", "d"]);
        let order: Vec<&str> = fused.iter().map(|(k, _)| *k).collect();
        assert_eq!(order, ["b", "a", "c", "d"]);
        let tied = fuse(&["x", "y"], &["z", "x"]);
        assert_eq!(tied[0].0, "x");
        // Meaning counts half: its first place alone never overtakes words'.
        let alone = fuse(&["w"], &["m"]);
        assert_eq!(alone[0].0, "w");
        assert!(alone[0].1 > alone[1].1);
    }

    #[test]
    fn widening_a_slice_is_exactly_one_value_at_a_time() {
        let every: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        let mut widened = vec![0f32; usize::from(u16::MAX) + 1];
        widen(&every, &mut widened);
        for (bits, value) in (0..=u16::MAX).zip(&widened) {
            let one = half::f16::from_bits(bits).to_f32();
            // NaNs compare unequal; their bits must be NaNs all the same.
            assert!(
                one.to_bits() == value.to_bits() || (one.is_nan() && value.is_nan()),
                "{bits:#06x}: {one} against {value}"
            );
        }
    }

    /// The first prompt after the model is turned on embedded every record
    /// of a large store before answering, longer than an agent waits for a
    /// hook: past its deadline a request stops after a batch, says how many
    /// are left, and has kept what it did.
    #[test]
    fn past_its_deadline_a_request_embeds_one_batch_and_says_how_many_are_left() {
        let items: Vec<usize> = (0..200).collect();
        let mut seen = Vec::new();
        let answer = in_batches(&items, &|| true, |batch| {
            seen.extend_from_slice(batch);
            Ok(Ok(()))
        })
        .unwrap();
        assert_eq!(seen, (0..BATCH).collect::<Vec<_>>());
        let Err(EmbedFailure::Unfinished { embedded, left }) = answer else {
            panic!("{answer:?}");
        };
        assert_eq!((embedded, left), (BATCH, 200 - BATCH));
        let mut all = 0;
        let answer = in_batches(&items, &|| false, |batch| {
            all += batch.len();
            Ok(Ok(()))
        });
        assert_eq!(answer.unwrap().unwrap(), 200);
        assert_eq!(all, 200);
    }

    #[test]
    fn half_precision_keeps_cosines() {
        let mut a = [0f32; DIM];
        let mut b = [0f32; DIM];
        for i in 0..DIM {
            a[i] = ((i * 7919) % 1000) as f32 / 1000.0 - 0.5;
            b[i] = ((i * 104_729) % 1000) as f32 / 1000.0 - 0.5 + a[i];
        }
        let unit = |v: &mut Embedding| {
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
        };
        unit(&mut a);
        unit(&mut b);
        let stored = from_bytes(&to_bytes(&b)).unwrap();
        let exact = mdembed::cosine(&a, &b);
        assert!(
            (mdembed::cosine(&a, &stored) - exact).abs() < 1e-3,
            "{exact}"
        );
    }

    #[test]
    fn vectors_round_trip_and_wrong_lengths_are_refused() {
        let mut vector = [0f32; DIM];
        // Of unit length, in values half precision holds exactly.
        for (i, value) in [(3, -0.5), (7, 0.5), (100, 0.5), (DIM - 1, -0.5)] {
            vector[i] = value;
        }
        assert_eq!(from_bytes(&to_bytes(&vector)), Some(vector));
        assert_eq!(from_bytes(&[0u8; 12]), None);
    }

    #[test]
    fn a_damaged_vector_is_refused_rather_than_ranked_first() {
        let mut vector = [0f32; DIM];
        vector[0] = 1.0;
        for damage in [f32::NAN, f32::INFINITY, 2.0, 0.0] {
            vector[0] = damage;
            assert_eq!(from_bytes(&to_bytes(&vector)), None, "{damage}");
        }
    }

    #[test]
    fn the_embedded_text_is_cut_at_a_character_boundary() {
        let long = "가".repeat(EMBED_CHARS * 2);
        let text = embed_text(&["deploy-notes".into(), "How we ship".into(), long]);
        assert!(text.starts_with("deploy notes. How we ship\n"));
        assert_eq!(text.chars().count(), EMBED_CHARS);
    }
}
