//! The [`Evidence`] of hits, and recall: the ranking of a prompt's query
//! with the words left out that are too common to make any record
//! relevant (a prompt's common words match most of a large store, and
//! FTS5 scores every match before keeping the best).

use std::collections::HashSet;

use super::held::{Pattern, RecordTerms};
use super::{Evidence, Threshold, idf, informative_terms};
use crate::db::BACKGROUND_DOCS;
use crate::error::{Result, SqliteContext};
use crate::query::{self, Query, Term, Unit};
use crate::text::Stemming;
use crate::{Hit, Index};

/// A word in fewer records than this costs the ranking little, so it is
/// never left out of it: a store of up to a few thousand records ranks a
/// prompt exactly as `memctl search` ranks it.
const COSTLY_ROWS: i64 = 1_000;

/// One informative term of a query that the store holds, weighed.
struct TermWeight {
    term: Term,
    /// How many records hold it.
    rows: i64,
    patterns: Vec<Pattern>,
    idf: f64,
    /// Its IDF over the largest IDF the store allows: what holding it adds
    /// to a record's specificity.
    share: f64,
}

/// The informative terms of a query that the store holds, weighed against
/// the store's statistics.
struct Weights {
    terms: Vec<TermWeight>,
    all_idf: f64,
}

impl Index {
    /// The [`Evidence`] of each of `hits` (from [`Index::search`] with the
    /// same `query`), in the same order.
    pub fn evidence(&self, query: &Query, hits: &[Hit]) -> Result<Vec<Evidence>> {
        let weights = self.weigh(query)?;
        self.evidence_by(&weights, hits)
    }

    /// At most `limit` records for a prompt's `query` whose evidence passes
    /// `threshold`, best first, with their evidence. A record passes only
    /// when it shares with the prompt a word rarer than
    /// `threshold.min_rarest`, so the words more common than that are left
    /// out of the ranking (when they are in at least [`COSTLY_ROWS`]
    /// records; a prompt whose words could not make any record pass is not
    /// ranked at all). The records that pass are those [`Index::search`] and
    /// [`Index::evidence`] would pass; their order leaves out what the
    /// common words would add to their scores.
    pub fn recall(
        &self,
        query: &Query,
        limit: usize,
        threshold: &Threshold,
    ) -> Result<Vec<(Hit, Evidence)>> {
        self.recall_leaving_out(query, limit, threshold, COSTLY_ROWS)
    }

    /// [`Index::recall`], leaving out of the ranking only terms in at least
    /// `costly_rows` records.
    fn recall_leaving_out(
        &self,
        query: &Query,
        limit: usize,
        threshold: &Threshold,
        costly_rows: i64,
    ) -> Result<Vec<(Hit, Evidence)>> {
        let weights = self.weigh(query)?;
        let Some(deciding) = weights.deciding_query(query, threshold, costly_rows) else {
            return Ok(Vec::new());
        };
        let hits = self.search(&deciding, limit, &[])?;
        let evidence = self.evidence_by(&weights, &hits)?;
        Ok(hits
            .into_iter()
            .zip(evidence)
            .filter(|(_, evidence)| evidence.passes(threshold))
            .collect())
    }

    /// The weight of each informative term of `query` the store holds.
    fn weigh(&self, query: &Query) -> Result<Weights> {
        let path = &self.paths.db;
        let records: i64 = self
            .conn
            .query_row("SELECT count(*) FROM docs", [], |r| r.get(0))
            .at(path)?;
        let total = (records + BACKGROUND_DOCS) as f64;
        let max_idf = idf(total, 0.0);
        // A single term's count is read from the index's vocabulary; a term
        // spelled otherwise there (or a phrase, or a prefix) is counted.
        self.conn
            .execute_batch(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_vocab USING fts5vocab(main, fts, row)",
            )
            .at(path)?;
        let mut vocab = self
            .conn
            .prepare_cached("SELECT doc FROM temp.fts_vocab WHERE term = ?1")
            .at(path)?;
        let mut count = self
            .conn
            .prepare_cached("SELECT count(*) FROM fts WHERE fts MATCH ?1")
            .at(path)?;
        let mut seen = HashSet::new();
        let mut weights = Weights {
            terms: Vec::new(),
            all_idf: 0.0,
        };
        for term in informative_terms(query) {
            let expr = query::render(term, Stemming::English);
            if !seen.insert(expr.clone()) {
                continue;
            }
            let patterns: Vec<Pattern> = query::spell(term, Stemming::English)
                .iter()
                .map(Pattern::of)
                .collect();
            let known: Option<i64> = match patterns.as_slice() {
                [pattern] => match pattern.single() {
                    Some(single) => vocab
                        .query_map([single], |r| r.get(0))
                        .at(path)?
                        .next()
                        .transpose()
                        .at(path)?,
                    None => None,
                },
                _ => None,
            };
            let df = match known {
                Some(df) => df,
                None => count.query_row([&expr], |r| r.get(0)).at(path)?,
            };
            // A word the store has never seen (a pasted identifier, a CJK
            // bigram across two words) says nothing about any record.
            if df == 0 {
                continue;
            }
            let term_idf = idf(total, df as f64);
            weights.all_idf += term_idf;
            weights.terms.push(TermWeight {
                term: term.clone(),
                rows: df,
                patterns,
                idf: term_idf,
                share: term_idf / max_idf,
            });
        }
        Ok(weights)
    }

    fn evidence_by(&self, weights: &Weights, hits: &[Hit]) -> Result<Vec<Evidence>> {
        let held = self.record_terms(hits)?;
        Ok(hits
            .iter()
            .zip(&held)
            .enumerate()
            .map(|(at, (hit, record))| {
                let mut evidence = Evidence::default();
                let mut idf_sum = 0.0;
                let holding = weights
                    .terms
                    .iter()
                    .filter(|w| record.as_ref().is_some_and(|r| r.holds(&w.patterns)));
                for weight in holding {
                    idf_sum += weight.idf;
                    evidence.specificity += weight.share;
                    evidence.matched += 1;
                    evidence.rarest = evidence.rarest.max(weight.share);
                }
                if weights.all_idf > 0.0 {
                    evidence.coverage = idf_sum / weights.all_idf;
                }
                let next = hits.get(at + 1).map(|h| h.score);
                evidence.gap = next.map_or(f64::INFINITY, |n| hit.score / n.max(f64::MIN_POSITIVE));
                evidence
            })
            .collect())
    }

    /// The indexed text of each hit as index terms (`None` if its row went
    /// away meanwhile).
    fn record_terms(&self, hits: &[Hit]) -> Result<Vec<Option<RecordTerms>>> {
        let path = &self.paths.db;
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, name, description, tags, body FROM docs WHERE rel_path = ?1",
            )
            .at(path)?;
        hits.iter()
            .map(|hit| {
                let Ok(rel) = hit.path.strip_prefix(self.store.root()) else {
                    return Ok(None);
                };
                let row = stmt
                    .query_map([crate::rows::rel_key(rel)], |r| {
                        Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?])
                    })
                    .at(path)?
                    .next()
                    .transpose()
                    .at(path)?;
                Ok(row.map(|[id, name, description, tags, body]: [String; 5]| {
                    let tags = tag_text(&tags);
                    RecordTerms::new(&[&id, &name, &description, &tags, &body])
                }))
            })
            .collect()
    }
}

/// The tags column's text as it was indexed: `docs` keeps the tags as a
/// JSON list, the index their words.
fn tag_text(json: &str) -> String {
    serde_json::from_str::<Vec<String>>(json)
        .map(|tags| tags.join(" "))
        .unwrap_or_else(|_| json.to_string())
}

impl Weights {
    /// `query` for the ranking of [`Index::recall`]: `None` when no record
    /// could pass `threshold` (the prompt's words together are not specific
    /// enough, or none is rare enough); else without the terms in at least
    /// `costly_rows` records that are too common to be the rare word a
    /// record must share with the prompt: a record holding none of the other
    /// terms cannot pass. A phrase stays when every word of it does. A query
    /// with required terms is kept whole.
    fn deciding_query(
        &self,
        query: &Query,
        threshold: &Threshold,
        costly_rows: i64,
    ) -> Option<Query> {
        let most = self.terms.iter().map(|w| w.share).sum::<f64>();
        let rarest = self.terms.iter().map(|w| w.share).fold(0.0, f64::max);
        let least = threshold.min_specificity.min(threshold.strong_specificity);
        if most < least || rarest < threshold.min_rarest {
            return None;
        }
        if !query.must.is_empty() {
            return Some(query.clone());
        }
        let left_out: HashSet<&Term> = self
            .terms
            .iter()
            .filter(|w| w.rows >= costly_rows && w.share < threshold.min_rarest)
            .map(|w| &w.term)
            .collect();
        let deciding =
            |term: &Term| !left_out.contains(term) && self.terms.iter().any(|w| w.term == *term);
        let holds_word = |unit: &Unit| {
            deciding(&Term {
                units: vec![unit.clone()],
                prefix: false,
            })
        };
        let should = query
            .should
            .iter()
            .filter(|term| {
                deciding(term) || (term.units.len() > 1 && term.units.iter().all(holds_word))
            })
            .cloned()
            .collect();
        Some(Query {
            should,
            ..query.clone()
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::relevance::{THRESHOLD, prompt_query};

    /// Words that stem, fold, join with punctuation and mix scripts, so
    /// that the index's terms and ours could part.
    const WORDS: &[&str] = &[
        "deploy",
        "deploying",
        "Deployments",
        "café",
        "CAFE",
        "naïve",
        "node.js",
        "node",
        "js",
        "部署",
        "部署流程",
        "流程",
        "测试",
        "テスト",
        "데이터",
        "x86_64",
        "v2.1",
        "don't",
        "über",
        "Straße",
        "strasse",
        "ﬁle",
        "file",
        "pytest",
        "conftest.py",
        "friday",
        "Fridays",
        "k8s",
        "e-mail",
        "email",
        "日本語",
        "release",
        "rollback",
        "🙂",
        "\u{E000}",
    ];

    fn text(picks: &[usize]) -> String {
        picks
            .iter()
            .map(|&i| WORDS[i % WORDS.len()])
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A store of `records` (description words, body words), indexed.
    fn indexed(records: &[(Vec<usize>, Vec<usize>)]) -> (tempfile::TempDir, Index) {
        let dir = tempfile::tempdir().unwrap();
        let store = mdstore::Store::create(&dir.path().join("store")).unwrap();
        for (n, (description, body)) in records.iter().enumerate() {
            std::fs::write(
                store.root().join(format!("r{n}.md")),
                format!(
                    "---\nname: r{n}\ndescription: {}\ntype: project\ntags: [{}]\n---\n{}\n",
                    text(description),
                    WORDS[n % WORDS.len()].replace(['[', ']', ','], ""),
                    text(body)
                ),
            )
            .unwrap();
        }
        let mut index = Index::open(&store, &dir.path().join("cache"), &mut |_| {})
            .unwrap()
            .index;
        index.sync().unwrap();
        (dir, index)
    }

    /// How many of the weighed terms FTS5 itself says row `doc` matches.
    fn matched_by_fts(index: &Index, weights: &Weights, hit: &Hit) -> usize {
        let rel = hit.path.strip_prefix(index.store.root()).unwrap();
        let doc: i64 = index
            .conn
            .query_row(
                "SELECT doc FROM docs WHERE rel_path = ?1",
                [crate::rows::rel_key(rel)],
                |r| r.get(0),
            )
            .unwrap();
        weights
            .terms
            .iter()
            .filter(|w| {
                let expr = query::render(&w.term, Stemming::English);
                index
                    .conn
                    .query_row(
                        "SELECT count(*) FROM fts WHERE fts MATCH ?1 AND rowid = ?2",
                        (&expr, doc),
                        |r| r.get::<_, i64>(0),
                    )
                    .unwrap()
                    > 0
            })
            .count()
    }

    fn records() -> impl Strategy<Value = Vec<(Vec<usize>, Vec<usize>)>> {
        let words = || prop::collection::vec(0..WORDS.len(), 0..8);
        prop::collection::vec((words(), words()), 1..12)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn terms_held_by_a_records_text_are_those_fts5_matches(
            records in records(),
            prompt in prop::collection::vec(0..WORDS.len(), 1..6),
        ) {
            let (_dir, index) = indexed(&records);
            let Some(query) = prompt_query(&text(&prompt)) else { return Ok(()) };
            let weights = index.weigh(&query).unwrap();
            let hits = index.search(&query, 100, &[]).unwrap();
            let evidence = index.evidence_by(&weights, &hits).unwrap();
            for (hit, evidence) in hits.iter().zip(&evidence) {
                prop_assert_eq!(evidence.matched, matched_by_fts(&index, &weights, hit), "{}", hit.id);
            }
        }

        #[test]
        fn recall_passes_exactly_the_hits_a_full_ranking_passes(
            records in records(),
            prompt in prop::collection::vec(0..WORDS.len(), 1..6),
        ) {
            let (_dir, index) = indexed(&records);
            let Some(query) = prompt_query(&text(&prompt)) else { return Ok(()) };
            for threshold in [THRESHOLD, Threshold { min_specificity: 0.3, min_coverage: 0.0, strong_specificity: 1.0, min_rarest: 0.5 }] {
                let hits = index.search(&query, 100, &[]).unwrap();
                let evidence = index.evidence(&query, &hits).unwrap();
                let mut full: Vec<String> = hits
                    .iter()
                    .zip(&evidence)
                    .filter(|(_, e)| e.passes(&threshold))
                    .map(|(h, _)| h.id.clone())
                    .collect();
                // Every term counts as costly, so that these small stores
                // leave words out of the ranking as a large one does.
                let mut recalled: Vec<String> = index
                    .recall_leaving_out(&query, 100, &threshold, 0)
                    .unwrap()
                    .into_iter()
                    .map(|(h, _)| h.id)
                    .collect();
                full.sort();
                recalled.sort();
                prop_assert_eq!(recalled, full);
                // What the ranking left out could never be the rare word a
                // record must share with the prompt.
                let weights = index.weigh(&query).unwrap();
                if let Some(deciding) = weights.deciding_query(&query, &threshold, 0) {
                    for weight in &weights.terms {
                        if !deciding.should.contains(&weight.term) {
                            prop_assert!(weight.share < threshold.min_rarest, "{}", weight.share);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_prompt_of_words_every_record_holds_ranks_nothing() {
        let every: Vec<(Vec<usize>, Vec<usize>)> =
            (0..40).map(|_| (vec![0, 23], vec![31])).collect();
        let (_dir, index) = indexed(&every);
        let query = prompt_query("deploy pytest release").unwrap();
        let weights = index.weigh(&query).unwrap();
        assert_eq!(weights.terms.len(), 3, "all three are in the store");
        assert_eq!(weights.deciding_query(&query, &THRESHOLD, 0), None);
        assert!(index.recall(&query, 10, &THRESHOLD).unwrap().is_empty());
    }
}
