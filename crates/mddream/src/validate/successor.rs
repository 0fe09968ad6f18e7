//! A retired record's successor must hold what it supersedes (SPEC §7):
//! the same type, and every fact of the retired record, or that fact with
//! other values (a correction: the same sentence once numbers, versions,
//! paths and names are masked, as the correction gatherer finds them).
//! Otherwise `superseded_by` would let a plan retire a record "for" an
//! unrelated one, and its facts would be gone with nothing to say so.

use mdstore::markdown;

use crate::gather::correction::MIN_WORDS;
use crate::gather::terms::{Terms, VALUE_MARK, record_text, text_fact};
use crate::records::DreamRecord;

use super::{Rejection, Rule, shown};

pub(super) fn check_holds(
    index: usize,
    retired: &DreamRecord,
    successor: &DreamRecord,
) -> Result<(), Rejection> {
    let refuse = |detail: String| Rejection::new(Rule::SuccessorHolds, Some(index), detail);
    let (old_type, new_type) = (
        retired.record.meta.record_type,
        successor.record.meta.record_type,
    );
    if old_type != new_type {
        return Err(refuse(format!(
            "{} is of type {}, its successor {} of type {}; a record is superseded only by one of its type",
            shown(&retired.record.id),
            old_type.map_or("(none)", |t| t.as_str()),
            shown(&successor.record.id),
            new_type.map_or("(none)", |t| t.as_str()),
        )));
    }
    // The correction gatherer's own test: the whole text, values masked.
    let masked = |r: &DreamRecord| Terms::of(&record_text(r)).masked().join(" ");
    if masked(retired) == masked(successor) {
        return Ok(());
    }
    let held = facts(successor, true);
    for (line, fact, fact_masked) in facts(retired, false) {
        let kept = held.iter().any(|(_, h, h_masked)| {
            h.contains(&fact) || (fact_masked.is_some() && *h_masked == fact_masked)
        });
        if !kept {
            return Err(refuse(format!(
                "{} of {} ({}) is neither in {} nor corrected there; a successor holds what it supersedes",
                line.map_or_else(|| "the description".to_string(), |l| format!("line {l}")),
                shown(&retired.record.id),
                shown(&fact),
                shown(&successor.record.id),
            )));
        }
    }
    Ok(())
}

/// A record's facts (the body's lines; the description too when
/// `with_description`, or when the body says nothing), each with its line
/// and its masked terms when it has enough words around its values to be
/// corrected (as the correction gatherer asks).
fn facts(
    record: &DreamRecord,
    with_description: bool,
) -> Vec<(Option<usize>, String, Option<String>)> {
    let masked = |live: &str| {
        let terms = Terms::of(live);
        let masked = terms.masked();
        let words = masked.iter().filter(|t| **t != VALUE_MARK).count();
        (words >= MIN_WORDS && words < masked.len()).then(|| masked.join(" "))
    };
    let mut out: Vec<(Option<usize>, String, Option<String>)> = markdown::read(&record.record.body)
        .iter()
        .map(|line| {
            (
                Some(line.number),
                line.fact(),
                masked(&line.live_with_code_marks()),
            )
        })
        .filter(|(_, fact, _)| !fact.is_empty())
        .collect();
    if with_description || out.is_empty() {
        let description = record.record.meta.description.as_deref().unwrap_or("");
        let fact = text_fact(description);
        if !fact.is_empty() {
            out.push((None, fact, masked(description)));
        }
    }
    out
}
