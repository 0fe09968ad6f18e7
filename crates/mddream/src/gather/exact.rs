//! Exact duplicates: the same description and facts once case, whitespace
//! and Markdown are normalised. Records of one source are merged; a copy
//! in a less trusted source is retired, superseded by the trusted one.

use std::collections::HashMap;

use mdstore::Source;

use crate::gather::merge::{merge, newest, unmergeable};
use crate::gather::terms::{exact_key, hash_term};
use crate::gather::{Claims, id_list};
use crate::plan::{Finding, LeftAlone, Operation, Plan, Scope};
use crate::records::DreamRecord;

const WHY: &str = "same text after normalising case, whitespace and Markdown";

pub(crate) fn gather(records: &[DreamRecord], claims: &mut Claims, plan: &mut Plan) {
    // Keys are whole texts: group by their hash, then compare the texts
    // within a group, so memory holds one hash per record.
    let mut by_hash: HashMap<(Scope, u64), Vec<usize>> = HashMap::new();
    for (i, record) in records.iter().enumerate() {
        if !claims.is_free(i) {
            continue;
        }
        if let Some(key) = exact_key(record) {
            by_hash
                .entry((record.scope, hash_term(&key)))
                .or_default()
                .push(i);
        }
    }
    let mut groups: Vec<Vec<usize>> = by_hash.into_values().filter(|g| g.len() > 1).collect();
    groups.sort();
    for group in groups {
        let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
        for i in group {
            if let Some(key) = exact_key(&records[i]) {
                by_key.entry(key).or_default().push(i);
            }
        }
        let mut same: Vec<Vec<usize>> = by_key.into_values().filter(|g| g.len() > 1).collect();
        same.sort();
        for members in same {
            duplicates(records, &members, claims, plan);
        }
    }
}

/// One set of records with the same text.
fn duplicates(records: &[DreamRecord], members: &[usize], claims: &mut Claims, plan: &mut Plan) {
    let source = |i: usize| records[i].record.source();
    let top = members
        .iter()
        .map(|&i| source(i))
        .max()
        .unwrap_or(Source::User);
    let trusted: Vec<usize> = members
        .iter()
        .copied()
        .filter(|&i| source(i) == top)
        .collect();
    let types = |i: usize| records[i].record.meta.record_type;
    if trusted.iter().any(|&i| types(i) != types(trusted[0])) {
        plan.left_alone.push(LeftAlone {
            finding: Finding::ExactDuplicate,
            reason: format!(
                "{WHY}, but of different types: {}; keep the one whose type is right",
                id_list(trusted.iter().map(|&i| &records[i]))
            ),
            records: members.iter().map(|&i| records[i].reference()).collect(),
        });
        return;
    }
    let keep = newest(records, &trusted);
    if trusted.len() > 1 {
        let reason = format!("{WHY}: {}", id_list(trusted.iter().map(|&i| &records[i])));
        if trusted.iter().all(|&i| unmergeable(&records[i]).is_none()) {
            plan.operations
                .push(merge(records, &trusted, Finding::ExactDuplicate, reason));
        } else {
            // Same text, so retiring the copies loses nothing, and no
            // record is rewritten.
            for &i in trusted.iter().filter(|&&i| i != keep) {
                retire(records, i, keep, reason.clone(), plan);
            }
        }
    }
    for &i in members.iter().filter(|&&i| source(i) < top) {
        let reason = format!(
            "{WHY} as {}, which is more trusted ({} over {})",
            id_list([&records[keep]]),
            top,
            source(i)
        );
        retire(records, i, keep, reason, plan);
    }
    for &i in members {
        claims.take(i);
    }
}

fn retire(records: &[DreamRecord], old: usize, by: usize, reason: String, plan: &mut Plan) {
    plan.operations.push(Operation::Retire {
        finding: Finding::ExactDuplicate,
        reason,
        reads: records[old].reference(),
        superseded_by: Some(records[by].reference()),
    });
}
