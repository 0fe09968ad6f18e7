//! The query language of SPEC §5, parsed by our own code into FTS5 syntax.
//!
//! - free words are alternatives (`OR`), ranked by BM25: a record need not
//!   contain every word, and stop words are dropped unless the query has
//!   nothing else;
//! - `+word` and `"exact phrase"` must match; `-word` and `-"phrase"` must not;
//! - `word*` matches words starting with `word`;
//! - `type:T`, `tag:X` and `scope:global|workspace|all` filter; a `type:` or
//!   `scope:` value that is none of these is an error naming the allowed ones;
//! - everything else is text: FTS5 operators, punctuation and unbalanced
//!   quotes are separators, and every term reaches FTS5 as a quoted string,
//!   so no input is a syntax error.
//!
//! A query that selects nothing (no word, no phrase, no filter: `*`, `(`)
//! parses, but searching with it is [`QueryError::NothingToSearch`].
//!
//! Words are stemmed, and CJK runs cut into words and their bigrams,
//! exactly as [`mdwords::index_text`] does for the index.

use std::borrow::Cow;

use jiff::Timestamp;
use mdstore::RecordType;

use mdwords::stopwords;
use mdwords::{Preparation, Segment, Stemming};

/// Which store(s) a search covers (`scope:`).
pub use mdstore::Scope;

/// At most this many free terms are kept (the first ones): BM25 scores every
/// term against every candidate row, so a pasted page must not cost a
/// thousand terms.
pub const MAX_FREE_TERMS: usize = 64;

/// One piece of a term as the user wrote it, NFKC-normalised.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// A word, lower-cased (not stemmed: rendering stems it).
    Word(String),
    /// A CJK word ([`mdwords::cjk_words`]), or a part of one.
    Cjk(String),
}

/// A word, a phrase (several units that must be adjacent) or a prefix.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Term {
    pub units: Vec<Unit>,
    /// The last word is a prefix (`word*`).
    pub prefix: bool,
}

/// A parsed query: text for FTS5 plus filters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Query {
    pub types: Vec<RecordType>,
    pub tags: Vec<String>,
    pub scopes: Vec<Scope>,
    /// Free terms: any may match; more matches rank higher.
    pub should: Vec<Term>,
    /// `+term` and `"phrase"`: every one must match.
    pub must: Vec<Term>,
    /// `-term`: rows matching any of these are left out.
    pub exclude: Vec<Term>,
    /// When it was asked ([`Query::at`]): hits' ages and the order of a
    /// query of filters only are reckoned from it, so that one request
    /// reads one clock, its caller's. `None` (a library caller with no
    /// request of its own): the clock when the search runs.
    pub asked_at: Option<Timestamp>,
}

/// What is wrong with a query.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// No word, phrase, exclusion or filter: every record would match.
    #[error("nothing to search for: the query has no word, phrase or filter")]
    NothingToSearch,
    /// A known filter with a value it does not take (`type:bogus`).
    #[error("unknown value {value:?} in `{filter}:{value}`; {filter} is one of: {}", allowed.join(", "))]
    UnknownFilterValue {
        filter: &'static str,
        value: String,
        allowed: Vec<&'static str>,
    },
}

/// The values `scope:` takes.
const SCOPE_VALUES: [&str; 3] = ["workspace", "global", "all"];

/// Parses anything a user types. Text is never a syntax error; only a
/// filter with a value it does not take is.
pub fn parse(input: &str) -> Result<Query, QueryError> {
    parse_with(input, &Preparation::INDEX)
}

/// [`parse`] for an index prepared with `preparation` (the retrieval
/// evaluation compares preparations).
pub fn parse_with(input: &str, preparation: &Preparation) -> Result<Query, QueryError> {
    let input = mdwords::normalize(input);
    let mut query = Query::default();
    let mut rest: &str = &input;
    loop {
        rest = rest.trim_start();
        let Some(first) = rest.chars().next() else {
            break;
        };
        let (occur, body) = match first {
            '+' | '-' if starts_term(&rest[1..]) => {
                let occur = if first == '+' {
                    Occur::Must
                } else {
                    Occur::Exclude
                };
                (occur, &rest[1..])
            }
            _ => (Occur::Free, rest),
        };
        if let Some((inner, after)) = quoted(body) {
            let prefix = after.starts_with('*');
            rest = after.trim_start_matches('*');
            let term = Term {
                units: units(inner, preparation),
                prefix,
            };
            match occur {
                Occur::Exclude => query.push_exclude(term),
                Occur::Must | Occur::Free => query.push_must(term),
            }
            continue;
        }
        let end = body.find(char::is_whitespace).unwrap_or(body.len());
        let chunk = &body[..end];
        rest = &body[end..];
        if occur == Occur::Free && query.apply_filter(chunk)? {
            continue;
        }
        let stripped = chunk.trim_end_matches('*');
        let prefix = stripped.len() < chunk.len()
            && stripped
                .chars()
                .next_back()
                .is_some_and(mdwords::is_term_char);
        let term = Term {
            units: units(stripped, preparation),
            prefix,
        };
        match occur {
            Occur::Must => query.push_must(term),
            Occur::Exclude => query.push_exclude(term),
            Occur::Free => query.push_free(term),
        }
    }
    query.drop_stop_words();
    Ok(query)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Occur {
    Free,
    Must,
    Exclude,
}

/// Whether an operator (`+`, `-`) is followed by something it can apply to
/// (`--verbose` and a lone `-` are text).
fn starts_term(after: &str) -> bool {
    after
        .chars()
        .next()
        .is_some_and(|c| c == '"' || mdwords::is_term_char(c))
}

/// `"inner" after` when `text` opens a quote that is closed; an unbalanced
/// quote is an ordinary separator.
fn quoted(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_prefix('"')?;
    let close = inner.find('"')?;
    Some((&inner[..close], &inner[close + 1..]))
}

/// The words of `text`, a CJK run cut into its words as the index cuts it.
fn units(text: &str, preparation: &Preparation) -> Vec<Unit> {
    let mut units = Vec::new();
    let mut words = Vec::new();
    for (range, kind) in mdwords::segments(text) {
        let piece = &text[range];
        match kind {
            // No term in the index either (`mdwords::is_marks_alone`).
            Segment::Word if mdwords::is_marks_alone(piece) => {}
            Segment::Word => units.push(Unit::Word(mdwords::lower(piece))),
            Segment::Cjk => {
                words.clear();
                (preparation.cjk_words)(piece, &mut words);
                units.extend(
                    words
                        .iter()
                        .map(|w| Unit::Cjk(piece[w.clone()].to_string())),
                );
            }
        }
    }
    units
}

impl Query {
    /// This query as asked at `now`: see [`Query::asked_at`].
    pub fn at(self, now: Timestamp) -> Query {
        Query {
            asked_at: Some(now),
            ..self
        }
    }

    /// When the query is reckoned from: [`Query::asked_at`], else now.
    pub(crate) fn now(&self) -> Timestamp {
        self.asked_at.unwrap_or_else(Timestamp::now)
    }

    /// Whether the query has no text, no exclusion and no filter.
    pub fn is_empty(&self) -> bool {
        !self.has_text()
            && self.exclude.is_empty()
            && self.types.is_empty()
            && self.tags.is_empty()
            && self.scopes.is_empty()
    }

    /// [`QueryError::NothingToSearch`] when the query, with the extra type
    /// filters `types`, would select every record.
    pub fn ensure_selective(&self, types: &[RecordType]) -> Result<(), QueryError> {
        if self.is_empty() && types.is_empty() {
            return Err(QueryError::NothingToSearch);
        }
        Ok(())
    }

    /// Whether the query has text to rank by ([`Query::fts_match`] is `Some`).
    pub fn has_text(&self) -> bool {
        !self.should.is_empty() || !self.must.is_empty()
    }

    /// The FTS5 MATCH expression selecting the rows that may be returned, or
    /// `None` when the query has no text (filters only: every row matches).
    pub fn fts_match(&self) -> Option<String> {
        self.fts_match_with(Stemming::English)
    }

    /// [`Query::fts_match`] for an index prepared with `stemming`.
    pub fn fts_match_with(&self, stemming: Stemming) -> Option<String> {
        let render = |term| render(term, stemming);
        let must: Vec<String> = self.must.iter().map(render).collect();
        let should: Vec<String> = self.should.iter().map(render).collect();
        match (must.as_slice(), should.is_empty()) {
            ([], true) => None,
            ([], false) => Some(should.join(" OR ")),
            (_, true) => Some(must.join(" AND ")),
            // The free terms only rank: the group is always true through its
            // first required term, yet BM25 scores every term in it.
            ([first, ..], false) => Some(format!(
                "{} AND ({first} OR {})",
                must.join(" AND "),
                should.join(" OR ")
            )),
        }
    }

    /// The FTS5 MATCH expression of rows to exclude (`-term`), if any.
    pub fn fts_exclude(&self) -> Option<String> {
        let exclude: Vec<String> = self
            .exclude
            .iter()
            .map(|term| render(term, Stemming::English))
            .collect();
        (!exclude.is_empty()).then(|| exclude.join(" OR "))
    }

    /// The terms whose matches a snippet marks: the free and required ones.
    pub fn marked_terms(&self) -> impl Iterator<Item = &Term> {
        self.must.iter().chain(&self.should)
    }

    /// Takes `chunk` as a filter if it is one (`Ok(false)`: it is text).
    fn apply_filter(&mut self, chunk: &str) -> Result<bool, QueryError> {
        let Some((key, value)) = chunk.split_once(':') else {
            return Ok(false);
        };
        if value.is_empty() {
            return Ok(false);
        }
        let unknown = |filter, allowed: Vec<&'static str>| QueryError::UnknownFilterValue {
            filter,
            value: value.to_string(),
            allowed,
        };
        match key.to_ascii_lowercase().as_str() {
            "type" => match RecordType::parse(value) {
                Some(kind) => push_new(&mut self.types, kind),
                None => {
                    let allowed = RecordType::ALL.iter().map(|t| t.as_str()).collect();
                    return Err(unknown("type", allowed));
                }
            },
            "tag" => push_new(&mut self.tags, value.to_string()),
            "scope" => match value.to_ascii_lowercase().as_str() {
                "workspace" => push_new(&mut self.scopes, Scope::Workspace),
                "global" => push_new(&mut self.scopes, Scope::Global),
                "all" => {
                    push_new(&mut self.scopes, Scope::Workspace);
                    push_new(&mut self.scopes, Scope::Global);
                }
                _ => return Err(unknown("scope", SCOPE_VALUES.to_vec())),
            },
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn push_must(&mut self, term: Term) {
        if !term.units.is_empty() {
            push_new(&mut self.must, term);
        }
    }

    fn push_exclude(&mut self, term: Term) {
        if !term.units.is_empty() {
            push_new(&mut self.exclude, term);
        }
    }

    /// A free chunk: each word and each bigram of a CJK word is its own
    /// alternative, so a question need not be a substring of the record; a
    /// CJK stop word stays whole, so that it is known as one and dropped;
    /// the words of a chunk joined by punctuation (`node.js`) also count as
    /// a phrase, which ranks the literal spelling first.
    fn push_free(&mut self, term: Term) {
        let all_words = term.units.iter().all(|u| matches!(u, Unit::Word(_)));
        let last = term.units.len().saturating_sub(1);
        for (i, unit) in term.units.iter().enumerate() {
            match unit {
                Unit::Word(_) => self.push_should(Term {
                    units: vec![unit.clone()],
                    prefix: term.prefix && i == last,
                }),
                Unit::Cjk(word) if stopwords::is_cjk_word(word) => self.push_should(Term {
                    units: vec![unit.clone()],
                    prefix: false,
                }),
                Unit::Cjk(run) => {
                    for gram in cjk_grams(run) {
                        self.push_should(Term {
                            units: vec![Unit::Cjk(gram.to_string())],
                            prefix: false,
                        });
                    }
                }
            }
        }
        if term.units.len() > 1 && all_words {
            self.push_should(term);
        }
    }

    fn push_should(&mut self, term: Term) {
        if self.should.len() < MAX_FREE_TERMS && !self.must.contains(&term) {
            push_new(&mut self.should, term);
        }
    }

    /// Stop words would match nearly every record and drown the ranking;
    /// they stay only when the query has nothing else.
    fn drop_stop_words(&mut self) {
        if self.should.iter().chain(&self.must).any(|t| !is_stop(t)) {
            self.should.retain(|t| !is_stop(t));
        }
    }
}

fn push_new<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// A free CJK run as alternatives: itself when one or two characters, else
/// its overlapping bigrams.
fn cjk_grams(run: &str) -> Vec<&str> {
    let starts: Vec<usize> = run.char_indices().map(|(i, _)| i).collect();
    if starts.len() <= 2 {
        return vec![run];
    }
    starts
        .windows(3)
        .map(|w| &run[w[0]..w[2]])
        .chain(starts.get(starts.len() - 2).map(|&s| &run[s..]))
        .collect()
}

pub(crate) fn is_stop(term: &Term) -> bool {
    !term.prefix
        && term.units.iter().all(|unit| match unit {
            Unit::Word(word) => stopwords::is_english(&mdwords::fold(word)),
            Unit::Cjk(run) => stopwords::is_cjk_stop_word(run),
        })
}

/// A term spelled as the index spells its text: the index terms of a
/// phrase, space-separated, the last one a prefix when `prefix` is set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Spelling {
    pub tokens: String,
    pub prefix: bool,
}

/// The spellings any of which matches `term`: one, or two for a prefix
/// whose word stems differently (`deployment*` must also match
/// `deployment` itself, indexed as `deploy`).
pub(crate) fn spell(term: &Term, stemming: Stemming) -> Vec<Spelling> {
    let mut tokens = String::new();
    let last = term.units.len().saturating_sub(1);
    let mut unstemmed_last = None;
    for (i, unit) in term.units.iter().enumerate() {
        if !tokens.is_empty() {
            tokens.push(' ');
        }
        match unit {
            Unit::Word(word) => {
                if i == last && term.prefix {
                    let before = tokens.len();
                    tokens.push_str(word);
                    let stemmed = mdwords::stem_with(word, stemming);
                    if stemmed != *word {
                        unstemmed_last = Some((before, stemmed));
                    }
                } else {
                    tokens.push_str(&mdwords::stem_with(word, stemming));
                }
            }
            Unit::Cjk(run) => {
                // Inside a phrase, a run followed by more units ends there,
                // as the index's last-character term says; a single
                // character at the end matches as the start of a bigram.
                mdwords::push_cjk(&mut tokens, run, i < last);
            }
        }
    }
    let prefix = match term.units.last() {
        Some(Unit::Cjk(run)) => run.chars().nth(1).is_none(),
        _ => term.prefix,
    };
    let whole = unstemmed_last.map(|(start, stemmed)| Spelling {
        tokens: format!("{}{}", &tokens[..start], stemmed),
        prefix: false,
    });
    std::iter::once(Spelling { tokens, prefix })
        .chain(whole)
        .collect()
}

/// One term as an FTS5 expression: a quoted string of index terms, with `*`
/// for a prefix, or the alternatives of [`spell`] joined by `OR`.
pub(crate) fn render(term: &Term, stemming: Stemming) -> String {
    let exprs: Vec<String> = spell(term, stemming)
        .into_iter()
        .map(|spelling| {
            let mut expr = fts_string(&spelling.tokens);
            if spelling.prefix {
                expr.push('*');
            }
            expr
        })
        .collect();
    match exprs.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", exprs.join(" OR ")),
    }
}

/// `text` as an FTS5 string: quoted, inner quotes doubled.
fn fts_string(text: &str) -> String {
    let text: Cow<'_, str> = if text.contains('"') {
        Cow::Owned(text.replace('"', "\"\""))
    } else {
        Cow::Borrowed(text)
    };
    format!("\"{text}\"")
}

#[cfg(test)]
mod tests;
