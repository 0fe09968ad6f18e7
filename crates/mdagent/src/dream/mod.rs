//! dream, as a use case any face can call (SPEC §7): [`run`] is the whole
//! sequence (the stores, the lock and gates, a plan from the rules or a
//! model command, validated, shown and confirmed through a [`DreamFace`],
//! applied, committed when asked, what it did); the steps it takes after
//! the plan are below: orient (read every store's records), apply a
//! validated plan under the stores' locks, commit what it changed to git,
//! and say what it did. `dream --auto`'s gates, lock and unattended policy
//! are [`auto`]; a plan asked of a model command is [`model`]. A face renders
//! plans and reports with the types re-exported here ([`plan`],
//! [`Applied`], [`DreamRecord`]) and depends on no `mddream` of its own.

pub mod auto;
pub mod model;
mod run;

pub use mddream::apply::Applied;
pub use mddream::plan;
pub use mddream::records::DreamRecord;
pub use run::{DreamError, DreamFace, DreamRequest, Dreamt, run};

use std::collections::BTreeSet;
use std::path::PathBuf;

use jiff::Timestamp;
use mddream::apply::{self, ApplyOptions, Target};
use mddream::plan::Plan;
use mddream::records::{self, Broken};

use crate::Config;
use crate::face::Tell;
use crate::index_sink::IndexSink;
use crate::stores::ScopedStore;

/// What orienting found in every store dreamt on.
pub struct Oriented {
    pub records: Vec<DreamRecord>,
    pub broken: Vec<Broken>,
}

/// Every store's records as dream reads them, and the files it could not read.
pub fn orient(stores: &[ScopedStore]) -> Oriented {
    let mut oriented = Oriented {
        records: Vec::new(),
        broken: Vec::new(),
    };
    for scoped in stores {
        let loaded = records::load(&scoped.store, scoped.scope);
        oriented.records.extend(loaded.records);
        oriented.broken.extend(loaded.broken);
    }
    oriented
}

/// The copies of hand-made `MEMORY.md` files in the stores
/// (`MEMORY.md.before-memctl`, `-2`…): a new one after applying is a
/// hand-made index the plan's `MEMORY.md` replaced, which the user is told of.
pub fn preserved_copies(stores: &[ScopedStore]) -> BTreeSet<PathBuf> {
    stores
        .iter()
        .filter_map(|scoped| std::fs::read_dir(scoped.store.root()).ok())
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(mdstore::catalog::disk::PRESERVED_FILE))
        })
        .collect()
}

/// Applies a validated plan whole or not at all; under the lock every
/// record must still hold the text the plan was made from.
pub fn apply_plan(
    config: &Config,
    plan: &Plan,
    read: &[mddream::records::DreamRecord],
    stores: &[ScopedStore],
    now: Timestamp,
    lock_timeout: std::time::Duration,
) -> Result<apply::Applied, apply::ApplyError> {
    let mut sinks: Vec<IndexSink<'_>> = stores
        .iter()
        .map(|s| IndexSink::new(config, &s.store))
        .collect();
    let mut targets: Vec<Target<'_>> = stores
        .iter()
        .zip(sinks.iter_mut())
        .map(|(scoped, sink)| Target {
            scope: scoped.scope,
            store: &scoped.store,
            sink,
        })
        .collect();
    let options = ApplyOptions { lock_timeout, now };
    // Under the lock every record must still hold the text the plan was
    // made from: a hand edit keeps its revision, and a merge planned before
    // it would drop the lines it added. mdagent::explain gives each ApplyError its kind.
    apply::apply_as_read(plan, read, &mut targets, &options)
}

/// Commits each store's changed files when asked (`--commit`, or the
/// store's `.memctl.toml`), with a message saying what the dream did:
/// `dream: merge a, b into c; retire d (expired)`.
pub fn commit_to_git(
    config: &Config,
    tell: &dyn Tell,
    asked: bool,
    plan: &Plan,
    applied: &apply::Applied,
    stores: &[ScopedStore],
    read: &[mddream::records::DreamRecord],
) {
    for scoped in stores {
        let scope = scoped.scope;
        let touched = applied
            .merged
            .iter()
            .flat_map(|(sources, into)| sources.iter().chain([into]))
            .chain(&applied.updated)
            .chain(&applied.retired)
            .filter(|r| r.scope == scope);
        let paths: Vec<std::path::PathBuf> = touched
            .map(|r| {
                read.iter()
                    .find(|d| d.scope == scope && d.record.id == r.id)
                    .map_or_else(
                        || format!("{}.md", r.id).into(),
                        |d| d.record.rel_path.clone(),
                    )
            })
            .collect();
        let parts = changes(plan, applied, scope);
        if parts.is_empty() {
            continue;
        }
        let message = format!("dream: {}", parts.join("; "));
        let root = scoped.store.root();
        crate::git::commit::after_write(config, tell, root, asked, &message, &paths);
    }
}

/// What a dream changed in the `scope` store, one part a change, for a
/// commit message and a background dream's report: `merge a, b into c`,
/// `update d`, `retire e (expired)`.
pub fn changes(plan: &Plan, applied: &apply::Applied, scope: mddream::plan::Scope) -> Vec<String> {
    let mut parts = Vec::new();
    for (sources, into) in applied
        .merged
        .iter()
        .filter(|(_, into)| into.scope == scope)
    {
        let ids: Vec<String> = sources.iter().map(|r| r.id.clone()).collect();
        parts.push(format!(
            "merge {} into {}",
            crate::git::commit::names(&ids),
            into.id
        ));
    }
    for updated in applied.updated.iter().filter(|r| r.scope == scope) {
        parts.push(format!("update {}", updated.id));
    }
    for retired in applied.retired.iter().filter(|r| r.scope == scope) {
        parts.push(format!(
            "retire {} ({})",
            retired.id,
            retire_finding(plan, retired)
        ));
    }
    parts
}

/// What a background dream says at the next session start: what it
/// changed in each store and what it left for a person; `None` when it
/// did nothing and found nothing.
pub fn background_summary(
    plan: &Plan,
    applied: Option<&apply::Applied>,
    stores: &[ScopedStore],
) -> Option<String> {
    let mut said = Vec::new();
    if let Some(applied) = applied {
        for scoped in stores {
            let parts = changes(plan, applied, scoped.scope);
            if !parts.is_empty() {
                said.push(format!(
                    "{} store: {}",
                    scoped.scope.as_str(),
                    parts.join("; ")
                ));
            }
        }
    }
    let left = plan.left_alone.len();
    if left > 0 {
        said.push(format!(
            "{} left for you: run `memctl dream` to review {}",
            if left == 1 {
                "1 finding".to_string()
            } else {
                format!("{left} findings")
            },
            if left == 1 { "it" } else { "them" }
        ));
    }
    (!said.is_empty()).then(|| said.join(". "))
}

/// Why a retired record went, in a word or two, for a commit message.
fn retire_finding(plan: &Plan, retired: &mddream::plan::RecordRef) -> &'static str {
    use mddream::plan::{Finding, Operation};
    let finding = plan.operations.iter().find_map(|op| match op {
        Operation::Retire { reads, finding, .. }
            if reads.id == retired.id && reads.scope == retired.scope =>
        {
            Some(*finding)
        }
        _ => None,
    });
    match finding {
        Some(Finding::Expired) => "expired",
        Some(Finding::Correction) => "corrected",
        Some(Finding::ExactDuplicate | Finding::NearDuplicate) => "duplicate",
        Some(Finding::OverBudget) => "over budget",
        Some(Finding::Model) => "model",
        None => "retired",
    }
}
