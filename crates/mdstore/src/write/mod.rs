//! Planning and applying writes (SPEC §6): every candidate is classified as
//! ADD, UPDATE, NOOP or REFUSED before anything touches the disk, and applied
//! only under the store's write lock.

mod apply;
mod candidate;
mod plan;
#[cfg(test)]
pub(crate) mod tests;

use std::path::PathBuf;

use jiff::Timestamp;

use crate::catalog::{self, Budget, Catalog};
use crate::frontmatter;
use crate::guard::secrets::SecretFinding;
use crate::guard::temporary::TemporaryFinding;
use crate::id::{self, NameError};
use crate::record::Source;
use crate::store::{Skipped, Summary};
use crate::tombstone::Tombstone;
use crate::view::StoreView;

pub use apply::{ForgetError, apply, clean_temp_files, forget};
pub use candidate::{
    Candidate, CandidateJsonError, Field, InputError, candidate_from_json, candidate_to_json,
    check_candidate, json_name,
};
pub use plan::{plan, plan_merged};

/// How a write is to be judged.
#[derive(Clone, Debug)]
pub struct WriteOptions {
    /// Overrides tombstones and the trust order.
    pub force: bool,
    /// Compare-and-swap: the record's revision must be this.
    pub expect_revision: Option<u64>,
    /// Temporary text refuses (non-interactive runs) instead of warning.
    pub refuse_temporary: bool,
    /// The source of a candidate that names none.
    pub default_source: Source,
    /// The time written into `created`/`updated`; fixed per command so that a
    /// plan made again under the lock renders the same bytes.
    pub now: Timestamp,
}

/// What a record written by a dream merge consolidates (SPEC §7).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergedFrom {
    /// The sources' ids, written as `merged_from`.
    pub ids: Vec<String>,
    /// The earliest `created` among the sources: what the merged record
    /// says was first said then, so it keeps that date.
    pub created: Option<Timestamp>,
}

/// Why a candidate is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    Secret(Vec<Placed<SecretFinding>>),
    Temporary(Vec<Placed<TemporaryFinding>>),
    Tombstone(Tombstone),
    LowerTrust { existing: Source, proposed: Source },
    RevisionMismatch { expected: u64, actual: Option<u64> },
}

/// Where in a candidate a guard found something: the line a person should
/// look at, counted within the part it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Name,
    Description,
    Tags,
    /// A 1-based line of the body.
    Body(usize),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Name => f.write_str("in the name"),
            Place::Description => f.write_str("in the description"),
            Place::Tags => f.write_str("in a tag"),
            Place::Body(line) => write!(f, "on line {line}"),
        }
    }
}

/// A guard's finding and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed<T> {
    pub finding: T,
    pub place: Place,
}

/// What a write will do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operation {
    Add,
    Update {
        from_revision: u64,
    },
    /// The same content is stored under `existing`.
    Noop {
        existing: String,
    },
    Refused(Refusal),
}

/// A classified candidate: everything the confirmation shows and the write needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub id: String,
    pub rel_path: PathBuf,
    pub operation: Operation,
    /// The file as it is now (UPDATE, NOOP of the same id).
    pub old_text: Option<String>,
    /// The file as it will be (ADD, UPDATE).
    pub new_text: Option<String>,
    pub warnings: Vec<String>,
}

/// A candidate that cannot even be classified: bad input (exit 2), or a
/// file in the way.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("invalid name {}: {source}", shown_name(.name))]
    Name { name: String, source: NameError },
    #[error("the existing record {}: {}", .0.rel_path.display(), .0.reason)]
    Unreadable(Skipped),
    #[error("{} already exists and is not a readable record ({}); memctl will not overwrite it", .0.rel_path.display(), .0.reason)]
    Occupied(Skipped),
    #[error("the record would be {0} bytes; records are at most 256 KiB")]
    TooLarge(usize),
}

/// A bad name as a message shows it: quoted, escaped, and cut to 40
/// characters with its length, so that a 5,000-character name is not echoed
/// whole.
fn shown_name(name: &str) -> String {
    const SHOWN: usize = 40;
    let shown = crate::escape::for_message(name, SHOWN);
    match name.chars().count() {
        n if n > SHOWN => format!("\"{shown}\" ({n} characters)"),
        _ => format!("\"{shown}\""),
    }
}

/// The warning to show before `plans` are written when `MEMORY.md` would
/// then use more than 90% of its budget (SPEC §3), counting every plan of a
/// batch together.
pub fn budget_warning_after(view: &StoreView, plans: &[&Plan]) -> Option<String> {
    // Borrowed, not cloned: at 100,000 records a copy of the view would
    // double a write's memory.
    let written: Vec<Summary> = plans
        .iter()
        .filter_map(|plan| {
            let text = plan.new_text.as_ref()?;
            Some(Summary {
                id: plan.id.clone(),
                rel_path: plan.rel_path.clone(),
                meta: frontmatter::parse(text).meta,
            })
        })
        .collect();
    let replaced: std::collections::HashSet<String> =
        written.iter().map(|s| id::id_key(&s.id)).collect();
    let kept = view
        .summaries
        .iter()
        .filter(|s| replaced.is_empty() || !replaced.contains(&id::id_key(&s.id)));
    let catalog = catalog::render(kept.chain(&written), Budget::default());
    (catalog.budget_share() > 0.9).then(|| budget_warning(&catalog))
}

/// What `remember` and `status` say when `MEMORY.md` nears its budget.
pub fn budget_warning(catalog: &Catalog) -> String {
    if catalog.omitted > 0 {
        format!(
            "MEMORY.md is over its budget: {} records are left out of it; merge or forget records to bring them back",
            catalog.omitted
        )
    } else {
        format!(
            "MEMORY.md will use {:.0}% of its budget ({} of {} lines, {} of {} bytes)",
            // Rounded up: a warning given above 90% must not say "90%".
            (catalog.budget_share() * 100.0).ceil(),
            catalog.lines,
            catalog.budget.max_lines,
            catalog.bytes,
            catalog.budget.max_bytes
        )
    }
}
