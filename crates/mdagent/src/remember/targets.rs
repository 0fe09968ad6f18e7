//! The stores a batch writes to: existing ones, and stand-ins for those
//! that do not exist yet, created only when a confirmed write needs them
//! (SPEC §9: a workspace store is created after confirmation).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use mdstore::Store;

use super::batch::{Batch, Item, confirmed};
use crate::face::{Ask, Tell};
use crate::stores::{self, Scope, ScopedStore, WriteTarget};
use crate::write_failure::WriteFailure;
use crate::{Config, Kind};

/// The stores a run writes to: existing ones, and stand-ins for those that
/// do not exist yet (created only when a confirmed write needs them).
pub(super) struct Targets {
    pub(super) store_of: BTreeMap<Scope, ScopedStore>,
    pub(super) missing: BTreeMap<Scope, PathBuf>,
    /// Kept for as long as the stand-ins are planned against.
    _stand_in: Option<tempfile::TempDir>,
}

/// A store that does not exist yet is planned against an empty stand-in (no
/// records, no tombstones: the same classification) and created only when a
/// confirmed write needs it, so that a dry run, a refusal or an unconfirmed
/// run leaves the disk as it was.
pub(super) fn open_targets(
    config: &Config,
    face: &dyn Ask,
    batch: &Batch,
    items: &[Item],
) -> Result<Targets, WriteFailure> {
    let mut store_of = BTreeMap::new();
    let mut missing = BTreeMap::new();
    let mut stand_in: Option<tempfile::TempDir> = None;
    let scopes: BTreeSet<Scope> = items
        .iter()
        .filter(|i| i.outcome.is_none())
        .map(|i| i.scope)
        .collect();
    for scope in scopes {
        match stores::write_target(config, scope)? {
            WriteTarget::Existing(scoped) => {
                store_of.insert(scope, scoped);
            }
            WriteTarget::Missing { scope, dir } => {
                if !batch.dry_run {
                    confirm_creation(scope, &dir, face, batch.yes)?;
                }
                let no_stand_in =
                    |e| WriteFailure::io("cannot create a temporary folder to plan in", e);
                let folder = match &stand_in {
                    Some(folder) => folder,
                    None => stand_in.insert(tempfile::tempdir().map_err(no_stand_in)?),
                };
                let store =
                    Store::create(&folder.path().join(scope.as_str())).map_err(no_stand_in)?;
                face.note(&format!(
                    "The {} store {} does not exist yet; saving creates it.",
                    scope.as_str(),
                    dir.display()
                ));
                store_of.insert(scope, ScopedStore { scope, store });
                missing.insert(scope, dir);
            }
        }
    }
    Ok(Targets {
        store_of,
        missing,
        _stand_in: stand_in,
    })
}

impl Targets {
    /// Creates the missing stores that confirmed writes need. Each stays
    /// listed as missing, so that paths are shown under it, not under its
    /// stand-in.
    pub(super) fn create_needed(
        &self,
        items: &[Item],
        tell: &dyn Tell,
    ) -> Result<BTreeMap<Scope, ScopedStore>, WriteFailure> {
        let mut created = BTreeMap::new();
        for (scope, dir) in &self.missing {
            if items
                .iter()
                .any(|i| i.scope == *scope && i.outcome.is_none())
            {
                created.insert(*scope, create(*scope, dir, tell)?);
            }
        }
        Ok(created)
    }

    /// The folder each scope's paths are shown under: the store, or where a
    /// missing one would be created.
    pub(super) fn display_roots(&self) -> BTreeMap<Scope, PathBuf> {
        self.store_of
            .iter()
            .map(|(scope, scoped)| {
                let root = self
                    .missing
                    .get(scope)
                    .map_or_else(|| scoped.store.root().to_path_buf(), Clone::clone);
                (*scope, root)
            })
            .collect()
    }
}

/// Asks whether to create a missing workspace store (SPEC §9: "created after
/// confirmation"); a global store needs no question. Creates nothing.
fn confirm_creation(
    scope: Scope,
    dir: &Path,
    face: &dyn Ask,
    yes: bool,
) -> Result<(), WriteFailure> {
    if scope == Scope::Global || yes {
        return Ok(());
    }
    let question = format!("Create a workspace store at {}?", dir.display());
    if confirmed(face, &question)? {
        return Ok(());
    }
    Err(WriteFailure::stopped(
        Kind::NotConfirmed,
        format!("no workspace store was created at {}", dir.display()),
    )
    .with_hint("run `memctl init` there, or pass --yes"))
}

/// Creates the missing store of a confirmed write, saying so.
fn create(scope: Scope, dir: &Path, tell: &dyn Tell) -> Result<ScopedStore, WriteFailure> {
    let scoped = stores::create(scope, dir)?;
    tell.note(&format!(
        "Created the {} store {}",
        scope.as_str(),
        dir.display()
    ));
    crate::git::attributes::ensure_in_repo(tell, scoped.store.root());
    Ok(scoped)
}
