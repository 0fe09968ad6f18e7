//! Carrying out a plan's operations through each store's transaction: the
//! revisions checked again under the lock, then the writes, then the
//! removals (so that a merged record never meets its own sources'
//! tombstones).

use mdstore::hash::read_hash;
use mdstore::id::{id_key, normalize_name};
use mdstore::txn::{Outcome, Transaction, WriteError};
use mdstore::write::{Candidate, ForgetError, MergedFrom, PlanError, Refusal, WriteOptions};
use mdstore::{RecordType, Source};

use super::{Applied, ApplyError, ApplyOptions, Open};
use crate::plan::{NewRecord, Operation, Origin, Plan, RecordRef, Scope};
use crate::records::DreamRecord;

/// The scopes an operation reads or points at.
pub(super) fn scopes_of(op: &Operation) -> Vec<Scope> {
    let mut scopes: Vec<Scope> = op.reads().iter().map(|r| r.scope).collect();
    if let Operation::Retire {
        superseded_by: Some(by),
        ..
    } = op
    {
        scopes.push(by.scope);
    }
    scopes
}

/// The first operation reading from `scope` and the id it reads, for a
/// plan naming a store it was not given.
pub(super) fn first_in_scope(plan: &Plan, scope: Scope) -> (usize, String) {
    plan.operations
        .iter()
        .enumerate()
        .find_map(|(i, op)| {
            op.reads()
                .into_iter()
                .find(|r| r.scope == scope)
                .map(|r| (i, r.id.clone()))
        })
        .unwrap_or((0, String::new()))
}

fn txn_of<'t, 'a>(open: &'t [Open<'a>], scope: Scope) -> Option<&'t Transaction<'a>> {
    open.iter().find(|o| o.scope == scope).map(|o| &o.txn)
}

/// Every record read is still there at the revision read, every record
/// pointed at still exists, and no record has taken a merged record's new
/// name since the plan was made: checked under the locks, before any write.
pub(super) fn recheck(plan: &Plan, open: &[Open<'_>]) -> Result<(), ApplyError> {
    for (operation, op) in plan.operations.iter().enumerate() {
        let conflict = |id: &str| ApplyError::Conflict {
            operation,
            id: id.to_string(),
        };
        for read in op.reads() {
            let current = txn_of(open, read.scope)
                .and_then(|txn| txn.view().find(&read.id))
                .map(|s| s.meta.revision.unwrap_or(1));
            if current != Some(read.revision) {
                return Err(conflict(&read.id));
            }
        }
        match op {
            Operation::Retire {
                superseded_by: Some(by),
                ..
            } if txn_of(open, by.scope)
                .and_then(|t| t.view().find(&by.id))
                .is_none() =>
            {
                return Err(conflict(&by.id));
            }
            Operation::Merge { reads, into, .. } => {
                let name = normalize_name(&into.name).unwrap_or_default();
                let own = reads.iter().any(|r| id_key(&r.id) == id_key(&name));
                let taken = txn_of(open, reads[0].scope)
                    .and_then(|t| t.view().find(&name))
                    .is_some();
                if taken && !own {
                    return Err(conflict(&name));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Every record read holds what it held when the plan was made: the same
/// description, type, trust and body (`mdstore::hash::read_hash`, which an
/// agent's `forget` compares too).
pub(super) fn recheck_content(
    plan: &Plan,
    records: &[DreamRecord],
    open: &[Open<'_>],
) -> Result<(), ApplyError> {
    for (operation, op) in plan.operations.iter().enumerate() {
        for read in op.reads() {
            let was = records
                .iter()
                .find(|r| r.scope == read.scope && id_key(&r.record.id) == id_key(&read.id));
            let now = txn_of(open, read.scope).and_then(|txn| {
                let summary = txn.view().find(&read.id)?;
                txn.store().read_record(&summary.rel_path).ok()
            });
            let same = match (was, now) {
                (Some(was), Some(now)) => read_hash(&was.record) == read_hash(&now),
                _ => false,
            };
            if !same {
                return Err(ApplyError::Conflict {
                    operation,
                    id: read.id.clone(),
                });
            }
        }
    }
    Ok(())
}

fn open_mut<'t, 'a>(
    open: &'t mut [Open<'a>],
    operation: usize,
    read: &RecordRef,
) -> Result<&'t mut Transaction<'a>, ApplyError> {
    open.iter_mut()
        .find(|o| o.scope == read.scope)
        .map(|o| &mut o.txn)
        .ok_or_else(|| ApplyError::Conflict {
            operation,
            id: read.id.clone(),
        })
}

/// Every write, then every removal.
pub(super) fn run(
    plan: &Plan,
    open: &mut [Open<'_>],
    options: &ApplyOptions,
) -> Result<Applied, ApplyError> {
    let mut applied = Applied::default();
    for (operation, op) in plan.operations.iter().enumerate() {
        match op {
            Operation::Merge { reads, into, .. } => {
                let txn = open_mut(open, operation, &reads[0])?;
                let written = write_merged(txn, operation, reads, into, options)?;
                applied.merged.push((reads.clone(), written));
            }
            Operation::Update { reads, record, .. } => {
                let txn = open_mut(open, operation, reads)?;
                if let Some(written) =
                    write_update(txn, plan.origin, operation, reads, record, options)?
                {
                    applied.updated.push(written);
                }
            }
            Operation::Retire { .. } => {}
        }
    }
    for (operation, op) in plan.operations.iter().enumerate() {
        match op {
            Operation::Merge {
                reads,
                into,
                reason,
                ..
            } => {
                let kept = normalize_name(&into.name).map(|n| id_key(&n)).ok();
                for read in reads.iter().filter(|r| Some(id_key(&r.id)) != kept) {
                    let why = format!("dream: merged into {}: {reason}", quoted(&into.name));
                    forget(
                        open_mut(open, operation, read)?,
                        operation,
                        read,
                        why,
                        options,
                    )?;
                }
            }
            Operation::Retire {
                reads,
                reason,
                superseded_by,
                ..
            } => {
                let why = match superseded_by {
                    Some(by) => format!("dream: {reason} (superseded by {})", by.id),
                    None => format!("dream: {reason}"),
                };
                forget(
                    open_mut(open, operation, reads)?,
                    operation,
                    reads,
                    why,
                    options,
                )?;
                applied.retired.push(reads.clone());
            }
            Operation::Update { .. } => {}
        }
    }
    Ok(applied)
}

fn candidate(new: &NewRecord, source: Source) -> Candidate {
    Candidate {
        name: new.name.clone(),
        record_type: RecordType::parse(&new.record_type),
        description: Some(new.description.clone()),
        body: Some(new.body.clone()),
        source: Some(source),
        expires: new.expires.clone(),
        tags: new.tags.clone(),
        scope: None,
    }
}

fn write_options(
    source: Source,
    expect_revision: Option<u64>,
    now: jiff::Timestamp,
) -> WriteOptions {
    WriteOptions {
        force: false,
        expect_revision,
        // The text was shown and confirmed; a record that already said
        // "for now" is not refused for saying it again.
        refuse_temporary: false,
        default_source: source,
        now,
    }
}

/// The merged record, with the sources' trust (validate made them equal).
fn write_merged(
    txn: &mut Transaction<'_>,
    operation: usize,
    reads: &[RecordRef],
    into: &NewRecord,
    options: &ApplyOptions,
) -> Result<RecordRef, ApplyError> {
    let source = txn
        .view()
        .find(&reads[0].id)
        .map_or(Source::Inferred, |s| s.source());
    let name = normalize_name(&into.name).unwrap_or_default();
    let expect = reads
        .iter()
        .find(|r| id_key(&r.id) == id_key(&name))
        .map(|r| r.revision);
    let mut ids: Vec<String> = reads.iter().map(|r| r.id.clone()).collect();
    ids.sort();
    let created = reads
        .iter()
        .filter_map(|r| txn.view().find(&r.id)?.meta.created)
        .min();
    let step = txn
        .write_merged(
            &candidate(into, source),
            &MergedFrom { ids, created },
            &write_options(source, expect, options.now),
            None,
        )
        .map_err(|e| write_error(txn, operation, e))?;
    match step.outcome {
        Outcome::Saved { revision } => Ok(RecordRef {
            scope: reads[0].scope,
            id: step.plan.id,
            revision,
        }),
        Outcome::Noop { existing } => Err(ApplyError::Refused {
            operation,
            reason: format!("the merged text is already stored as {}", quoted(&existing)),
            conflict: true,
        }),
        other => Err(refused(operation, &step.plan.id, other)),
    }
}

/// The updated record (`None` when the text was already the same); a
/// model's text is `inferred`, the rules' keeps the record's trust.
fn write_update(
    txn: &mut Transaction<'_>,
    origin: Origin,
    operation: usize,
    read: &RecordRef,
    record: &NewRecord,
    options: &ApplyOptions,
) -> Result<Option<RecordRef>, ApplyError> {
    let existing = txn.view().find(&read.id);
    let source = match origin {
        Origin::Model => Source::Inferred,
        Origin::Rules => existing.map_or(Source::Inferred, |s| s.source()),
    };
    let mut new = candidate(record, source);
    new.name = existing.map_or_else(|| read.id.clone(), |s| s.id.clone());
    let step = txn
        .write(
            &new,
            &write_options(source, Some(read.revision), options.now),
            None,
        )
        .map_err(|e| write_error(txn, operation, e))?;
    match step.outcome {
        Outcome::Saved { revision } => Ok(Some(RecordRef {
            scope: read.scope,
            id: step.plan.id,
            revision,
        })),
        Outcome::Noop { .. } => Ok(None),
        other => Err(refused(operation, &step.plan.id, other)),
    }
}

fn forget(
    txn: &mut Transaction<'_>,
    operation: usize,
    read: &RecordRef,
    reason: String,
    options: &ApplyOptions,
) -> Result<(), ApplyError> {
    let rel_path = txn.view().find(&read.id).map(|s| s.rel_path.clone());
    match txn.forget(&read.id, Some(reason), options.now) {
        Ok(_) => Ok(()),
        Err(ForgetError::NotFound(_)) => Err(ApplyError::Conflict {
            operation,
            id: read.id.clone(),
        }),
        Err(ForgetError::Io(source)) => Err(ApplyError::Io {
            path: txn.store().root().join(rel_path.unwrap_or_default()),
            source,
        }),
        Err(e @ (ForgetError::SecretInReason(_) | ForgetError::Unreadable(_))) => {
            Err(ApplyError::Refused {
                operation,
                reason: e.to_string(),
                conflict: matches!(e, ForgetError::Unreadable(_)),
            })
        }
    }
}

fn write_error(txn: &Transaction<'_>, operation: usize, error: WriteError) -> ApplyError {
    match error {
        WriteError::Io { rel_path, source } => ApplyError::Io {
            path: txn.store().root().join(rel_path),
            source,
        },
        WriteError::Plan(e) => ApplyError::Refused {
            operation,
            conflict: matches!(e, PlanError::Occupied(_) | PlanError::Unreadable(_)),
            reason: e.to_string(),
        },
    }
}

/// A guard's refusal as the person who confirmed the plan reads it: the
/// rule and the place, never the refused text.
fn refused(operation: usize, id: &str, outcome: Outcome) -> ApplyError {
    let (reason, conflict) = match outcome {
        Outcome::Refused(Refusal::Secret(found)) => {
            let places: Vec<String> = found
                .iter()
                .map(|p| format!("rule {} {}", p.finding.rule, p.place))
                .collect();
            (
                format!(
                    "the new text of {} looks like it holds a secret ({})",
                    quoted(id),
                    places.join(", ")
                ),
                false,
            )
        }
        Outcome::Refused(Refusal::Temporary(_)) => (
            format!("the new text of {} is temporary", quoted(id)),
            false,
        ),
        Outcome::Refused(Refusal::Tombstone(tomb)) => (
            format!(
                "{} matches a tombstone: {} was forgotten at {}",
                quoted(id),
                quoted(&tomb.id),
                tomb.forgotten_at
            ),
            true,
        ),
        Outcome::Refused(Refusal::LowerTrust { existing, proposed }) => (
            format!(
                "{proposed} text may not replace the {existing} record {}",
                quoted(id)
            ),
            true,
        ),
        _ => {
            return ApplyError::Conflict {
                operation,
                id: id.to_string(),
            };
        }
    };
    ApplyError::Refused {
        operation,
        reason,
        conflict,
    }
}

fn quoted(text: &str) -> String {
    format!("\"{}\"", mdstore::escape::for_message(text, 80))
}
