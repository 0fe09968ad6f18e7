//! Integration tests of `mdindex`: the index against real files, watchers
//! and other processes.

// Helpers outside `#[test]` functions are test code too: a failed `unwrap`
// there is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cache;
mod check;
mod child;
mod common;
mod concurrency;
mod corpus;
mod corruption;
mod freshness;
mod fuzz_checks;
mod fuzz_replay;
mod headers;
mod search;
mod watcher;
mod watcher_life;
