//! Validation before anything is written (SPEC §7, step 4): every plan, the
//! rules' and a model's alike, passes the same checks, and a rejected plan
//! names the rule it broke and the operation.

mod facts;
mod operation;
mod plan_wide;
mod successor;
#[cfg(test)]
mod tests;
mod trusted;

use std::collections::HashMap;

use mdstore::guard::secrets::secret_note;

use crate::plan::{DroppedFact, Operation, PLAN_VERSION, Plan, RecordRef, Scope};
use crate::records::DreamRecord;

pub use plan_wide::{MIN_REMOVALS, max_removals};

/// Limits a plan must respect.
#[derive(Clone, Debug)]
pub struct ValidateOptions {
    /// At most this share of the records may be retired (`--max-delete-pct`).
    pub max_delete_pct: f64,
}

/// The rules a plan can break, one per check of SPEC §7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The plan's `version` is not [`PLAN_VERSION`].
    Version,
    /// An operation reads (or is superseded by) a record that does not exist.
    UnknownRecord,
    /// A record is no longer at the revision the plan read.
    Revision,
    /// Two reads of the plan name the same record.
    ReadTwice,
    /// A new record's name breaks the name rules, or an update renames.
    InvalidName,
    /// A new record's name is taken (by another operation's result, or by a
    /// record this operation does not replace).
    NameCollision,
    /// A new record's type, description, tags or `expires` are invalid.
    InvalidRecord,
    MergeAcrossScopes,
    MergeAcrossTypes,
    /// Text from a lower-trust source over a higher-trust record.
    LowerTrust,
    /// A merge that does not name the two or more records it joins, or a
    /// drop that names a record the operation did not read.
    CitesSources,
    /// A fact of a record read is neither in the new body nor dropped with
    /// a reason.
    SilentDrop,
    /// More records removed than `--max-delete-pct` allows.
    RemovalLimit,
    /// Records go in and nothing (an empty record) comes out.
    EmptyResult,
    /// `superseded_by` names the retired record itself or one the plan
    /// removes.
    Successor,
    /// `superseded_by` names a record of another type, or one that holds
    /// neither a fact of the retired record nor its corrected value.
    SuccessorHolds,
    /// An update changes its record's type.
    TypeChange,
    /// A model's merge of `user` or `verified` records does more than
    /// unite their lines (adds, changes, hides or moves one, or renames,
    /// redescribes, retags or dates the record).
    RewritesTrusted,
    /// A reason that is empty, too long to keep in a tombstone, or holds a
    /// control character or a secret (tombstones are committed).
    Reason,
}

impl Rule {
    /// The rule as a person reads it, first in every rejection.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Version => "unknown plan version",
            Rule::UnknownRecord => "reads a record that does not exist",
            Rule::Revision => "record changed since it was read",
            Rule::ReadTwice => "reads the same record twice",
            Rule::InvalidName => "invalid name",
            Rule::NameCollision => "name already taken",
            Rule::InvalidRecord => "invalid record",
            Rule::MergeAcrossScopes => "merge across scopes",
            Rule::MergeAcrossTypes => "merge across types",
            Rule::LowerTrust => "lower-trust text over a higher-trust record",
            Rule::CitesSources => "merged record does not cite its sources",
            Rule::SilentDrop => "drops a fact silently",
            Rule::RemovalLimit => "removes too many records",
            Rule::EmptyResult => "records go in and no record comes out",
            Rule::Successor => "superseded by a record that does not stay",
            Rule::SuccessorHolds => "superseded by a record that does not hold it",
            Rule::TypeChange => "an update changes the record's type",
            Rule::RewritesTrusted => "a model rewrites what a person said",
            Rule::Reason => "invalid reason",
        }
    }

    /// Whether breaking this rule is a conflict with what is stored: a
    /// lower-trust text over a higher-trust record, or a record changed
    /// since it was read; every other rule is the plan's own fault
    /// (`mdagent::explain` gives each its kind).
    pub fn is_conflict(self) -> bool {
        matches!(
            self,
            Rule::LowerTrust | Rule::RewritesTrusted | Rule::Revision
        )
    }
}

/// Why a plan was rejected: the rule, and the operation (its index in
/// `plan.operations`) that broke it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("operation {}: {rule}", .operation.map_or("(the plan)".to_string(), |i| (i + 1).to_string()))]
pub struct Rejection {
    pub operation: Option<usize>,
    /// The rule's name, then what broke it.
    pub rule: String,
    pub kind: Rule,
}

impl Rejection {
    fn new(kind: Rule, operation: Option<usize>, detail: impl AsRef<str>) -> Rejection {
        Rejection {
            operation,
            rule: format!("{}: {}", kind.name(), detail.as_ref()),
            kind,
        }
    }
}

/// Checks `plan` against the records it was made from.
pub fn validate(
    plan: &Plan,
    records: &[DreamRecord],
    options: &ValidateOptions,
) -> Result<(), Rejection> {
    if plan.version != PLAN_VERSION {
        return Err(Rejection::new(
            Rule::Version,
            None,
            format!(
                "the plan says version {}; this memctl reads version {PLAN_VERSION}",
                plan.version
            ),
        ));
    }
    let known = Known::new(records);
    plan_wide::reads_once(plan)?;
    for (index, op) in plan.operations.iter().enumerate() {
        operation::check_reason(index, op.reason())?;
        operation::check(plan.origin, index, op, &known)?;
    }
    plan_wide::successors_stay(plan)?;
    plan_wide::names_unique(plan, &known)?;
    plan_wide::removal_limit(plan, records.len(), options.max_delete_pct)
}

/// Spells every record a plan names as the store does: a model may write
/// `Pytest-A` or a full-width `ｐｙｔｅｓｔ-a` for `pytest-a`. Validation and
/// apply read ids by their key anyway (SPEC §2); resolving them before the
/// plan is shown makes the plan a person confirms name the real records,
/// never "not in the store" for one it then acts on. Ids of no record are
/// left as they are, for validation to refuse.
pub fn resolve_ids(plan: &mut Plan, records: &[DreamRecord]) {
    let known = Known::new(records);
    let spell = |scope: Scope, id: &mut String| {
        if let Some(record) = known.get(scope, id) {
            id.clone_from(&record.record.id);
        }
    };
    let mut resolve = |r: &mut RecordRef| spell(r.scope, &mut r.id);
    for op in &mut plan.operations {
        let (refs, drops): (Vec<&mut RecordRef>, Option<&mut Vec<DroppedFact>>) = match op {
            Operation::Merge { reads, drops, .. } => (reads.iter_mut().collect(), Some(drops)),
            Operation::Update { reads, drops, .. } => (vec![reads], Some(drops)),
            Operation::Retire {
                reads,
                superseded_by,
                ..
            } => (std::iter::once(reads).chain(superseded_by).collect(), None),
        };
        let scope = refs.first().map(|r| r.scope);
        for r in refs {
            resolve(r);
        }
        if let (Some(scope), Some(drops)) = (scope, drops) {
            drops.iter_mut().for_each(|d| spell(scope, &mut d.id));
        }
    }
    for alone in &mut plan.left_alone {
        alone.records.iter_mut().for_each(&mut resolve);
    }
}

/// The records a plan may read, by scope and id key (ids that differ only
/// in case or compatibility form are one record, SPEC §2).
pub(crate) struct Known<'a> {
    by_key: HashMap<(Scope, String), &'a DreamRecord>,
}

impl<'a> Known<'a> {
    fn new(records: &'a [DreamRecord]) -> Known<'a> {
        let mut by_key = HashMap::with_capacity(records.len());
        for record in records {
            by_key
                .entry((record.scope, mdstore::id::id_key(&record.record.id)))
                .or_insert(record);
        }
        Known { by_key }
    }

    fn get(&self, scope: Scope, id: &str) -> Option<&'a DreamRecord> {
        self.by_key.get(&(scope, mdstore::id::id_key(id))).copied()
    }

    /// The record `read` names, at the revision it was read.
    fn resolve(&self, index: usize, read: &RecordRef) -> Result<&'a DreamRecord, Rejection> {
        let record = self.get(read.scope, &read.id).ok_or_else(|| {
            Rejection::new(
                Rule::UnknownRecord,
                Some(index),
                format!(
                    "no record {} in the {} store",
                    shown(&read.id),
                    read.scope.as_str()
                ),
            )
        })?;
        if record.revision() != read.revision {
            return Err(Rejection::new(
                Rule::Revision,
                Some(index),
                format!(
                    "{} is at revision {}, the plan read revision {}; make the plan again",
                    shown(&read.id),
                    record.revision(),
                    read.revision
                ),
            ));
        }
        Ok(record)
    }
}

/// Text from a record or a plan as a rejection shows it: quoted, escaped,
/// cut, and never a secret.
pub(crate) fn shown(text: &str) -> String {
    secret_note(text).unwrap_or_else(|| format!("\"{}\"", mdstore::escape::for_message(text, 60)))
}
