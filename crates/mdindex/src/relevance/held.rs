//! Which query terms a record holds, decided from the record's own text
//! prepared as the index prepares it: asking the index instead ("does row
//! 42 match `deploy`?") reads the word's whole list of rows each time, and a
//! word most records contain has thousands.

use std::collections::HashSet;

use crate::query::Spelling;
use crate::text;

/// A pattern of index terms: a phrase, its last term a prefix when
/// `prefix` is set.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Pattern {
    terms: Vec<String>,
    prefix: bool,
}

impl Pattern {
    /// The pattern of one spelling of a query term, folded as FTS5's
    /// tokenizer folds the query.
    pub(crate) fn of(spelling: &Spelling) -> Pattern {
        Pattern {
            terms: index_terms(&spelling.tokens).collect(),
            prefix: spelling.prefix,
        }
    }

    /// The one index term this pattern is, if it is a single whole term.
    pub(crate) fn single(&self) -> Option<&str> {
        match self.terms.as_slice() {
            [one] if !self.prefix => Some(one),
            _ => None,
        }
    }

    fn matches_at(&self, column: &[String], at: usize) -> bool {
        let last = self.terms.len() - 1;
        self.terms.iter().enumerate().all(|(i, term)| {
            column.get(at + i).is_some_and(|found| {
                if i == last && self.prefix {
                    found.starts_with(term.as_str())
                } else {
                    found == term
                }
            })
        })
    }
}

/// A record's indexed columns as index terms, in order.
pub(crate) struct RecordTerms {
    columns: Vec<Vec<String>>,
    all: HashSet<String>,
}

impl RecordTerms {
    /// The terms of a record whose indexed columns hold `columns` (the raw
    /// text, as `docs` keeps it).
    pub(crate) fn new(columns: &[&str]) -> RecordTerms {
        let columns: Vec<Vec<String>> = columns
            .iter()
            .map(|column| index_terms(&text::index_text(column)).collect())
            .collect();
        let all = columns.iter().flatten().cloned().collect();
        RecordTerms { columns, all }
    }

    /// Whether any of `patterns` (the spellings of one query term) occurs
    /// within one column, as FTS5 would match it.
    pub(crate) fn holds(&self, patterns: &[Pattern]) -> bool {
        patterns.iter().any(|pattern| match pattern.single() {
            Some(term) => self.all.contains(term),
            None if pattern.terms.is_empty() => false,
            None => self
                .columns
                .iter()
                .any(|column| (0..column.len()).any(|at| pattern.matches_at(column, at))),
        })
    }
}

/// Prepared text split into index terms, folded as FTS5's `unicode61
/// remove_diacritics 2` tokenizer folds them (prepared text separates
/// terms with single spaces).
fn index_terms(prepared: &str) -> impl Iterator<Item = String> + '_ {
    prepared
        .split(' ')
        .filter(|piece| !piece.is_empty())
        .map(text::fold)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query;
    use crate::text::Stemming;

    fn patterns(words: &str) -> Vec<Pattern> {
        let query = query::parse(words).unwrap();
        let term = query.must.first().or(query.should.first()).unwrap();
        query::spell(term, Stemming::English)
            .iter()
            .map(Pattern::of)
            .collect()
    }

    fn record(body: &str) -> RecordTerms {
        RecordTerms::new(&["an-id", "A name", "", "", body])
    }

    #[test]
    fn a_stemmed_word_is_held_in_any_inflection() {
        let record = record("We were Deploying on Fridays.");
        assert!(record.holds(&patterns("deployments")));
        assert!(record.holds(&patterns("friday")));
        assert!(!record.holds(&patterns("release")));
    }

    #[test]
    fn a_phrase_is_held_only_with_its_words_adjacent_in_one_column() {
        let record = RecordTerms::new(&["id", "node", "", "", "js node.js"]);
        assert!(record.holds(&patterns("\"node js\"")));
        assert!(!record.holds(&patterns("\"js node js node\"")));
        let split = RecordTerms::new(&["id", "node", "", "", "js"]);
        assert!(!split.holds(&patterns("\"node js\"")), "across columns");
    }

    #[test]
    fn a_prefix_matches_the_start_of_a_term() {
        let record = record("kubernetes clusters");
        assert!(record.holds(&patterns("kube*")));
        assert!(!record.holds(&patterns("kubo*")));
    }

    #[test]
    fn cjk_bigrams_and_accents_fold_as_the_index_folds_them() {
        let record = record("部署流程 Café");
        assert!(record.holds(&patterns("部署")));
        assert!(record.holds(&patterns("cafe")));
        assert!(!record.holds(&patterns("流部")));
    }
}
