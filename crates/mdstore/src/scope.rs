//! Which store a record lives in: the project's workspace store or the
//! user's global one (SPEC §1). One type for every crate: the stores a
//! command finds, a query's `scope:` filter, a dream plan's records.

use serde::{Deserialize, Serialize};

/// Which store a record lives in. Records of different scopes are never
/// merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Workspace,
    Global,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Workspace => "workspace",
            Scope::Global => "global",
        }
    }
}
