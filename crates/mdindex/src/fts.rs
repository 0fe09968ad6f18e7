//! The FTS5 side of the index's text columns: how FTS5 splits what
//! `mdwords::index_text` prepared, and how BM25 weighs the columns.

/// The FTS5 `tokenize=` declaration of the index's text columns. A change
/// bumps `mdwords::TEXT_VERSION`, so that an index built the old way is
/// rebuilt (the index also records this string and compares it).
pub const TOKENIZER: &str = "unicode61 remove_diacritics 2";

/// BM25 weights of the FTS columns, in the order `id, name, description, tags, body`.
pub const BM25_WEIGHTS: [f64; 5] = [1.0, 2.0, 1.5, 1.0, 1.0];
