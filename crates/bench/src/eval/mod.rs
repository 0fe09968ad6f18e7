//! The retrieval evaluation (`src/bin/retrieval_eval.rs`, docs/RETRIEVAL.md
//! and docs/SEARCH-LANGUAGES.md): generated English, Chinese, Japanese and
//! Korean memories and questions with known answers, ranked by our index
//! and by alternatives built in the same run.

mod chinese;
mod english;
mod generate;
mod japanese;
mod korean;

use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use rusqlite::Connection;

pub use generate::{Corpus, Doc, Question};

use mdindex::query;
use mdwords::stopwords;
use mdwords::{Preparation, Segment, Stemming};

/// The English, Chinese, Japanese and Korean corpora; `share` (0 to 1) of
/// the possible records are generated.
pub fn corpora(seed: u64, share: f64) -> Vec<Corpus> {
    vec![
        generate::generate(&english::LANGUAGE, seed, share),
        generate::generate(&chinese::LANGUAGE, seed.wrapping_add(1), share),
        generate::generate(&japanese::LANGUAGE, seed.wrapping_add(2), share),
        generate::generate(&korean::LANGUAGE, seed.wrapping_add(3), share),
    ]
}

/// A way to index and query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum System {
    /// Plain BM25: `unicode61` on the raw text, the question's words OR'd,
    /// equal column weights.
    Baseline,
    /// What memctl does: [`mdwords::index_text`], [`mdindex::fts::TOKENIZER`],
    /// [`query::parse`], [`mdindex::fts::BM25_WEIGHTS`].
    Ours,
    /// Ours with equal column weights.
    OursEqualWeights,
    /// Ours before words (TEXT_VERSION 2): a CJK run is one word, so its
    /// bigrams cross particles and word boundaries.
    WholeRuns,
    /// Ours, with each Han word cut further by jieba's dictionary.
    Jieba,
    /// Ours, but stemming left to FTS5's `porter` tokenizer.
    Porter,
    /// The `trigram` tokenizer on the raw text; query words and CJK
    /// fragments of 3+ characters through FTS5, shorter ones by substring
    /// search, scored by their rarity.
    Trigram,
}

impl System {
    pub const ALL: [System; 7] = [
        System::Baseline,
        System::Ours,
        System::OursEqualWeights,
        System::WholeRuns,
        System::Jieba,
        System::Porter,
        System::Trigram,
    ];

    pub fn name(self) -> &'static str {
        match self {
            System::Baseline => "baseline BM25",
            System::Ours => "ours",
            System::OursEqualWeights => "ours, equal weights",
            System::WholeRuns => "bigrams of whole runs (before words)",
            System::Jieba => "ours + jieba for Han",
            System::Porter => "ours, porter tokenizer",
            System::Trigram => "trigram + substring fallback",
        }
    }

    fn tokenizer(self) -> &'static str {
        match self {
            System::Baseline => "unicode61",
            System::Ours | System::OursEqualWeights | System::WholeRuns | System::Jieba => {
                mdindex::fts::TOKENIZER
            }
            System::Porter => "porter unicode61 remove_diacritics 2",
            System::Trigram => "trigram remove_diacritics 1",
        }
    }

    fn weights(self) -> [f64; 5] {
        match self {
            System::Baseline | System::OursEqualWeights => [1.0; 5],
            System::Ours | System::WholeRuns | System::Jieba | System::Porter | System::Trigram => {
                mdindex::fts::BM25_WEIGHTS
            }
        }
    }

    /// How long preparing the columns of `docs` takes, without inserting.
    pub fn prepare_time(self, docs: &[Doc]) -> Duration {
        let started = Instant::now();
        let bytes: usize = docs
            .iter()
            .flat_map(|doc| doc.columns().map(|column| self.prepare(column).len()))
            .sum();
        std::hint::black_box(bytes);
        started.elapsed()
    }

    fn prepare(self, column: &str) -> String {
        match self {
            System::Baseline => column.to_string(),
            System::Ours | System::OursEqualWeights => mdwords::index_text(column),
            System::Porter => mdwords::prepare(column, &PORTER),
            System::Trigram => mdwords::normalize(column).into_owned(),
            System::WholeRuns => mdwords::prepare(column, &Preparation::WHOLE_RUNS),
            System::Jieba => mdwords::prepare(column, &JIEBA_WORDS),
        }
    }

    /// How long a process takes to build what the system needs before it
    /// first prepares text (jieba's dictionary; nothing for the others).
    pub fn load_time(self) -> Duration {
        let started = Instant::now();
        if self == System::Jieba {
            std::hint::black_box(jieba_rs::Jieba::new());
        }
        started.elapsed()
    }
}

/// Ours, with stemming left to FTS5's `porter` tokenizer.
const PORTER: Preparation = Preparation {
    stemming: Stemming::None,
    ..Preparation::INDEX
};

/// Ours, with Han words cut by jieba.
const JIEBA_WORDS: Preparation = Preparation {
    cjk_words: jieba_words,
    ..Preparation::INDEX
};

static JIEBA: LazyLock<jieba_rs::Jieba> = LazyLock::new(jieba_rs::Jieba::new);

/// Our words of a CJK run, each of Han characters only cut again by jieba
/// (its dictionary, without its HMM for unknown words).
fn jieba_words(run: &str, words: &mut Vec<Range<usize>>) {
    let mut ours = Vec::new();
    mdwords::cjk_words(run, &mut ours);
    for word in ours {
        let piece = &run[word.clone()];
        if !piece
            .chars()
            .all(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
        {
            words.push(word);
            continue;
        }
        words.extend(
            JIEBA
                .cut(piece, false)
                .into_iter()
                .map(|token| word.start + token.byte_start..word.start + token.byte_end),
        );
    }
}

/// An in-memory FTS5 index of some documents under one [`System`].
pub struct SystemIndex {
    db: Connection,
    system: System,
    /// Lower-cased text of each document, for the trigram system's short terms.
    haystacks: Vec<String>,
    /// How long preparing and inserting the documents took.
    pub insert_time: Duration,
}

impl SystemIndex {
    pub fn build(system: System, docs: &[Doc]) -> rusqlite::Result<SystemIndex> {
        let mut db = Connection::open_in_memory()?;
        db.execute_batch(&format!(
            "CREATE VIRTUAL TABLE fts USING fts5(id, name, description, tags, body, \
             tokenize='{}');",
            system.tokenizer()
        ))?;
        let started = Instant::now();
        let tx = db.transaction()?;
        {
            let mut insert = tx.prepare(
                "INSERT INTO fts(rowid, id, name, description, tags, body) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for (row, doc) in docs.iter().enumerate() {
                let [a, b, c, d, e] = doc.columns().map(|column| system.prepare(column));
                insert.execute(rusqlite::params![row as i64, a, b, c, d, e])?;
            }
        }
        tx.commit()?;
        let insert_time = started.elapsed();
        let haystacks = if system == System::Trigram {
            docs.iter()
                .map(|doc| mdwords::normalize(&doc.columns().join("\n")).to_lowercase())
                .collect()
        } else {
            Vec::new()
        };
        Ok(SystemIndex {
            db,
            system,
            haystacks,
            insert_time,
        })
    }

    /// Bytes of the database holding the index.
    pub fn size_bytes(&self) -> rusqlite::Result<i64> {
        let pages: i64 = self.db.query_row("PRAGMA page_count", [], |r| r.get(0))?;
        let size: i64 = self.db.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        Ok(pages * size)
    }

    /// The documents best answering `question`, best first.
    pub fn rank(&self, question: &str, limit: usize) -> rusqlite::Result<Vec<usize>> {
        let (expr, short) = match self.system {
            System::Baseline => (baseline_match(question), Vec::new()),
            System::Ours | System::OursEqualWeights => (
                query::parse(question).ok().and_then(|q| q.fts_match()),
                Vec::new(),
            ),
            System::WholeRuns => (
                query::parse_with(question, &Preparation::WHOLE_RUNS)
                    .ok()
                    .and_then(|q| q.fts_match()),
                Vec::new(),
            ),
            System::Jieba => (
                query::parse_with(question, &JIEBA_WORDS)
                    .ok()
                    .and_then(|q| q.fts_match()),
                Vec::new(),
            ),
            System::Porter => (
                query::parse(question)
                    .ok()
                    .and_then(|q| q.fts_match_with(Stemming::None)),
                Vec::new(),
            ),
            System::Trigram => trigram_terms(question),
        };
        let mut scores: HashMap<usize, f64> = HashMap::new();
        if let Some(expr) = expr {
            scores.extend(self.scored(&expr, self.system.weights())?);
        }
        // Short terms: inverse document frequency of each one a document contains.
        let total = self.haystacks.len() as f64;
        for term in &short {
            let hits: Vec<usize> = (0..self.haystacks.len())
                .filter(|&i| self.haystacks[i].contains(term.as_str()))
                .collect();
            let idf = (1.0 + total / hits.len().max(1) as f64).ln();
            for i in hits {
                *scores.entry(i).or_default() += idf;
            }
        }
        let mut ranked: Vec<(usize, f64)> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(ranked.into_iter().take(limit).map(|(doc, _)| doc).collect())
    }
}

impl SystemIndex {
    /// Every document matching the FTS5 expression `expr`, with its BM25
    /// score under the column `weights` (positive, higher is better), in no
    /// particular order.
    pub fn scored(&self, expr: &str, weights: [f64; 5]) -> rusqlite::Result<Vec<(usize, f64)>> {
        let w = weights;
        let mut stmt = self.db.prepare_cached(
            "SELECT rowid, bm25(fts, ?2, ?3, ?4, ?5, ?6) FROM fts WHERE fts MATCH ?1",
        )?;
        let rows = stmt.query_map(
            rusqlite::params![expr, w[0], w[1], w[2], w[3], w[4]],
            |row| Ok((row.get::<_, i64>(0)?, row.get::<_, f64>(1)?)),
        )?;
        rows.map(|row| {
            row.map(|(rowid, bm25)| (usize::try_from(rowid).unwrap_or(usize::MAX), -bm25))
        })
        .collect()
    }
}

/// The question's words as typed, OR'd: what a plain BM25 search does.
fn baseline_match(question: &str) -> Option<String> {
    let words: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| format!("\"{w}\""))
        .collect();
    (!words.is_empty()).then(|| words.join(" OR "))
}

/// The trigram system's query: an FTS5 expression of the terms of three or
/// more characters, and the shorter terms. Stop words are dropped as ours
/// does; a CJK run keeps its fragments between stop bigrams.
fn trigram_terms(question: &str) -> (Option<String>, Vec<String>) {
    let question = mdwords::normalize(question).to_lowercase();
    let mut terms = Vec::new();
    for (range, kind) in mdwords::segments(&question) {
        let piece = &question[range];
        match kind {
            Segment::Word if !stopwords::is_english(&mdwords::fold(piece)) => {
                terms.push(piece.to_string())
            }
            Segment::Word => {}
            Segment::Cjk => terms.extend(cjk_fragments(piece)),
        }
    }
    if terms.is_empty() {
        terms = mdwords::segments(&question)
            .map(|(r, _)| question[r].to_string())
            .collect();
    }
    let (long, short): (Vec<String>, Vec<String>) =
        terms.into_iter().partition(|t| t.chars().count() >= 3);
    let expr = (!long.is_empty()).then(|| {
        long.iter()
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" OR ")
    });
    (expr, short)
}

/// The parts of a CJK run left when its stop bigrams are cut out.
fn cjk_fragments(run: &str) -> Vec<String> {
    let chars: Vec<char> = run.chars().collect();
    if chars.len() < 2 {
        return vec![run.to_string()];
    }
    let mut fragments = Vec::new();
    let mut current: Vec<char> = Vec::new();
    for pair in chars.windows(2) {
        let bigram: String = pair.iter().collect();
        if stopwords::is_cjk_stop_word(&bigram) {
            if current.len() >= 2 {
                fragments.push(current.iter().collect());
            }
            current.clear();
        } else if current.is_empty() {
            current.extend(pair);
        } else {
            current.push(pair[1]);
        }
    }
    if current.len() >= 2 {
        fragments.push(current.iter().collect());
    }
    fragments
}

/// Recall and reciprocal rank of one system on one corpus.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scores {
    pub questions: usize,
    /// Share of questions whose answer is in the first 5 results.
    pub recall_at_5: f64,
    /// Share of questions whose answer is in the first 10 results.
    pub recall_at_10: f64,
    /// Mean reciprocal rank of the answer within the first 10 (0 beyond).
    pub mrr_at_10: f64,
}

/// Ranks each question of `questions` with `rank` and scores the results.
pub fn score<'q>(
    questions: impl IntoIterator<Item = &'q Question>,
    mut rank: impl FnMut(&str) -> rusqlite::Result<Vec<usize>>,
) -> rusqlite::Result<Scores> {
    let mut scores = Scores::default();
    for question in questions {
        let ranked = rank(&question.text)?;
        let position = ranked.iter().take(10).position(|&d| d == question.answer);
        scores.questions += 1;
        if let Some(p) = position {
            scores.recall_at_10 += 1.0;
            scores.mrr_at_10 += 1.0 / (p + 1) as f64;
            if p < 5 {
                scores.recall_at_5 += 1.0;
            }
        }
    }
    let n = scores.questions.max(1) as f64;
    scores.recall_at_5 /= n;
    scores.recall_at_10 /= n;
    scores.mrr_at_10 /= n;
    Ok(scores)
}

/// Ours first, then what the trigram index adds: option (c), both indexes.
pub fn rank_both(
    ours: &SystemIndex,
    trigram: &SystemIndex,
    question: &str,
    limit: usize,
) -> rusqlite::Result<Vec<usize>> {
    let mut ranked = ours.rank(question, limit)?;
    for doc in trigram.rank(question, limit)? {
        if ranked.len() >= limit {
            break;
        }
        if !ranked.contains(&doc) {
            ranked.push(doc);
        }
    }
    Ok(ranked)
}

#[cfg(test)]
mod tests;
