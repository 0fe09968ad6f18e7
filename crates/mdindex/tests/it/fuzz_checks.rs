//! The property mdindex's query fuzz target checks on every input. The target
//! (fuzz/fuzz_targets/query.rs) includes this file, and `fuzz_replay` runs
//! every file of its corpus through it, so CI replays what the fuzzer found
//! on a stable toolchain. A broken property panics: the fuzzer's crash.

use mdindex::query::{self, QueryError};
use mdwords::Stemming;
use rusqlite::Connection;

/// An FTS5 table with the index's tokenizer and columns (mdindex/src/db.rs)
/// and a few rows, to run the MATCH strings a query becomes.
pub fn fts_table() -> Connection {
    let db = Connection::open_in_memory().expect("an in-memory database");
    db.execute_batch(&format!(
        "CREATE VIRTUAL TABLE fts USING fts5 (id, name, description, tags, body, tokenize = '{}');
         INSERT INTO fts VALUES ('a', 'prefer pytest', 'tests use pytest', 'ci', 'never unittest');
         INSERT INTO fts VALUES ('b', '测试', '测试一律用 pytest', '', 'café naïve');",
        mdindex::fts::TOKENIZER.replace('\'', "''")
    ))
    .expect("the FTS5 table");
    db
}

/// SPEC §5: a query is never a syntax error. Parsing any text gives a
/// query or one of the two typed errors, and every MATCH string a query
/// becomes is one FTS5 accepts.
pub fn query_text(db: &Connection, data: &[u8]) {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = match query::parse(input) {
        Ok(parsed) => parsed,
        Err(QueryError::UnknownFilterValue { value, .. }) => {
            assert!(!value.is_empty(), "an empty filter value is text");
            return;
        }
        Err(QueryError::NothingToSearch) => return,
    };
    let _ = parsed.ensure_selective(&[]);
    let strings = [
        parsed.fts_match(),
        parsed.fts_match_with(Stemming::None),
        parsed.fts_exclude(),
    ];
    for fts_match in strings.into_iter().flatten() {
        let counted: rusqlite::Result<i64> = db.query_row(
            "SELECT count(*) FROM fts WHERE fts MATCH ?",
            [&fts_match],
            |row| row.get(0),
        );
        if let Err(error) = counted {
            panic!("{input:?} became MATCH {fts_match:?}, which FTS5 rejects: {error}");
        }
    }
}
