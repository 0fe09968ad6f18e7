//! What became of one candidate: written, already there, refused, or left
//! unwritten for a reason of the run's (a dry run, nobody confirmed).

use std::path::{Path, PathBuf};

use mdstore::Store;
use mdstore::txn;
use mdstore::write::Refusal;

use crate::Kind;

/// One candidate's outcome; each face words it and chooses its hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Saved {
        revision: u64,
    },
    /// The content is stored as `existing`, in the file at `rel_path`.
    Noop {
        existing: String,
        rel_path: PathBuf,
    },
    /// A guard said no (the candidate's plan names the record).
    Refused(Refusal),
    /// The candidate cannot be a record as given: why, naming it and the field.
    BadInput(String),
    /// The record changed between the plan shown and the write; nothing of
    /// it was written.
    Conflict,
    /// An I/O error while writing it; nothing of it was written.
    Failed(String),
    NotConfirmed,
    DryRun,
    /// Set aside before planning, and why (`extract`: a current-task candidate).
    Dropped(String),
}

impl Outcome {
    /// The kind of failure this outcome is, or `None` when it went well
    /// (written, already there, only shown, set aside on purpose).
    pub fn kind(&self) -> Option<Kind> {
        match self {
            Outcome::Saved { .. }
            | Outcome::Noop { .. }
            | Outcome::DryRun
            | Outcome::Dropped(_) => None,
            Outcome::Refused(refusal) => Some(crate::explain::refusal_kind(refusal)),
            Outcome::BadInput(_) => Some(Kind::BadInput),
            Outcome::Conflict => Some(Kind::Conflict),
            Outcome::Failed(_) => Some(Kind::Internal),
            Outcome::NotConfirmed => Some(Kind::NotConfirmed),
        }
    }

    /// The candidate's outcome in one word, as a face's JSON reports it.
    pub fn status_name(outcome: Option<&Outcome>) -> &'static str {
        match outcome {
            Some(Outcome::Saved { .. }) => "saved",
            Some(Outcome::Noop { .. }) => "noop",
            Some(Outcome::Refused(_) | Outcome::BadInput(_)) => "refused",
            Some(Outcome::Conflict) => "conflict",
            Some(Outcome::Failed(_)) => "failed",
            Some(Outcome::NotConfirmed) => "not-confirmed",
            Some(Outcome::Dropped(_)) => "dropped",
            Some(Outcome::DryRun) | None => "dry-run",
        }
    }

    /// What the write under the lock decided for a candidate.
    pub(super) fn of_step(store: &Store, step: &txn::Step) -> Outcome {
        match &step.outcome {
            txn::Outcome::Saved { revision } => Outcome::Saved {
                revision: *revision,
            },
            txn::Outcome::Noop { existing } => Outcome::noop(store, existing, &step.plan.rel_path),
            txn::Outcome::Refused(refusal) => Outcome::Refused(refusal.clone()),
            txn::Outcome::Conflict => Outcome::Conflict,
        }
    }

    /// A NOOP, pointing at the file that already holds the content (another
    /// record's, when it is stored under another id).
    pub(super) fn noop(store: &Store, existing: &str, own_rel_path: &Path) -> Outcome {
        let rel_path = store
            .find(existing)
            .map_or_else(|| own_rel_path.to_path_buf(), |entry| entry.rel_path);
        Outcome::Noop {
            existing: existing.to_string(),
            rel_path,
        }
    }
}
