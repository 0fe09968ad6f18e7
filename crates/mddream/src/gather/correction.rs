//! Corrections: records whose text is the same once values are masked
//! (numbers, versions, dates, paths, identifiers, names) but whose values
//! differ: "we use Node 18" and, later, "we use Node 22". The newer wins
//! and the older is retired, superseded by it, with both values in the
//! reason; when the newer is less trusted, or which is newer cannot be
//! told, both are left for a person.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use mdstore::guard::secrets::secret_note;

use crate::gather::similar::value_key;
use crate::gather::terms::{Prepared, Terms, record_text};
use crate::gather::{Claims, changed_at, id_list};
use crate::plan::{Finding, LeftAlone, Operation, Plan, Scope};
use crate::records::DreamRecord;

/// Fewer words than this around the values is too little to say two
/// records are about the same thing ("v2" and "v3").
pub(crate) const MIN_WORDS: usize = 2;

/// More records than this with one masked text are a template ("note 12
/// on part 7"), not the history of one fact: left out.
const MAX_GROUP: usize = 4;

/// More distinct changed values than this make two records different facts
/// of one template rather than a correction.
const MAX_CHANGES: usize = 2;

pub(crate) fn gather(
    records: &[DreamRecord],
    prepared: &[Prepared],
    claims: &mut Claims,
    plan: &mut Plan,
) {
    let mut by_key: HashMap<(Scope, u64), Vec<usize>> = HashMap::new();
    for (i, p) in prepared.iter().enumerate() {
        if claims.is_free(i) && p.has_values && p.words >= MIN_WORDS {
            by_key
                .entry((records[i].scope, p.masked_key))
                .or_default()
                .push(i);
        }
    }
    let mut groups: Vec<Vec<usize>> = by_key.into_values().filter(|g| g.len() > 1).collect();
    groups.sort();
    for group in groups {
        let terms: Vec<Terms> = group
            .iter()
            .map(|&i| Terms::of(&record_text(&records[i])))
            .collect();
        // The hash may collide: compare the masked texts themselves.
        let mut same: HashMap<Vec<&str>, Vec<usize>> = HashMap::new();
        for (n, t) in terms.iter().enumerate() {
            same.entry(t.masked()).or_default().push(n);
        }
        let mut sets: Vec<Vec<usize>> = same
            .into_values()
            .filter(|s| (2..=MAX_GROUP).contains(&s.len()))
            .collect();
        sets.sort();
        for set in sets {
            let members: Vec<(usize, &Terms)> =
                set.iter().map(|&n| (group[n], &terms[n])).collect();
            correct(records, &members, claims, plan);
        }
    }
}

/// One set of records that differ only in their values.
fn correct(
    records: &[DreamRecord],
    members: &[(usize, &Terms)],
    claims: &mut Claims,
    plan: &mut Plan,
) {
    let mut by_age: Vec<&(usize, &Terms)> = members.iter().collect();
    by_age.sort_by_key(|(i, _)| (changed_at(&records[*i]), &records[*i].record.id));
    let Some(&&(newest, newest_terms)) = by_age.last() else {
        return;
    };
    let newest_at = changed_at(&records[newest]);
    for &&(old, old_terms) in &by_age[..by_age.len() - 1] {
        let changes = value_changes(old_terms, newest_terms);
        if changes.is_empty() || changes.len() > MAX_CHANGES {
            // Same values once lower-cased (the near-duplicate gatherer
            // sees such a pair), or too many changed to be one correction.
            continue;
        }
        let (new_record, old_record) = (&records[newest], &records[old]);
        let values = changes.join(", ");
        let old_at = changed_at(old_record);
        let tied = newest_at.is_none() || old_at.is_none() || old_at == newest_at;
        let less_trusted = new_record.record.source() < old_record.record.source();
        if tied || less_trusted {
            let why = if newest_at.is_none() || old_at.is_none() {
                "without a written `updated` or `created` date, which is newer cannot be told"
                    .to_string()
            } else if tied {
                "neither is newer, so which is right cannot be told".to_string()
            } else {
                format!(
                    "the newer one is less trusted ({} under {})",
                    new_record.record.source(),
                    old_record.record.source()
                )
            };
            plan.left_alone.push(LeftAlone {
                finding: Finding::Correction,
                reason: format!(
                    "{} and {} say the same but for {values}; {why}: decide by hand",
                    id_list([old_record]),
                    id_list([new_record])
                ),
                records: vec![old_record.reference(), new_record.reference()],
            });
            continue;
        }
        plan.operations.push(Operation::Retire {
            finding: Finding::Correction,
            reason: format!(
                "corrected: {values}; {} ({}) is newer than {} ({})",
                id_list([new_record]),
                day(new_record),
                id_list([old_record]),
                day(old_record)
            ),
            reads: old_record.reference(),
            superseded_by: Some(new_record.reference()),
        });
        claims.take(old);
        claims.take(newest);
    }
}

fn day(record: &DreamRecord) -> String {
    changed_at(record).map_or_else(
        || "no date".to_string(),
        |t| t.strftime("%Y-%m-%d").to_string(),
    )
}

/// `"Node 18" → "Node 22"` for every value that differs (as the index
/// reads it, abbreviations spelled out: `Kubernetes` and `k8s` are one),
/// the word before it kept for context, each change once however often it
/// is written (a date in the description and the body is one change); a
/// value that looks like a secret is never quoted.
fn value_changes(old: &Terms, new: &Terms) -> Vec<String> {
    let (old_values, new_values) = (quoted_values(old), quoted_values(new));
    let mut seen = HashSet::new();
    old_values
        .into_iter()
        .zip(new_values)
        .filter_map(|((o, quoted_old), (n, quoted_new))| {
            let (o, n) = (value_key(&o), value_key(&n));
            (o != n && seen.insert((o, n))).then(|| format!("{quoted_old} → {quoted_new}"))
        })
        .collect()
}

/// Each value as written, and as quoted in a reason.
fn quoted_values(terms: &Terms) -> Vec<(String, String)> {
    // (the value's span, where its quote starts)
    let mut spans: Vec<(Range<usize>, usize)> = Vec::new();
    let mut last_chunk = None;
    let mut previous_word: Option<usize> = None;
    for term in &terms.terms {
        match term.value {
            Some(chunk) if last_chunk == Some(chunk) => {
                if let Some((span, _)) = spans.last_mut() {
                    span.end = term.span.end;
                }
            }
            Some(chunk) => {
                let start = previous_word
                    .filter(|&w| !terms.text[w..term.span.start].contains('\n'))
                    .unwrap_or(term.span.start);
                spans.push((term.span.clone(), start));
                last_chunk = Some(chunk);
                previous_word = None;
            }
            None => {
                last_chunk = None;
                let text = &terms.text[term.span.clone()];
                previous_word =
                    (!text.chars().any(mdindex::text::is_cjk)).then_some(term.span.start);
            }
        }
    }
    spans
        .into_iter()
        .map(|(span, start)| {
            let value = terms.text[span.clone()].to_string();
            (value, quote(&terms.text[start..span.end]))
        })
        .collect()
}

fn quote(text: &str) -> String {
    secret_note(text).unwrap_or_else(|| format!("\"{}\"", mdstore::escape::for_message(text, 60)))
}
