//! A dream plan: the JSON that the rules or a model write, a person confirms
//! and [`crate::apply`] carries out (SPEC §7; its JSON Schema is in
//! docs/dream-plan.schema.json). Every operation names the records it read,
//! at the revision it read them, so that a record changed since is a
//! conflict, never silently overwritten.

use serde::{Deserialize, Serialize};

/// The plan format's version, written in every plan and checked on reading.
pub const PLAN_VERSION: u32 = 1;

pub use mdstore::Scope;

/// Who wrote a plan: the deterministic rules, or a model command. A
/// model's plan is `inferred` text: it may not replace the words of a
/// higher-trust record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    Rules,
    Model,
}

/// What a gatherer found, and so why an operation is proposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Finding {
    ExactDuplicate,
    NearDuplicate,
    Correction,
    Expired,
    OverBudget,
    /// Proposed by a model command, for its own reason.
    Model,
}

/// A record as an operation read it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RecordRef {
    pub scope: Scope,
    pub id: String,
    /// The record's `revision` when it was read (1 when the file has none).
    pub revision: u64,
}

/// The content of a record a `merge` or `update` writes. `source` and the
/// timestamps are not the plan's to choose: apply sets them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NewRecord {
    pub name: String,
    #[serde(rename = "type")]
    pub record_type: String,
    pub description: String,
    pub body: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
}

/// A fact (a line of a source record's body) that a merge or update does not
/// keep, and why: a merged record keeps every fact of its sources unless the
/// plan says which one it drops.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DroppedFact {
    /// The record the fact came from.
    pub id: String,
    pub fact: String,
    pub why: String,
}

/// One change a plan makes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Operation {
    /// Several records become one new record (`merged_from` names them);
    /// the sources are retired with a tombstone each. `into.name` may be one
    /// of the sources' names, which is then updated rather than retired.
    Merge {
        finding: Finding,
        reason: String,
        reads: Vec<RecordRef>,
        into: NewRecord,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        drops: Vec<DroppedFact>,
    },
    /// One record's content is rewritten in place (same id).
    Update {
        finding: Finding,
        reason: String,
        reads: RecordRef,
        record: NewRecord,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        drops: Vec<DroppedFact>,
    },
    /// A record is removed, leaving a tombstone as `forget` does;
    /// `superseded_by` names the record that replaces it, if any.
    Retire {
        finding: Finding,
        reason: String,
        reads: RecordRef,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        superseded_by: Option<RecordRef>,
    },
}

/// Something a gatherer found and the plan does not act on (a correction
/// that cannot be decided without a person, records of different trust,
/// `MEMORY.md` over budget), shown in the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LeftAlone {
    pub finding: Finding,
    pub reason: String,
    pub records: Vec<RecordRef>,
}

/// A whole plan, as printed by `dream --dry-run --json`, answered by a
/// model command, and applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub version: u32,
    pub origin: Origin,
    pub operations: Vec<Operation>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_alone: Vec<LeftAlone>,
}

impl Plan {
    pub fn new(origin: Origin) -> Plan {
        Plan {
            version: PLAN_VERSION,
            origin,
            operations: Vec::new(),
            left_alone: Vec::new(),
        }
    }
}

impl Operation {
    pub fn finding(&self) -> Finding {
        match self {
            Operation::Merge { finding, .. }
            | Operation::Update { finding, .. }
            | Operation::Retire { finding, .. } => *finding,
        }
    }

    pub fn reason(&self) -> &str {
        match self {
            Operation::Merge { reason, .. }
            | Operation::Update { reason, .. }
            | Operation::Retire { reason, .. } => reason,
        }
    }

    /// Every record this operation read, at the revision it read it.
    pub fn reads(&self) -> Vec<&RecordRef> {
        match self {
            Operation::Merge { reads, .. } => reads.iter().collect(),
            Operation::Update { reads, .. } | Operation::Retire { reads, .. } => vec![reads],
        }
    }
}
