//! The rules that look at the whole plan: each record read once, new names
//! unique, successors that stay, and the removal limit.

use std::collections::HashSet;

use mdstore::id::{id_key, normalize_name};

use crate::plan::{Operation, Plan, Scope};

use super::{Known, Rejection, Rule, shown};

/// No record is read by two operations (or twice by one): each operation
/// must see the record as it is, not as another one left it.
pub(super) fn reads_once(plan: &Plan) -> Result<(), Rejection> {
    let mut seen = HashSet::new();
    for (index, op) in plan.operations.iter().enumerate() {
        for read in op.reads() {
            if !seen.insert((read.scope, id_key(&read.id))) {
                return Err(Rejection::new(
                    Rule::ReadTwice,
                    Some(index),
                    format!(
                        "{} ({}) is read by an earlier operation or twice by this one",
                        shown(&read.id),
                        read.scope.as_str()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The records an operation removes: its retired record, or the sources of a
/// merge that are not kept under the merged record's name.
pub(crate) fn removed_by(op: &Operation) -> Vec<(Scope, String)> {
    match op {
        Operation::Retire { reads, .. } => vec![(reads.scope, id_key(&reads.id))],
        Operation::Update { .. } => Vec::new(),
        Operation::Merge { reads, into, .. } => {
            let kept = merged_key(&into.name);
            reads
                .iter()
                .map(|r| (r.scope, id_key(&r.id)))
                .filter(|(_, key)| Some(key) != kept.as_ref())
                .collect()
        }
    }
}

/// The id key of a merged record's name (`None` if the name is invalid,
/// which [`super::operation`] rejects).
pub(crate) fn merged_key(name: &str) -> Option<String> {
    normalize_name(name).ok().map(|name| id_key(&name))
}

/// A retired record points only at a record that stays.
pub(super) fn successors_stay(plan: &Plan) -> Result<(), Rejection> {
    let removed: HashSet<(Scope, String)> = plan.operations.iter().flat_map(removed_by).collect();
    for (index, op) in plan.operations.iter().enumerate() {
        if let Operation::Retire {
            superseded_by: Some(by),
            ..
        } = op
            && removed.contains(&(by.scope, id_key(&by.id)))
        {
            return Err(Rejection::new(
                Rule::Successor,
                Some(index),
                format!(
                    "{} is removed by this plan too; point at the record that stays",
                    shown(&by.id)
                ),
            ));
        }
    }
    Ok(())
}

/// A merged record's name is not another merge's, nor an existing record's
/// in its store unless that record is one of the merge's own sources.
pub(super) fn names_unique(plan: &Plan, known: &Known<'_>) -> Result<(), Rejection> {
    let mut written = HashSet::new();
    for (index, op) in plan.operations.iter().enumerate() {
        let Operation::Merge { reads, into, .. } = op else {
            continue;
        };
        let (Some(key), Some(first)) = (merged_key(&into.name), reads.first()) else {
            continue;
        };
        let scope = first.scope;
        if !written.insert((scope, key.clone())) {
            return Err(Rejection::new(
                Rule::NameCollision,
                Some(index),
                format!("an earlier merge writes {} too", shown(&into.name)),
            ));
        }
        let own_source = reads.iter().any(|r| id_key(&r.id) == key);
        if let Some(existing) = known.get(scope, &key)
            && !own_source
        {
            return Err(Rejection::new(
                Rule::NameCollision,
                Some(index),
                format!(
                    "{} is already the name of {} in the {} store, which this merge does not replace",
                    shown(&into.name),
                    shown(&existing.record.id),
                    scope.as_str()
                ),
            ));
        }
    }
    Ok(())
}

/// At most [`max_removals`] records removed in one plan.
pub(super) fn removal_limit(plan: &Plan, records: usize, pct: f64) -> Result<(), Rejection> {
    let limit = max_removals(records, pct);
    let mut removed = 0;
    for (index, op) in plan.operations.iter().enumerate() {
        removed += removed_by(op).len();
        if removed > limit {
            let total: usize = plan.operations.iter().map(|o| removed_by(o).len()).sum();
            return Err(Rejection::new(
                Rule::RemovalLimit,
                Some(index),
                format!(
                    "the plan removes {total} of {records} records; --max-delete-pct {pct} allows {limit}"
                ),
            ));
        }
    }
    Ok(())
}

/// However small the store, a plan may remove this many records (unless
/// `--max-delete-pct` is 0): one of each kind of removal the rules make in
/// a pass, an expired record retired, an exact duplicate merged away and a
/// corrected record retired. Below 12 records the default 25% allows fewer
/// (one under 8), so a new user's first dream of an expired record and a
/// duplicate was refused; from 12 up the percentage allows as many, and the
/// floor changes nothing. A runaway plan still loses at most three records.
pub const MIN_REMOVALS: usize = 3;

/// How many records a plan may remove from `records`: `pct`% of them, and at
/// least [`MIN_REMOVALS`]; none when `pct` is 0.
pub fn max_removals(records: usize, pct: f64) -> usize {
    // `--max-delete-pct 0` means nothing removed; NaN is refused earlier
    // and counts as 0 here.
    if pct.is_nan() || pct <= 0.0 {
        return 0;
    }
    let share = (pct.clamp(0.0, 100.0) / 100.0 * records as f64).floor();
    // A float in [0, records] converts exactly enough.
    (share as usize).max(MIN_REMOVALS)
}
