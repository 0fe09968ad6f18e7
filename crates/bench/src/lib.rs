/*!
What the benchmark programs share with their tests: the retrieval evaluation
([`eval`]), run by `src/bin/retrieval_eval.rs` to write docs/RETRIEVAL.md.
*/
#![forbid(unsafe_code)]

pub mod context;
pub mod eval;
pub mod watcher;
