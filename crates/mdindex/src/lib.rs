/*!
`mdindex` keeps the derived SQLite FTS5 index of an mdstore store: it builds
and syncs it, watches the store for changes, parses the query language and
ranks results. The index is never the truth: it can be deleted at any time.
*/
#![forbid(unsafe_code)]

pub mod query;
pub mod snippet;
mod stopwords;
pub mod text;
