//! Classifying a candidate as ADD, UPDATE, NOOP or REFUSED (SPEC §6), one
//! rule per function, in the order a person would ask: is the input sound,
//! which file is it, may it be written, is it new?

use std::path::{Path, PathBuf};

use crate::frontmatter::{self, FieldValue};
use crate::guard::{secrets, temporary};
use crate::hash::content_hash;
use crate::id;
use crate::record::{Record, RecordType};
use crate::store::{SkipReason, Skipped, Store};
use crate::tombstone;
use crate::view::StoreView;

use super::candidate::{Field, InputError, check_candidate};
use super::{
    Candidate, MergedFrom, Operation, Place, Placed, Plan, PlanError, Refusal, WriteOptions,
};

/// Classifies `candidate` against the store as `view` saw it.
pub fn plan(
    store: &Store,
    view: &StoreView,
    candidate: &Candidate,
    options: &WriteOptions,
) -> Result<Plan, PlanError> {
    plan_merged(store, view, candidate, options, &MergedFrom::default())
}

/// Like [`plan`], for a record that consolidates `sources` (dream): it is
/// written with their ids as `merged_from` and the earliest `created` of
/// theirs and its own, and a source it replaces holding the same text is
/// not a NOOP's "already stored".
pub fn plan_merged(
    store: &Store,
    view: &StoreView,
    candidate: &Candidate,
    options: &WriteOptions,
    sources: &MergedFrom,
) -> Result<Plan, PlanError> {
    let merged_from = sources.ids.as_slice();
    check_candidate(candidate)?;
    let normalized = id::normalize_name(&candidate.name).map_err(|source| PlanError::Name {
        name: candidate.name.clone(),
        source,
    })?;
    let target = resolve_target(store, view, &normalized, &candidate.name)?;
    let old = match &target.existing {
        Some(rel_path) => Some(store.read_record(rel_path).map_err(PlanError::Unreadable)?),
        None => None,
    };
    let old_text = old.as_ref().map(|_| {
        store
            .read_inside(&store.root().join(&target.rel_path))
            .map(|bytes| String::from_utf8(bytes).unwrap_or_default())
            .unwrap_or_default()
    });
    let mut plan = Plan {
        id: target.id,
        rel_path: target.rel_path,
        operation: Operation::Add,
        old_text,
        new_text: None,
        warnings: Vec::new(),
    };
    if normalized != candidate.name && old.is_none() {
        plan.warnings.push(format!(
            "name {:?} is stored as {normalized:?}",
            candidate.name
        ));
    }
    if let Some(refusal) = revision_mismatch(options, old.as_ref()) {
        plan.operation = Operation::Refused(refusal);
        return Ok(plan);
    }
    let merged = merge(candidate, old.as_ref())?;
    let refusal = secret_refusal(candidate, &merged)
        .or_else(|| temporary_refusal(&merged, options, &mut plan.warnings))
        .or_else(|| {
            let absorbed = merged_from
                .iter()
                .chain(old.iter().flat_map(|r| &r.meta.merged_from));
            tombstone_refusal(view, &plan.id, &merged, options, absorbed)
        });
    if let Some(refusal) = refusal {
        plan.operation = Operation::Refused(refusal);
        return Ok(plan);
    }
    match &old {
        Some(old) => {
            if is_unchanged(candidate, old, &merged)
                && (merged_from.is_empty() || merged_from == old.meta.merged_from)
            {
                plan.operation = Operation::Noop {
                    existing: old.id.clone(),
                };
                return Ok(plan);
            }
            if let Some(refusal) = lower_trust(candidate, old, options) {
                plan.operation = Operation::Refused(refusal);
                return Ok(plan);
            }
        }
        None => {
            if let Some(twin) = same_content_elsewhere(store, view, &merged).filter(|twin| {
                !merged_from
                    .iter()
                    .any(|m| id::id_key(m) == id::id_key(twin))
            }) {
                plan.operation = Operation::Noop { existing: twin };
                return Ok(plan);
            }
        }
    }
    let new_text = render(&plan.id, candidate, old.as_ref(), &merged, options, sources);
    if new_text.len() as u64 > crate::store::MAX_RECORD_BYTES {
        return Err(PlanError::TooLarge(new_text.len()));
    }
    plan.operation = match old.as_ref() {
        Some(old) => Operation::Update {
            from_revision: revision_of(old),
        },
        None => Operation::Add,
    };
    plan.new_text = Some(new_text);
    Ok(plan)
}

/// The file a candidate is about: the existing record with its id (any
/// case), or the path a new one takes.
struct Target {
    id: String,
    rel_path: PathBuf,
    /// The existing record's path; `None` for a new record.
    existing: Option<PathBuf>,
}

fn resolve_target(
    store: &Store,
    view: &StoreView,
    normalized: &str,
    raw_name: &str,
) -> Result<Target, PlanError> {
    if let Some(summary) = view.find(normalized) {
        return Ok(Target {
            id: summary.id.clone(),
            rel_path: summary.rel_path.clone(),
            existing: Some(summary.rel_path.clone()),
        });
    }
    let path = id::record_path(store.root(), normalized).map_err(|source| PlanError::Name {
        name: raw_name.to_string(),
        source,
    })?;
    let rel_path = path
        .strip_prefix(store.root())
        .map(Path::to_path_buf)
        .unwrap_or(path);
    if let Some(skipped) = occupant(store, view, normalized, &rel_path) {
        return Err(PlanError::Occupied(skipped));
    }
    Ok(Target {
        id: normalized.to_string(),
        rel_path,
        existing: None,
    })
}

/// A file at a new record's path that is not a readable record (not UTF-8,
/// too large, a pipe…): still someone's file, never replaced as if new. A
/// view made from the index does not list such files, so the path itself is
/// looked at too, and its real reason given.
fn occupant(store: &Store, view: &StoreView, normalized: &str, rel_path: &Path) -> Option<Skipped> {
    let key = id::id_key(normalized);
    if let Some(skipped) = view
        .skipped
        .iter()
        .find(|s| id::id_key(&crate::store::id_from_rel_path(&s.rel_path)) == key)
    {
        return Some(skipped.clone());
    }
    let skipped = |reason| {
        Some(Skipped {
            rel_path: rel_path.to_path_buf(),
            reason,
        })
    };
    match store.stat(rel_path) {
        Ok(None) => None,
        Err(reason) => skipped(reason),
        Ok(Some(_)) => match store.read_record(rel_path) {
            Err(unreadable) => Some(unreadable),
            Ok(_) => skipped(SkipReason::Unreadable(
                "a record that appeared while this write was being planned".to_string(),
            )),
        },
    }
}

fn revision_of(record: &Record) -> u64 {
    record.meta.revision.unwrap_or(1)
}

fn revision_mismatch(options: &WriteOptions, old: Option<&Record>) -> Option<Refusal> {
    let expected = options.expect_revision?;
    let actual = old.map(revision_of);
    (actual != Some(expected)).then_some(Refusal::RevisionMismatch { expected, actual })
}

/// The record as it would be: the candidate's fields, else the existing
/// record's (an UPDATE may change only some).
struct Merged {
    description: String,
    body: String,
    record_type: RecordType,
    hash: String,
}

fn merge(candidate: &Candidate, old: Option<&Record>) -> Result<Merged, PlanError> {
    // The text given now, not a hand-written record's own (an edit of one
    // is not refused for it).
    if let Some(given) = &candidate.description
        && super::candidate::is_placeholder_description(given)
    {
        return Err(InputError::PlaceholderDescription(given.trim().to_string()).into());
    }
    let description = candidate
        .description
        .clone()
        .or_else(|| old.and_then(|r| r.meta.description.clone()))
        .filter(|d| !d.trim().is_empty())
        .ok_or(InputError::Missing(Field::Description))?;
    let record_type = candidate
        .record_type
        .or(old.and_then(|r| r.meta.record_type))
        .ok_or(InputError::Missing(Field::Type))?;
    let body = candidate
        .body
        .clone()
        .or_else(|| old.map(|r| r.body.clone()))
        .unwrap_or_default();
    if old.is_none() && body.trim().is_empty() {
        return Err(InputError::Missing(Field::Body).into());
    }
    let hash = content_hash(&description, &body);
    Ok(Merged {
        description,
        body,
        record_type,
        hash,
    })
}

fn secret_refusal(candidate: &Candidate, merged: &Merged) -> Option<Refusal> {
    let tags = candidate.tags.join("\n");
    let parts = [
        (Place::Name, candidate.name.as_str()),
        (Place::Description, merged.description.as_str()),
        (Place::Tags, tags.as_str()),
        (Place::Body(0), merged.body.as_str()),
    ];
    let found = guard_parts(&parts, secrets::find_secrets, |f| f.line);
    (!found.is_empty()).then_some(Refusal::Secret(found))
}

/// Temporary text refuses in runs nobody confirms, and warns otherwise.
fn temporary_refusal(
    merged: &Merged,
    options: &WriteOptions,
    warnings: &mut Vec<String>,
) -> Option<Refusal> {
    let parts = [
        (Place::Description, merged.description.as_str()),
        (Place::Body(0), merged.body.as_str()),
    ];
    let found = guard_parts(&parts, temporary::find_temporary, |f| f.line);
    if found.is_empty() {
        return None;
    }
    if options.refuse_temporary {
        return Some(Refusal::Temporary(found));
    }
    for placed in &found {
        warnings.push(format!(
            "{:?} {} marks this as temporary; memory is for what stays true",
            placed.finding.phrase, placed.place
        ));
    }
    None
}

/// Runs `guard` over each part of a candidate separately, so that a finding
/// is placed where it is (a description is not "line 2").
fn guard_parts<T>(
    parts: &[(Place, &str)],
    guard: impl Fn(&str) -> Vec<T>,
    line_of: impl Fn(&T) -> usize,
) -> Vec<Placed<T>> {
    let mut placed = Vec::new();
    for &(place, text) in parts {
        for finding in guard(text) {
            let place = match place {
                Place::Body(_) => Place::Body(line_of(&finding)),
                other => other,
            };
            placed.push(Placed { finding, place });
        }
    }
    placed
}

/// The tombstone the new text matches, if any. The tombstones of records
/// merged into this one (`absorbed`: dream's `merged_from`) do not count:
/// their facts live on here, so this record holding their text is no
/// forgotten fact coming back.
fn tombstone_refusal<'a>(
    view: &StoreView,
    id: &str,
    merged: &Merged,
    options: &WriteOptions,
    absorbed: impl Iterator<Item = &'a String>,
) -> Option<Refusal> {
    if options.force {
        return None;
    }
    let absorbed: Vec<String> = absorbed.map(|a| id::id_key(a)).collect();
    if absorbed.is_empty() {
        return tombstone::find_match(&view.tombstones, id, &merged.hash)
            .map(|tomb| Refusal::Tombstone(tomb.clone()));
    }
    let live: Vec<_> = view
        .tombstones
        .iter()
        .filter(|t| !absorbed.contains(&id::id_key(&t.id)))
        .cloned()
        .collect();
    tombstone::find_match(&live, id, &merged.hash).map(|tomb| Refusal::Tombstone(tomb.clone()))
}

fn is_unchanged(candidate: &Candidate, old: &Record, merged: &Merged) -> bool {
    content_hash(old.meta.description.as_deref().unwrap_or(""), &old.body) == merged.hash
        && old.meta.record_type == Some(merged.record_type)
        && (candidate.tags.is_empty() || candidate.tags == old.meta.tags)
        && (candidate.expires.is_none() || candidate.expires == old.meta.expires)
}

fn lower_trust(candidate: &Candidate, old: &Record, options: &WriteOptions) -> Option<Refusal> {
    let proposed = candidate.source.unwrap_or(options.default_source);
    let existing = old.source();
    (proposed < existing && !options.force).then_some(Refusal::LowerTrust { existing, proposed })
}

/// Another record holding the same description and body, found by reading
/// only the bodies of records whose description already matches.
fn same_content_elsewhere(store: &Store, view: &StoreView, merged: &Merged) -> Option<String> {
    view.summaries
        .iter()
        .filter(|s| same_words_ignoring_case(s.description(), &merged.description))
        .find_map(|s| {
            let record = store.read_record(&s.rel_path).ok()?;
            let theirs = content_hash(
                record.meta.description.as_deref().unwrap_or(""),
                &record.body,
            );
            (theirs == merged.hash).then_some(record.id)
        })
}

/// A write plans at least twice (shown, then under the lock) and compares
/// with every description of the store each time: without allocating.
fn same_words_ignoring_case(a: &str, b: &str) -> bool {
    let mut theirs = a.split_whitespace();
    let mut ours = b.split_whitespace();
    loop {
        match (theirs.next(), ours.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) => {
                let same = x == y
                    || x.chars()
                        .flat_map(char::to_lowercase)
                        .eq(y.chars().flat_map(char::to_lowercase));
                if !same {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

/// The new file text: the existing frontmatter with only memctl's keys set,
/// so that unknown keys, comments and order survive.
fn render(
    id: &str,
    candidate: &Candidate,
    old: Option<&Record>,
    merged: &Merged,
    options: &WriteOptions,
    sources: &MergedFrom,
) -> String {
    let mut fm = old.and_then(|r| r.frontmatter.clone()).unwrap_or_default();
    let leaf = id.rsplit('/').next().unwrap_or(id);
    let text = |s: &str| FieldValue::Text(s.to_string());
    fm.set("name", text(leaf));
    fm.set("description", text(&one_line(&merged.description)));
    fm.set("type", text(merged.record_type.as_str()));
    let written = old
        .and_then(|r| r.frontmatter.as_ref())
        .is_some_and(|f| f.keys().iter().any(|k| k == "created"));
    let created = match old.and_then(|r| r.meta.created) {
        // A hand-made record without `created` took its file's mtime (SPEC
        // §2), nanoseconds and all: written as memctl writes every time.
        Some(taken) if !written => crate::clock::whole_second(taken),
        Some(created) => created,
        None => options.now,
    };
    // A merge was first said when its earliest source was.
    let created = sources
        .created
        .map_or(created, |earliest| created.min(earliest));
    fm.set("created", text(&created.to_string()));
    fm.set("updated", text(&options.now.to_string()));
    let revision = old.map_or(1, |r| revision_of(r).saturating_add(1));
    fm.set("revision", FieldValue::Integer(revision));
    let source = candidate.source.unwrap_or(options.default_source);
    fm.set("source", text(source.as_str()));
    if let Some(expires) = &candidate.expires {
        fm.set("expires", text(expires));
    }
    if !candidate.tags.is_empty() {
        fm.set("tags", FieldValue::List(candidate.tags.clone()));
    }
    if !sources.ids.is_empty() {
        fm.set("merged_from", FieldValue::List(sources.ids.clone()));
    }
    if merged.body.ends_with('\n') {
        frontmatter::render(&fm, &merged.body)
    } else {
        frontmatter::render(&fm, &format!("{}\n", merged.body))
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
