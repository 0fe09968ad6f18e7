//! Integration tests of mdstore: one test binary, one module per subject.

// Helpers outside `#[test]` functions are test code too: a failed `expect`
// there is the test failing, with its message.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod corpus;
mod frontmatter_props;
mod fuzz_checks;
mod fuzz_replay;
mod labelled_secrets;
mod messages;
mod quick_walk;
mod secrets;
mod store_reads;
mod wild;
