//! An over-budget `MEMORY.md` (mdstore::catalog's 200 lines / 25,000
//! bytes): never retired to fit, only reported, naming which records to
//! merge or retire first (the least trusted, then the longest unchanged)
//! and how many must go once the plan's own removals are counted.

use std::collections::HashSet;

use mdstore::Summary;
use mdstore::catalog::{Budget, render};

use crate::gather::{Claims, changed_at};
use crate::plan::{Finding, LeftAlone, Operation, Plan, RecordRef, Scope};
use crate::records::DreamRecord;

/// At most this many records are named in one finding.
const MAX_NAMED: usize = 20;

pub(crate) fn gather(records: &[DreamRecord], claims: &Claims, plan: &mut Plan) {
    for scope in [Scope::Workspace, Scope::Global] {
        let in_scope: Vec<usize> = (0..records.len())
            .filter(|&i| records[i].scope == scope)
            .collect();
        if in_scope.is_empty() {
            continue;
        }
        let before = render(
            in_scope
                .iter()
                .map(|&i| summary(&records[i]))
                .collect::<Vec<_>>()
                .iter(),
            Budget::default(),
        );
        if before.omitted == 0 {
            continue;
        }
        let removed = removed_by(plan, scope);
        // A merge leaves one record of its sources: its first stands for it.
        let merged: HashSet<&str> = plan
            .operations
            .iter()
            .filter_map(|op| match op {
                Operation::Merge { reads, .. } if reads[0].scope == scope => {
                    Some(reads[0].id.as_str())
                }
                _ => None,
            })
            .collect();
        let after: Vec<Summary> = in_scope
            .iter()
            .filter(|&&i| {
                let id = records[i].record.id.as_str();
                !removed.contains(id) || merged.contains(id)
            })
            .map(|&i| summary(&records[i]))
            .collect();
        let left = render(after.iter(), Budget::default()).omitted;
        plan.left_alone.push(finding(
            records,
            claims,
            scope,
            &in_scope,
            before.omitted,
            left,
        ));
    }
}

fn finding(
    records: &[DreamRecord],
    claims: &Claims,
    scope: Scope,
    in_scope: &[usize],
    omitted: usize,
    left: usize,
) -> LeftAlone {
    let budget = Budget::default();
    let head = format!(
        "MEMORY.md of the {} store is over its budget ({} lines, {} bytes): {omitted} of {} records fall off its end, where agents never see them",
        scope.as_str(),
        budget.max_lines,
        budget.max_bytes,
        in_scope.len()
    );
    if left == 0 {
        return LeftAlone {
            finding: Finding::OverBudget,
            reason: format!("{head}; this plan's merges and retires bring it within budget"),
            records: Vec::new(),
        };
    }
    let mut first: Vec<usize> = in_scope
        .iter()
        .copied()
        .filter(|&i| claims.is_free(i))
        .collect();
    first.sort_by_key(|&i| {
        (
            records[i].record.source(),
            changed_at(&records[i]),
            &records[i].record.id,
        )
    });
    let named: Vec<RecordRef> = first
        .iter()
        .take(left.min(MAX_NAMED))
        .map(|&i| records[i].reference())
        .collect();
    LeftAlone {
        finding: Finding::OverBudget,
        reason: format!(
            "{head}; after this plan {left} more must be merged or retired. Start with the {} below: the least trusted first, then the longest unchanged, as the likeliest to be stale. Nothing is retired to fit without a person.",
            named.len()
        ),
        records: named,
    }
}

/// Ids in `scope` that the plan retires or merges away (a merge's sources
/// all count; one record per merge is added back by the caller).
fn removed_by(plan: &Plan, scope: Scope) -> HashSet<String> {
    plan.operations
        .iter()
        .flat_map(|op| match op {
            Operation::Retire { reads, .. } => vec![reads],
            Operation::Merge { reads, .. } => reads.iter().collect(),
            Operation::Update { .. } => Vec::new(),
        })
        .filter(|r| r.scope == scope)
        .map(|r| r.id.clone())
        .collect()
}

fn summary(record: &DreamRecord) -> Summary {
    Summary {
        id: record.record.id.clone(),
        rel_path: record.record.rel_path.clone(),
        meta: record.record.meta.clone(),
    }
}
