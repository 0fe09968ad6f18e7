//! The rules one operation must keep on its own: what it reads exists at
//! the revision read, what it writes is a valid record, a merge joins
//! records of one scope, type and trust, an update keeps its record's name
//! and type, a model's text never replaces a higher-trust record's (and
//! its merge of them only unites them: `trusted`), a successor holds what
//! it supersedes (`successor`), and no fact is lost without a reason.

use mdstore::write::{Candidate, check_candidate};
use mdstore::{RecordType, Source};

use crate::plan::{DroppedFact, NewRecord, Operation, Origin, RecordRef};
use crate::records::DreamRecord;

use super::{Known, Rejection, Rule, facts, shown, successor, trusted};

pub(super) fn check(
    origin: Origin,
    index: usize,
    op: &Operation,
    known: &Known<'_>,
) -> Result<(), Rejection> {
    match op {
        Operation::Merge {
            reads, into, drops, ..
        } => check_merge(origin, index, reads, into, drops, known),
        Operation::Update {
            reads,
            record,
            drops,
            ..
        } => check_update(origin, index, reads, record, drops, known),
        Operation::Retire {
            reads,
            superseded_by,
            ..
        } => check_retire(origin, index, reads, superseded_by.as_ref(), known),
    }
}

fn check_merge(
    origin: Origin,
    index: usize,
    reads: &[RecordRef],
    into: &NewRecord,
    drops: &[DroppedFact],
    known: &Known<'_>,
) -> Result<(), Rejection> {
    if reads.len() < 2 {
        return Err(Rejection::new(
            Rule::CitesSources,
            Some(index),
            format!(
                "a merge names the two or more records it joins; this one names {}",
                reads.len()
            ),
        ));
    }
    let sources = reads
        .iter()
        .map(|read| known.resolve(index, read))
        .collect::<Result<Vec<_>, _>>()?;
    let first = sources[0];
    if let Some(other) = sources.iter().find(|s| s.scope != first.scope) {
        return Err(Rejection::new(
            Rule::MergeAcrossScopes,
            Some(index),
            format!(
                "{} is in the {} store and {} in the {} store; records of different scopes are never merged",
                shown(&first.record.id),
                first.scope.as_str(),
                shown(&other.record.id),
                other.scope.as_str()
            ),
        ));
    }
    let record_type = check_new_record(index, into)?;
    if let Some(other) = sources
        .iter()
        .find(|s| s.record.meta.record_type != Some(record_type))
    {
        return Err(Rejection::new(
            Rule::MergeAcrossTypes,
            Some(index),
            format!(
                "{} is of type {}, the merged record of type {record_type}; records of different types are never merged",
                shown(&other.record.id),
                type_name(other.record.meta.record_type)
            ),
        ));
    }
    if let Some(other) = sources
        .iter()
        .find(|s| s.record.source() != first.record.source())
    {
        return Err(Rejection::new(
            Rule::LowerTrust,
            Some(index),
            format!(
                "{} is {} and {} is {}; a merge joins records of one source (retire the lower-trust one as superseded instead)",
                shown(&first.record.id),
                first.record.source(),
                shown(&other.record.id),
                other.record.source()
            ),
        ));
    }
    if origin == Origin::Model {
        model_keeps_trusted_facts(index, drops, &sources)?;
        if first.record.source() > Source::Inferred {
            trusted::check_union(index, &sources, into)?;
        }
    }
    facts::check_kept(index, &sources, &into.body, drops)
}

fn check_update(
    origin: Origin,
    index: usize,
    read: &RecordRef,
    record: &NewRecord,
    drops: &[DroppedFact],
    known: &Known<'_>,
) -> Result<(), Rejection> {
    let existing = known.resolve(index, read)?;
    let record_type = check_new_record(index, record)?;
    if existing.record.meta.record_type != Some(record_type) {
        return Err(Rejection::new(
            Rule::TypeChange,
            Some(index),
            format!(
                "{} is of type {}; an update keeps it (a person changes a record's type)",
                shown(&existing.record.id),
                type_name(existing.record.meta.record_type)
            ),
        ));
    }
    let same_name = mdstore::id::normalize_name(&record.name)
        .is_ok_and(|name| mdstore::id::id_key(&name) == mdstore::id::id_key(&existing.record.id));
    if !same_name {
        return Err(Rejection::new(
            Rule::InvalidName,
            Some(index),
            format!(
                "an update keeps the record's name {}, not {} (merge to rename)",
                shown(&existing.record.id),
                shown(&record.name)
            ),
        ));
    }
    if origin == Origin::Model && existing.record.source() > Source::Inferred {
        return Err(Rejection::new(
            Rule::LowerTrust,
            Some(index),
            format!(
                "{} is {}, and a model's text is inferred",
                shown(&existing.record.id),
                existing.record.source()
            ),
        ));
    }
    facts::check_kept(index, &[existing], &record.body, drops)
}

fn check_retire(
    origin: Origin,
    index: usize,
    read: &RecordRef,
    superseded_by: Option<&RecordRef>,
    known: &Known<'_>,
) -> Result<(), Rejection> {
    let retired = known.resolve(index, read)?;
    let successor = superseded_by
        .map(|by| known.resolve(index, by))
        .transpose()?;
    if let Some(successor) = successor {
        if successor.scope == retired.scope
            && mdstore::id::id_key(&successor.record.id) == mdstore::id::id_key(&retired.record.id)
        {
            return Err(Rejection::new(
                Rule::Successor,
                Some(index),
                format!("{} is superseded by itself", shown(&retired.record.id)),
            ));
        }
        if successor.record.source() < retired.record.source() {
            return Err(Rejection::new(
                Rule::LowerTrust,
                Some(index),
                format!(
                    "{} ({}) would be superseded by {} ({}); the higher-trust record stays",
                    shown(&retired.record.id),
                    retired.record.source(),
                    shown(&successor.record.id),
                    successor.record.source()
                ),
            ));
        }
        successor::check_holds(index, retired, successor)?;
    }
    if origin == Origin::Model && successor.is_none() && retired.record.source() > Source::Inferred
    {
        return Err(Rejection::new(
            Rule::LowerTrust,
            Some(index),
            format!(
                "a model may retire {} ({}) only as superseded by a record as trusted",
                shown(&retired.record.id),
                retired.record.source()
            ),
        ));
    }
    Ok(())
}

/// A model may reword a higher-trust record's facts into a merge, but not
/// leave any of them out.
fn model_keeps_trusted_facts(
    index: usize,
    drops: &[DroppedFact],
    sources: &[&DreamRecord],
) -> Result<(), Rejection> {
    for drop in drops {
        let key = mdstore::id::id_key(&drop.id);
        if let Some(source) = sources.iter().find(|s| {
            mdstore::id::id_key(&s.record.id) == key && s.record.source() > Source::Inferred
        }) {
            return Err(Rejection::new(
                Rule::LowerTrust,
                Some(index),
                format!(
                    "a model may not drop a fact of {}, which is {}",
                    shown(&source.record.id),
                    source.record.source()
                ),
            ));
        }
    }
    Ok(())
}

/// Longest reason kept: a tombstone file is read only up to 64 KiB, and a
/// reason is one line a person reads.
const MAX_REASON_CHARS: usize = 1_000;

/// A reason goes into tombstones (committed, read by every later write) and
/// before a person: a line of text, no secret.
pub(super) fn check_reason(index: usize, reason: &str) -> Result<(), Rejection> {
    let problem = if reason.trim().is_empty() {
        Some("an operation says why; this reason is empty".to_string())
    } else if reason.chars().count() > MAX_REASON_CHARS {
        Some(format!(
            "{} characters; at most {MAX_REASON_CHARS}",
            reason.chars().count()
        ))
    } else if reason.chars().any(char::is_control) {
        Some(format!("{} holds a control character", shown(reason)))
    } else if let Some((_, c, kind)) = mdstore::invisible::first_hidden_format_char(reason) {
        Some(format!(
            "{} holds U+{:04X}, {}",
            shown(reason),
            u32::from(c),
            kind.describe()
        ))
    } else {
        mdstore::guard::secrets::secret_note(reason)
            .map(|note| format!("{note}; it would be kept in a tombstone"))
    };
    match problem {
        Some(detail) => Err(Rejection::new(Rule::Reason, Some(index), detail)),
        None => Ok(()),
    }
}

/// The name rules, then what `remember` checks of a candidate's fields,
/// then that the record says something. Returns the record's type.
fn check_new_record(index: usize, new: &NewRecord) -> Result<RecordType, Rejection> {
    mdstore::id::normalize_name(&new.name).map_err(|e| {
        Rejection::new(
            Rule::InvalidName,
            Some(index),
            format!("{}: {e}", shown(&new.name)),
        )
    })?;
    let invalid = |detail: String| Rejection::new(Rule::InvalidRecord, Some(index), detail);
    let record_type = RecordType::parse(&new.record_type).ok_or_else(|| {
        invalid(format!(
            "unknown type {}: expected user, feedback, project or reference",
            shown(&new.record_type)
        ))
    })?;
    let candidate = Candidate {
        name: new.name.clone(),
        record_type: Some(record_type),
        description: Some(new.description.clone()),
        body: Some(new.body.clone()),
        expires: new.expires.clone(),
        tags: new.tags.clone(),
        ..Candidate::default()
    };
    check_candidate(&candidate).map_err(|e| invalid(e.to_string()))?;
    let size = new.body.len() + new.description.len();
    if size as u64 > mdstore::store::MAX_RECORD_BYTES {
        return Err(invalid(format!(
            "{} would hold {size} bytes of text; records are at most 256 KiB",
            shown(&new.name)
        )));
    }
    if new.description.trim().is_empty() || new.body.trim().is_empty() {
        return Err(Rejection::new(
            Rule::EmptyResult,
            Some(index),
            format!(
                "the new record {} has an empty description or body",
                shown(&new.name)
            ),
        ));
    }
    Ok(record_type)
}

fn type_name(record_type: Option<RecordType>) -> &'static str {
    record_type.map_or("(none)", RecordType::as_str)
}
