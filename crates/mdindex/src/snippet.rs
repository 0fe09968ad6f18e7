//! Snippets: the part of a record that best shows why it matched, with the
//! matches marked.
//!
//! OWNER: helper H3b. Keep these signatures (add, don't break).

use std::ops::Range;

use crate::query::Query;

/// A short excerpt and the byte ranges in it that matched the query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snippet {
    pub text: String,
    pub marks: Vec<Range<usize>>,
}

impl Snippet {
    /// The excerpt with each match in `[` `]` (SPEC §5, no terminal).
    pub fn bracketed(&self) -> String {
        self.text.clone()
    }
}

/// The best excerpt of `text` (at most `max_chars` characters) for `query`.
pub fn make(text: &str, query: &Query, max_chars: usize) -> Snippet {
    let _ = (query, max_chars);
    Snippet {
        text: text.to_string(),
        marks: Vec::new(),
    }
}
