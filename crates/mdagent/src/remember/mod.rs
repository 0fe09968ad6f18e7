//! `remember`: candidates classified, shown, confirmed, then written
//! through one transaction per store (SPEC §6). The protocol itself (lock,
//! re-planning, the conflict rule, `MEMORY.md`) is `mdstore::txn`'s; this
//! use case runs it for a batch a person confirms ([`run_batch`]: the
//! command line, `extract`, `review`) and for one candidate an agent gives,
//! confirmed by nobody ([`write_unconfirmed`]: the MCP server). What the
//! face shows and asks goes through [`Face`]; what is said about a
//! candidate is [`say`]'s, the same to a person and to an agent.

mod batch;
pub mod input;
mod one;
mod outcome;
pub mod say;
mod targets;

pub use batch::{Batch, Done, Face, Item, run_batch};
pub use one::{CatalogNews, Written, write_unconfirmed};
pub use outcome::Outcome;
pub use say::*;
