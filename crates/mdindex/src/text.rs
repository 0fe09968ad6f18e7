//! Text preparation shared by indexing and querying: folding, stemming and
//! CJK segmentation decisions live here.
//!
//! OWNER: helper H3b. Keep these signatures (add, don't break): `db`/`sync`
//! (helper H3a) call them.

/// The FTS5 `tokenize=` declaration of the index's text columns.
pub const TOKENIZER: &str = "porter unicode61 remove_diacritics 2";

/// Bumped whenever [`TOKENIZER`] or [`index_text`] changes, so that an index
/// built the old way is rebuilt.
pub const TEXT_VERSION: u32 = 1;

/// BM25 weights of the FTS columns, in the order `id, name, description, tags, body`.
pub const BM25_WEIGHTS: [f64; 5] = [2.0, 8.0, 5.0, 3.0, 1.0];

/// Prepares one column's text for the FTS5 index.
pub fn index_text(text: &str) -> String {
    text.to_string()
}
