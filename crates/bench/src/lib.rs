/*!
What the benchmark and evaluation programs share with their tests: the
retrieval evaluation ([`eval`], [`other_words`]), run by
`src/bin/retrieval_eval.rs` to write docs/RETRIEVAL.md; and the relevance
evaluation of `memctl context` ([`context`], [`sets`], [`binary`],
[`report`], [`sweep`]), run by `src/bin/context_eval.rs`,
`src/bin/real_eval.rs` and `src/bin/relevance_sweep.rs` (docs/CONTEXT.md).
*/
#![forbid(unsafe_code)]

pub mod binary;
pub mod candidates;
pub mod context;
pub mod eval;
pub mod other_words;
pub mod report;
pub mod sets;
pub mod sweep;
pub mod watcher;
