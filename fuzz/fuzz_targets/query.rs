//! mdindex::query::parse on any text, and its MATCH strings run by FTS5
//! (SPEC §5: a query is never a syntax error).
#![no_main]

use std::cell::RefCell;

#[path = "../../crates/mdindex/tests/it/fuzz_checks.rs"]
mod checks;

thread_local! {
    static DB: RefCell<Option<rusqlite::Connection>> = const { RefCell::new(None) };
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    DB.with(|db| {
        let mut db = db.borrow_mut();
        let db = db.get_or_insert_with(checks::fts_table);
        checks::query_text(db, data);
    });
});
