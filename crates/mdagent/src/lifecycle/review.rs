//! `memctl review`'s use case: the candidates found after sessions wait in
//! the cache folder ([`super::pending`]); each is read again as `remember
//! --from-json` reads one (`inferred` whatever the file says), proposed
//! under the name of the record it repeats now, and accepted through
//! `remember`'s batch with every guard, or discarded. What is decided is
//! kept for the session's text, so a session that ends again does not
//! bring it back. The face shows each candidate, asks, and edits.

use std::path::PathBuf;

use mdstore::Source;
use mdstore::write::{candidate_from_json, json_name};

use super::pending::{self, Decision, Entry, PendingError};
use crate::face::{Batches, Tell};
use crate::remember::{Batch, Done, Parsed, Unreadable, label_candidate};
use crate::repeats::{self, Retargeted};
use crate::stores::{self, Scope, StoreError, WriteTarget};
use crate::write_failure::WriteFailure;
use crate::{Config, extract};

/// The candidates waiting for one store.
pub struct Review {
    /// The store they would be written to.
    pub scope: Scope,
    /// Its folder (which may not exist yet).
    pub root: PathBuf,
    pub entries: Vec<Entry>,
}

/// Why the review could not go on.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error(transparent)]
    Stores(#[from] StoreError),
    #[error(transparent)]
    Pending(#[from] PendingError),
    #[error(transparent)]
    Write(#[from] WriteFailure),
}

impl ReviewError {
    /// The error this one wraps, which [`crate::explain()`] explains.
    pub fn wrapped(&self) -> &(dyn std::error::Error + 'static) {
        match self {
            ReviewError::Stores(e) => e,
            ReviewError::Pending(e) => e,
            ReviewError::Write(e) => e,
        }
    }
}

/// The candidates waiting for the default store; what its shared
/// `.memctl.toml` says that memctl ignores is warned about first.
pub fn open(config: &Config, tell: &dyn Tell) -> Result<Review, ReviewError> {
    let scope = stores::default_scope(config);
    let target = stores::write_target(config, scope)?;
    extract::run::warn_of_store_settings(config, tell, Some(&target));
    let root = match &target {
        WriteTarget::Existing(scoped) => scoped.store.root().to_path_buf(),
        WriteTarget::Missing { dir, .. } => dir.clone(),
    };
    let entries = pending::load(config, &root)?;
    Ok(Review {
        scope,
        root,
        entries,
    })
}

impl Review {
    /// The candidates still waiting, read again.
    pub fn left(&self, config: &Config) -> Result<usize, PendingError> {
        Ok(pending::load(config, &self.root)?.len())
    }

    /// `remember`'s options for these candidates: written to this store,
    /// confirmed by the review itself, or only planned.
    pub fn batch(&self, dry_run: bool, commit: bool) -> Batch {
        Batch {
            scope: Some(self.scope),
            yes: !dry_run,
            dry_run,
            commit,
            from_json: true,
            ..Batch::default()
        }
    }

    /// `entries` read again as `remember --from-json` reads candidates,
    /// each that repeats a record (now) proposed under its name.
    pub fn parse_all(
        &self,
        config: &Config,
        entries: &[Entry],
    ) -> (Vec<Parsed>, Vec<Option<Retargeted>>) {
        let mut parsed: Vec<Parsed> = entries
            .iter()
            .enumerate()
            .map(|(n, e)| parse(n, e))
            .collect();
        let stores_now = stores::read_stores(config).unwrap_or_default();
        let retargeted = repeats::retarget(&stores_now, self.scope, &mut parsed);
        (parsed, retargeted)
    }

    /// `--yes`: every candidate accepted through every guard; what was
    /// settled stops waiting, and what was saved or found stored is kept
    /// as decided.
    pub fn accept_all(
        &self,
        config: &Config,
        face: &dyn Batches,
        commit: bool,
    ) -> Result<Done, ReviewError> {
        let (parsed, _) = self.parse_all(config, &self.entries);
        let done = face.batch(&self.batch(false, commit), parsed)?;
        let mut settled = Vec::new();
        for (entry, status) in self.entries.iter().zip(done.statuses()) {
            if is_settled(status) {
                if matches!(status, "saved" | "noop") {
                    pending::decide(config, &self.root, entry, Decision::Accepted)?;
                }
                settled.push(entry.key.clone());
            }
        }
        pending::remove(config, &self.root, &settled)?;
        Ok(done)
    }

    /// One candidate accepted as `status` says its write went: settled, it
    /// stops waiting (kept as decided when saved or found stored); a
    /// conflict or a failed write leaves it waiting.
    pub fn accepted(
        &self,
        config: &Config,
        entry: &Entry,
        status: &str,
    ) -> Result<(), PendingError> {
        if is_settled(status) {
            if matches!(status, "saved" | "noop") {
                pending::decide(config, &self.root, entry, Decision::Accepted)?;
            }
            self.forget(config, entry)?;
        }
        Ok(())
    }

    /// One candidate discarded: not proposed again for its session.
    pub fn discard(&self, config: &Config, entry: &Entry) -> Result<(), PendingError> {
        pending::decide(config, &self.root, entry, Decision::Skipped)?;
        self.forget(config, entry)
    }

    /// One candidate stops waiting, undecided (refused or already stored
    /// when planned again: there is nothing to accept).
    pub fn forget(&self, config: &Config, entry: &Entry) -> Result<(), PendingError> {
        pending::remove(config, &self.root, std::slice::from_ref(&entry.key))
    }
}

/// The record an entry repeats and the name the model gave it: as found
/// now (`now`), else as when it was found.
pub fn repeat_of(entry: &Entry, now: Option<&Retargeted>) -> (Option<String>, Option<String>) {
    match now {
        Some(r) => (Some(r.record.clone()), Some(r.proposed.clone())),
        None => (entry.repeats.clone(), entry.proposed_name.clone()),
    }
}

/// A waiting candidate read again as `remember --from-json` reads one; it
/// is `inferred` whatever the file says (a model proposed it).
fn parse(n: usize, entry: &Entry) -> Parsed {
    let name = json_name(&entry.candidate).unwrap_or_default().to_string();
    let mut candidate = candidate_from_json(&entry.candidate).map_err(|e| Unreadable {
        message: format!("{}: {e}", label_candidate(n, Some(&name))),
        name: name.clone(),
        dropped: false,
    })?;
    candidate.source = Some(Source::Inferred);
    Ok(candidate)
}

/// Saved, already stored, refused or set aside: nothing more to decide.
/// A conflict or a failed write leaves it waiting.
fn is_settled(status: &str) -> bool {
    matches!(status, "saved" | "noop" | "refused" | "dropped")
}
