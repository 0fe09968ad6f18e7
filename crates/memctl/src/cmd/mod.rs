//! One module per command (or family of small ones).

pub mod admin;
pub mod context;
pub mod dream;
pub mod edit;
pub mod extract;
pub mod forget;
pub mod read;
pub mod remember;
pub mod search;
