//! The query language of SPEC §5, parsed by our own code into FTS5 syntax.
//!
//! OWNER: helper H3b. Keep these signatures (add, don't break).

use mdstore::RecordType;

/// Which store(s) a search covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    Workspace,
    Global,
}

/// A parsed query: text for FTS5 plus filters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Query {
    pub types: Vec<RecordType>,
    pub tags: Vec<String>,
    pub scopes: Vec<Scope>,
}

/// Parses anything a user types; never fails.
pub fn parse(input: &str) -> Query {
    let _ = input;
    Query::default()
}

impl Query {
    /// The FTS5 MATCH expression selecting the rows that may be returned, or
    /// `None` when the query has no text (filters only: every row matches).
    pub fn fts_match(&self) -> Option<String> {
        None
    }

    /// The FTS5 MATCH expression of rows to exclude (`-term`), if any.
    pub fn fts_exclude(&self) -> Option<String> {
        None
    }
}
