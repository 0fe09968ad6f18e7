//! One module per command: parse, call the libraries, render, confirm.

pub mod check;
pub mod completions;
pub mod context;
pub mod dream;
pub mod edit;
pub mod extract;
pub mod forget;
pub mod hook;
pub mod init;
pub mod list;
pub mod log;
pub mod man;
pub mod model;
pub mod reindex;
pub mod remember;
pub mod review;
pub mod search;
pub mod setup;
pub mod show;
pub mod status;
pub mod watch;
