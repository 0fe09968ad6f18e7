//! Each tool's answer, one type a tool: its `outputSchema` is derived from
//! it, and its `structuredContent` is it serialised (a REFUSED answer too,
//! though it is marked as a tool error).

use std::path::PathBuf;

use mdagent::context::Context;
use mdagent::records::{HitJson, RecordJson, SummaryJson};
use mdstore::Scope;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchAnswer {
    pub results: Vec<SearchRow>,
    /// What the search had to do first (an index rebuilt, say).
    pub notes: Vec<String>,
}

/// A hit as `search --json` gives it, and whether it has expired.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchRow {
    #[serde(flatten)]
    pub hit: HitJson,
    /// Its `expires` has passed: it no longer holds.
    pub expired: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ShowAnswer {
    pub records: Vec<ShownRecord>,
    /// The ids asked for that name no record (or not one that can be read).
    pub not_found: Vec<NotShown>,
}

/// A record as `show --json` gives it, what `forget` needs of it, and
/// whether it has expired.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShownRecord {
    #[serde(flatten)]
    pub record: RecordJson,
    /// The hash of what you read (type, source, description, body):
    /// `forget` needs it.
    pub read_hash: String,
    pub expired: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct NotShown {
    pub id: String,
    pub error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ListAnswer {
    pub records: Vec<ListedRecord>,
    /// Files that look like records but cannot be read as one.
    pub skipped: Vec<SkippedFile>,
}

/// A header as `list --json` gives it, and whether it has expired.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ListedRecord {
    #[serde(flatten)]
    pub summary: SummaryJson,
    pub expired: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SkippedFile {
    pub path: PathBuf,
    pub reason: String,
}

/// What `memctl context --json` prints: the policy, `MEMORY.md` at the
/// start of a session, the records recalled.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContextAnswer {
    // Flattened, not transparent: the schema's root must say `"type":
    // "object"`, which a `$ref` does not (rmcp drops such an output schema
    // for older clients).
    #[serde(flatten)]
    pub context: Context,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum RememberOperation {
    Add,
    Update,
    Noop,
    Refused,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RememberAnswer {
    pub operation: RememberOperation,
    pub id: String,
    pub scope: &'static str,
    /// The record's file (ADD, UPDATE).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// Its revision now (ADD, UPDATE).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The record that already says it (NOOP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub existing: Option<String>,
    #[serde(flatten)]
    pub outcome: Outcome,
}

impl RememberAnswer {
    /// An answer with nothing but its operation, id, scope and outcome.
    pub fn new(
        operation: RememberOperation,
        id: String,
        scope: Scope,
        outcome: Outcome,
    ) -> RememberAnswer {
        RememberAnswer {
            operation,
            id,
            scope: scope.as_str(),
            path: None,
            revision: None,
            source: None,
            warnings: Vec::new(),
            existing: None,
            outcome,
        }
    }
}

/// Why nothing was written, what to do, and what became of `MEMORY.md`.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct Outcome {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// A hand-made `MEMORY.md` kept beside the new one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Saved, but `MEMORY.md` could not be updated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

impl Outcome {
    /// Why, and what to do.
    pub fn because(reason: String, hint: Option<String>) -> Outcome {
        Outcome {
            reason: Some(reason),
            hint,
            ..Outcome::default()
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum ForgetOperation {
    Forgotten,
    Refused,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ForgetAnswer {
    pub operation: ForgetOperation,
    pub id: String,
    pub scope: &'static str,
    /// The revision forgotten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    #[serde(flatten)]
    pub outcome: Outcome,
}
