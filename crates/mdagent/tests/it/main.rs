//! The application layer's use cases, run as a face runs them: a
//! [`mdagent::Config`] made from a few variables (never this process's
//! environment), stores in a temporary folder.

// Helpers outside `#[test]` functions are test code too: a failed `unwrap`
// there is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod context;
mod dream;
mod edit;
mod extract;
mod extract_run;
mod forget;
mod history;
mod maintain;
mod remember;
mod review;
mod search;
mod status;
mod support;
