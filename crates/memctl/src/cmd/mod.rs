//! One module per command (or family of small ones).

pub mod admin;
pub mod dream;
pub mod edit;
pub mod forget;
pub mod read;
pub mod remember;
pub mod search;
