//! Validation before anything is written (SPEC §7, step 4): every plan, the
//! rules' and a model's alike, passes the same checks, and a rejected plan
//! names the rule it broke and the operation.

use crate::plan::Plan;
use crate::records::DreamRecord;

/// Limits a plan must respect.
#[derive(Clone, Debug)]
pub struct ValidateOptions {
    /// At most this share of the records may be retired (`--max-delete-pct`).
    pub max_delete_pct: f64,
}

/// Why a plan was rejected: the rule, and the operation (its index in
/// `plan.operations`) that broke it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("operation {}: {rule}", .operation.map_or("(the plan)".to_string(), |i| (i + 1).to_string()))]
pub struct Rejection {
    pub operation: Option<usize>,
    pub rule: String,
}

/// Checks `plan` against the records it was made from.
pub fn validate(
    plan: &Plan,
    records: &[DreamRecord],
    options: &ValidateOptions,
) -> Result<(), Rejection> {
    let _ = (plan, records, options);
    todo!("issue 7: validation")
}
