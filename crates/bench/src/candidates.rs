//! Ranking candidates for questions asked in other words (issue 14 item 4,
//! docs/RETRIEVAL.md): pseudo-relevance feedback, proximity and column
//! weights, measured in the bench before any of them may enter mdindex.
//!
//! Each candidate starts from ours as `memctl search` ranks (an in-memory
//! FTS5 index of [`mdwords::index_text`] columns, [`query::parse`]'s match,
//! BM25) so that the difference is the candidate's alone.

use std::collections::{HashMap, HashSet};

use mdindex::query;
use mdwords::stopwords;

use crate::eval::{Doc, System, SystemIndex};

/// Ways to rank, each a change to ours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Candidate {
    /// Ours under other BM25 column weights (`id, name, description, tags, body`).
    Weights([f64; 5]),
    /// RM3-style pseudo-relevance feedback: the `terms` heaviest terms of
    /// the first `docs` records (by share of the record, rarity and the
    /// record's score) asked as a second query; a record's score is its
    /// first score plus `weight` times its second, each relative to its
    /// query's best.
    Feedback {
        docs: usize,
        terms: usize,
        weight: f64,
    },
    /// The first [`RERANKED`] records get `weight` times their proximity
    /// (the sum over pairs of the question's terms of one over the least
    /// distance between them, in terms), relative to the best one's.
    Proximity { weight: f64 },
}

/// Records a proximity bonus may reorder.
pub const RERANKED: usize = 30;

/// Ours in memory, unchanged: what the candidates change.
pub const BASE: Candidate = Candidate::Weights(mdindex::fts::BM25_WEIGHTS);

/// Each candidate's setting chosen on the tune half by `ranking_sweep`
/// (2026-12-02), by recall@10, then all needs @10, then MRR@10.
pub const CHOSEN: [(&str, Candidate); 3] = [
    (
        "column weights (body 2)",
        Candidate::Weights([1.0, 1.0, 1.0, 1.0, 2.0]),
    ),
    (
        "feedback (3 records, 20 terms, weight 1)",
        Candidate::Feedback {
            docs: 3,
            terms: 20,
            weight: 1.0,
        },
    ),
    (
        "proximity (weight 0.25)",
        Candidate::Proximity { weight: 0.25 },
    ),
];

/// The settings `ranking_sweep` tries on the tune half.
pub fn grid() -> Vec<Candidate> {
    let mut grid: Vec<Candidate> = [
        [1.0; 5],
        mdindex::fts::BM25_WEIGHTS,
        [1.0, 1.5, 1.25, 1.0, 1.0],
        [1.0, 3.0, 2.0, 1.0, 1.0],
        [1.0, 2.0, 1.5, 2.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 2.0],
        [0.5, 2.0, 1.5, 0.5, 1.0],
    ]
    .into_iter()
    .map(Candidate::Weights)
    .collect();
    for docs in [3, 5, 10] {
        for terms in [5, 10, 20] {
            for weight in [0.2, 0.5, 1.0] {
                grid.push(Candidate::Feedback {
                    docs,
                    terms,
                    weight,
                });
            }
        }
    }
    for weight in [0.1, 0.25, 0.5, 1.0] {
        grid.push(Candidate::Proximity { weight });
    }
    grid
}

/// One store's records, indexed as ours, with each record's terms in order.
pub struct Candidates {
    index: SystemIndex,
    /// The terms of each record's name, description, tags and body, in order.
    terms: Vec<Vec<String>>,
    /// Records holding each term.
    df: HashMap<String, usize>,
}

impl Candidates {
    pub fn new(docs: &[Doc]) -> rusqlite::Result<Candidates> {
        let index = SystemIndex::build(System::Ours, docs)?;
        let terms: Vec<Vec<String>> = docs
            .iter()
            .map(|doc| {
                let [_, name, description, tags, body] = doc.columns();
                [name, description, tags, body]
                    .iter()
                    .flat_map(|column| terms_of(column))
                    .collect()
            })
            .collect();
        let mut df: HashMap<String, usize> = HashMap::new();
        for record in &terms {
            for term in record.iter().collect::<HashSet<_>>() {
                *df.entry(term.clone()).or_default() += 1;
            }
        }
        Ok(Candidates { index, terms, df })
    }

    /// The best `limit` records (their positions in the docs) for `question`.
    pub fn rank(
        &self,
        question: &str,
        candidate: Candidate,
        limit: usize,
    ) -> rusqlite::Result<Vec<usize>> {
        let Some(parsed) = query::parse(question).ok() else {
            return Ok(Vec::new());
        };
        let Some(expr) = parsed.fts_match() else {
            return Ok(Vec::new());
        };
        let weights = match candidate {
            Candidate::Weights(weights) => weights,
            _ => mdindex::fts::BM25_WEIGHTS,
        };
        let first = relative(self.index.scored(&expr, weights)?);
        let asked = query_terms(&parsed);
        let scores = match candidate {
            Candidate::Weights(_) => first,
            Candidate::Feedback {
                docs,
                terms,
                weight,
            } => self.with_feedback(first, &asked, docs, terms, weight)?,
            Candidate::Proximity { weight } => self.with_proximity(first, &asked, weight),
        };
        Ok(best(scores).into_iter().take(limit).collect())
    }

    fn with_feedback(
        &self,
        first: HashMap<usize, f64>,
        asked: &HashSet<String>,
        docs: usize,
        terms: usize,
        weight: f64,
    ) -> rusqlite::Result<HashMap<usize, f64>> {
        let expansion = self.feedback_terms(&first, asked, docs, terms);
        if expansion.is_empty() {
            return Ok(first);
        }
        let expr = expansion
            .iter()
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" OR ");
        let second = relative(self.index.scored(&expr, mdindex::fts::BM25_WEIGHTS)?);
        let mut scores = first;
        for (doc, score) in second {
            *scores.entry(doc).or_default() += weight * score;
        }
        Ok(scores)
    }

    /// The `count` heaviest terms, not asked, of the first `docs` records:
    /// each weighs the sum over those records of the record's relative
    /// score times the term's share of the record times its rarity.
    pub fn feedback_terms(
        &self,
        first: &HashMap<usize, f64>,
        asked: &HashSet<String>,
        docs: usize,
        count: usize,
    ) -> Vec<String> {
        let total = self.terms.len() as f64;
        let mut weights: HashMap<&str, f64> = HashMap::new();
        for doc in best(first.clone()).into_iter().take(docs) {
            let Some(terms) = self.terms.get(doc) else {
                continue;
            };
            let share = first.get(&doc).copied().unwrap_or_default() / terms.len().max(1) as f64;
            for term in terms {
                if asked.contains(term) || !is_content_term(term) {
                    continue;
                }
                let df = self.df.get(term).copied().unwrap_or(1) as f64;
                *weights.entry(term).or_default() += share * (total / df).ln();
            }
        }
        let mut ranked: Vec<(&str, f64)> = weights.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        ranked
            .into_iter()
            .take(count)
            .map(|(t, _)| t.to_string())
            .collect()
    }

    fn with_proximity(
        &self,
        first: HashMap<usize, f64>,
        asked: &HashSet<String>,
        weight: f64,
    ) -> HashMap<usize, f64> {
        let top = best(first.clone());
        let near: Vec<(usize, f64)> = top
            .into_iter()
            .take(RERANKED)
            .map(|doc| {
                let terms = self.terms.get(doc).map_or(&[][..], Vec::as_slice);
                (doc, proximity(terms, asked))
            })
            .collect();
        let most = near.iter().map(|(_, p)| *p).fold(0.0_f64, f64::max);
        let mut scores = first;
        if most > 0.0 {
            for (doc, p) in near {
                *scores.entry(doc).or_default() += weight * p / most;
            }
        }
        scores
    }
}

/// The index terms of some text, in order.
fn terms_of(text: &str) -> Vec<String> {
    mdwords::index_text(text)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// The index terms of a query's free and required terms.
pub fn query_terms(query: &query::Query) -> HashSet<String> {
    query
        .marked_terms()
        .flat_map(|term| &term.units)
        .flat_map(|unit| match unit {
            query::Unit::Word(w) | query::Unit::Cjk(w) => terms_of(w),
        })
        .collect()
}

/// Whether a term may be added by feedback: not a stop word, not a number
/// (dates and versions would pull in records of the same month, not topic),
/// at least three characters or CJK.
fn is_content_term(term: &str) -> bool {
    let cjk = !term.is_ascii();
    !stopwords::is_english(term)
        && !term.chars().all(|c| c.is_ascii_digit())
        && (cjk || term.len() >= 3)
}

/// The sum over pairs of distinct asked terms found in `terms` of one over
/// the least distance between them.
pub fn proximity(terms: &[String], asked: &HashSet<String>) -> f64 {
    let mut positions: HashMap<&str, Vec<usize>> = HashMap::new();
    for (at, term) in terms.iter().enumerate() {
        if asked.contains(term) {
            positions.entry(term).or_default().push(at);
        }
    }
    let found: Vec<&Vec<usize>> = positions.values().collect();
    let mut sum = 0.0;
    for (i, a) in found.iter().enumerate() {
        for b in &found[i + 1..] {
            if let Some(d) = least_distance(a, b) {
                sum += 1.0 / d as f64;
            }
        }
    }
    sum
}

/// The least distance between a position of `a` and one of `b` (both
/// ascending), by merging them.
fn least_distance(a: &[usize], b: &[usize]) -> Option<usize> {
    let (mut i, mut j, mut least) = (0, 0, None::<usize>);
    while i < a.len() && j < b.len() {
        let d = a[i].abs_diff(b[j]);
        least = Some(least.map_or(d, |l| l.min(d)));
        if a[i] < b[j] {
            i += 1;
        } else {
            j += 1;
        }
    }
    least
}

/// Scores made relative to the best (which scores 1).
fn relative(scores: Vec<(usize, f64)>) -> HashMap<usize, f64> {
    let most = scores.iter().map(|(_, s)| *s).fold(0.0_f64, f64::max);
    scores
        .into_iter()
        .map(|(doc, s)| (doc, if most > 0.0 { s / most } else { s }))
        .collect()
}

/// Documents by score, best first, ties by position.
fn best(scores: HashMap<usize, f64>) -> Vec<usize> {
    let mut ranked: Vec<(usize, f64)> = scores.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.into_iter().map(|(doc, _)| doc).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    fn asked(words: &[&str]) -> HashSet<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn proximity_sums_one_over_the_least_distance_of_each_pair() {
        let record = terms("a x x b x a c");
        // a-b: 2 (b at 3, a at 5), a-c: 1, b-c: 3.
        let p = proximity(&record, &asked(&["a", "b", "c", "z"]));
        assert!((p - (0.5 + 1.0 + 1.0 / 3.0)).abs() < 1e-9, "{p}");
        assert_eq!(proximity(&record, &asked(&["a"])), 0.0);
    }

    fn doc(id: &str, body: &str) -> Doc {
        Doc {
            id: id.into(),
            kind: mdstore::RecordType::Project,
            name: id.into(),
            description: String::new(),
            tags: String::new(),
            body: body.into(),
        }
    }

    #[test]
    fn feedback_finds_a_record_sharing_only_the_first_hits_words() {
        let docs = vec![
            doc("one", "the billing ledger moved to postgres replicas"),
            doc("two", "ledger replicas lag behind at night"),
            doc("three", "lunch menu of the week"),
            doc("four", "holiday rota for the team"),
        ];
        let c = Candidates::new(&docs).unwrap();
        let plain = c
            .rank(
                "billing",
                Candidate::Weights(mdindex::fts::BM25_WEIGHTS),
                10,
            )
            .unwrap();
        assert_eq!(plain, vec![0]);
        let fed = Candidate::Feedback {
            docs: 1,
            // one, move, postgr (rarer), then ledger and replica.
            terms: 5,
            weight: 0.5,
        };
        assert_eq!(c.rank("billing", fed, 10).unwrap(), vec![0, 1]);
    }

    #[test]
    fn feedback_never_adds_stop_words_numbers_or_asked_terms() {
        assert!(!is_content_term("the"));
        assert!(!is_content_term("2026"));
        assert!(!is_content_term("ab"));
        assert!(is_content_term("ledger"));
        assert!(is_content_term("测试"));
    }
}
