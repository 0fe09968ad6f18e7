//! One module per command (or family of small ones).

pub mod admin;
pub mod context;
mod context_hook;
mod context_render;
mod context_session;
pub mod dream;
pub mod edit;
pub mod extract;
pub mod forget;
pub mod read;
pub mod remember;
pub mod search;
