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

/// A correction changes the value of one attribute of one subject: its
/// changed values stand in one place of the sentence ("until March 1" →
/// "until April 15"). Values changed in two places ("record 1 about
/// omega1" / "record 4 about omega4", "service A on port 8001" / "service
/// B on port 8002") are a template filled in for other subjects.
const MAX_PLACES: usize = 1;

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
        let Changes {
            quoted: changes,
            places,
        } = value_changes(old_terms, newest_terms);
        if changes.is_empty() || changes.len() > MAX_CHANGES || places > MAX_PLACES {
            // Same values once lower-cased (the near-duplicate gatherer
            // sees such a pair), too many changed to be one correction, or
            // changed in several places: other subjects of one template.
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

/// What differs between two records of one masked text.
struct Changes {
    /// `"Node 18" → "Node 22"` for every value that differs, each once.
    quoted: Vec<String>,
    /// In how many places of the sentence values changed, a place written
    /// again (the description and the body) counted once.
    places: usize,
}

/// `"Node 18" → "Node 22"` for every value that differs (as the index
/// reads it, abbreviations spelled out: `Kubernetes` and `k8s` are one),
/// the word before it kept for context, each change once however often it
/// is written (a date in the description and the body is one change); a
/// value that looks like a secret is never quoted. Values next to each
/// other ("March 1") are one place.
fn value_changes(old: &Terms, new: &Terms) -> Changes {
    let (old_values, new_values) = (quoted_values(old), quoted_values(new));
    let mut seen = HashSet::new();
    let mut quoted = Vec::new();
    // Each place's changes, as (old, new) keys: a place written twice the
    // same way is one.
    let mut by_place: Vec<(usize, Vec<(String, String)>)> = Vec::new();
    for (old, new) in old_values.into_iter().zip(new_values) {
        let (o, n) = (value_key(&old.value), value_key(&new.value));
        if o == n {
            continue;
        }
        let terms = changed_terms(&o, &n);
        match by_place.last_mut() {
            Some((place, changed)) if *place == old.place => changed.extend(terms),
            _ => by_place.push((old.place, terms)),
        }
        if seen.insert((o, n)) {
            quoted.push(format!("{} → {}", old.quoted, new.quoted));
        }
    }
    let places: HashSet<Vec<(String, String)>> = by_place
        .into_iter()
        .map(|(_, mut changed)| {
            changed.sort();
            changed.dedup();
            changed
        })
        .collect();
    Changes {
        quoted,
        places: places.len(),
    }
}

/// The index terms that differ between two keys of a value, pair by pair
/// when they have as many (`node 18` → `node 22`: `18` → `22`, the change a
/// body's "Node 18" → "Node 22" makes too), else the keys whole.
fn changed_terms(old: &str, new: &str) -> Vec<(String, String)> {
    let (o, n): (Vec<&str>, Vec<&str>) = (old.split(' ').collect(), new.split(' ').collect());
    if o.len() != n.len() {
        return vec![(old.to_string(), new.to_string())];
    }
    o.into_iter()
        .zip(n)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// A value of a text, as written and as quoted in a reason, and the place
/// it stands in: values with no word between them share one.
struct Quoted {
    value: String,
    quoted: String,
    place: usize,
}

/// Each value as written, and as quoted in a reason.
fn quoted_values(terms: &Terms) -> Vec<Quoted> {
    // (the value's span, where its quote starts, its place)
    let mut spans: Vec<(Range<usize>, usize, usize)> = Vec::new();
    let mut last_chunk = None;
    let mut previous_word: Option<usize> = None;
    let mut place = 0;
    let mut word_since_value = false;
    for term in &terms.terms {
        match term.value {
            Some(chunk) if last_chunk == Some(chunk) => {
                if let Some((span, _, _)) = spans.last_mut() {
                    span.end = term.span.end;
                }
            }
            Some(chunk) => {
                let start = previous_word
                    .filter(|&w| !terms.text[w..term.span.start].contains('\n'))
                    .unwrap_or(term.span.start);
                let line_between = spans.last().is_some_and(|(span, _, _)| {
                    terms.text[span.end..term.span.start].contains('\n')
                });
                if word_since_value || line_between {
                    place += 1;
                }
                spans.push((term.span.clone(), start, place));
                last_chunk = Some(chunk);
                previous_word = None;
                word_since_value = false;
            }
            None => {
                last_chunk = None;
                let text = &terms.text[term.span.clone()];
                // One CJK character between values is a unit of them
                // (`3月1日`, `3월 1일`), not a word of the sentence.
                let unit = text.chars().count() == 1 && text.chars().all(mdwords::is_cjk);
                word_since_value |= !unit;
                previous_word = (!text.chars().any(mdwords::is_cjk)).then_some(term.span.start);
            }
        }
    }
    spans
        .into_iter()
        .map(|(span, start, place)| Quoted {
            value: terms.text[span.clone()].to_string(),
            quoted: quote(&terms.text[start..span.end]),
            place,
        })
        .collect()
}

fn quote(text: &str) -> String {
    secret_note(text).unwrap_or_else(|| format!("\"{}\"", mdstore::escape::for_message(text, 60)))
}
