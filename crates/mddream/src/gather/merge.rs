//! The merge operation gatherers propose: several records of one scope,
//! type and source become one, named after the newest, whose body keeps
//! every fact (line) of every source.

use std::collections::HashSet;

use mdstore::guard::secrets::find_secrets;
use mdstore::markdown;
use mdstore::write::{Candidate, check_candidate};

use crate::gather::changed_at;
use crate::gather::terms::record_text;
use crate::plan::{Finding, NewRecord, Operation};
use crate::records::DreamRecord;

/// The newest of `members` (by `updated`, else `created`; then id, so the
/// choice is stable).
pub(crate) fn newest(records: &[DreamRecord], members: &[usize]) -> usize {
    let mut best = members[0];
    for &i in &members[1..] {
        let key = |i: usize| (changed_at(&records[i]), &records[i].record.id);
        if key(i) > key(best) {
            best = i;
        }
    }
    best
}

/// Why `records[index]` may not be rewritten by the rules, if it may not:
/// a merge writes the sources' text into a new file, and the write guards
/// would refuse a secret (so the whole plan would fail).
pub(crate) fn unmergeable(record: &DreamRecord) -> Option<String> {
    if record.record.meta.record_type.is_none() {
        return Some("has no type, so a merged record could not be given one".to_string());
    }
    // A hand-made file may carry a name memctl would refuse to write (a
    // Cyrillic look-alike); merged under it, the whole plan would be rejected.
    if let Err(refused) = mdstore::id::normalize_name(&merged_name(&record.record)) {
        return Some(format!(
            "has a name memctl would not write ({refused}); rename it by hand first"
        ));
    }
    // Likewise a hand-written control character (a terminal escape).
    let meta = &record.record.meta;
    let fields = Candidate {
        description: meta.description.clone(),
        body: Some(record.record.body.clone()),
        tags: meta.tags.clone(),
        ..Candidate::default()
    };
    if let Err(refused) = check_candidate(&fields) {
        return Some(format!(
            "holds text memctl would not write ({refused}); fix it by hand first"
        ));
    }
    // Tags and the name are written into the merged record too.
    let written = format!(
        "{}\n{}\n{}",
        merged_name(&record.record),
        record_text(record),
        meta.tags.join("\n")
    );
    find_secrets(&written).first().map(|found| {
        format!(
            "holds what looks like a secret (rule {}); fix it by hand first",
            found.rule
        )
    })
}

/// The name a merge kept under `record` is written with.
fn merged_name(record: &mdstore::Record) -> String {
    record
        .meta
        .name
        .clone()
        .unwrap_or_else(|| record.id.clone())
}

/// A merge of `members` (same scope, type and source), read at their
/// revisions.
pub(crate) fn merge(
    records: &[DreamRecord],
    members: &[usize],
    finding: Finding,
    reason: String,
) -> Operation {
    let keep = newest(records, members);
    let kept = &records[keep].record;
    let mut order = vec![keep];
    let mut others: Vec<usize> = members.iter().copied().filter(|&i| i != keep).collect();
    others.sort_by(|&a, &b| {
        let key = |i: usize| (changed_at(&records[i]), &records[i].record.id);
        key(b).cmp(&key(a))
    });
    order.extend(others);

    let mut reads: Vec<_> = members.iter().map(|&i| records[i].reference()).collect();
    reads.sort();
    Operation::Merge {
        finding,
        reason,
        reads,
        into: NewRecord {
            name: merged_name(kept),
            record_type: kept
                .meta
                .record_type
                .map(|t| t.as_str().to_string())
                .unwrap_or_default(),
            description: kept.meta.description.clone().unwrap_or_default(),
            body: union_body(records, &order),
            tags: union_tags(records, members),
            expires: latest_expiry(records, members),
        },
        drops: Vec::new(),
    }
}

/// The first record's body as written, then every line of the others
/// that is not already there: a line that shows a fact is compared by
/// that fact (`mdstore::markdown`, the one the fact rule of validation
/// uses, so a line whose fact is new is never left out), any other
/// non-blank line (a fence, a comment) by its text.
fn union_body(records: &[DreamRecord], order: &[usize]) -> String {
    let first = &records[order[0]].record.body;
    let mut seen: HashSet<String> = markdown::read(first)
        .iter()
        .map(|line| line_key(first, line))
        .collect();
    let mut body = first.clone();
    for &i in &order[1..] {
        let source = &records[i].record.body;
        for line in markdown::read(source) {
            let key = line_key(source, &line);
            if line.block == markdown::Block::Blank || !seen.insert(key) {
                continue;
            }
            if !body.is_empty() && !body.ends_with('\n') {
                body.push('\n');
            }
            body.push_str(&source[line.span.clone()]);
            body.push('\n');
        }
    }
    body
}

/// What makes two lines the same line for [`union_body`].
fn line_key(body: &str, line: &markdown::Line) -> String {
    match line.fact() {
        fact if fact.is_empty() => format!("\u{0}{}", body[line.span.clone()].trim()),
        fact => fact,
    }
}

fn union_tags(records: &[DreamRecord], members: &[usize]) -> Vec<String> {
    let mut tags: Vec<String> = members
        .iter()
        .flat_map(|&i| records[i].record.meta.tags.iter().cloned())
        .collect();
    tags.sort();
    tags.dedup();
    tags
}

/// A merged record expires only when every source does, at the latest date.
fn latest_expiry(records: &[DreamRecord], members: &[usize]) -> Option<String> {
    let mut latest: Option<(mdstore::expiry::Expiry, String)> = None;
    for &i in members {
        let written = records[i].record.meta.expires.as_ref()?;
        let expiry = mdstore::expiry::Expiry::parse(written)?;
        if latest.as_ref().is_none_or(|(l, _)| expiry > *l) {
            latest = Some((expiry, written.clone()));
        }
    }
    latest.map(|(_, written)| written)
}
