//! The stores a `remember` run writes to: existing ones, and stand-ins for
//! those that do not exist yet, created only when a confirmed write needs
//! them (SPEC §9: a workspace store is created after confirmation).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Context;
use mdagent::Config;
use mdagent::stores::{self, Scope, ScopedStore, WriteTarget};
use mdstore::Store;

use super::{Batch, Item};
use crate::failure::Failure;
use crate::ui::Ui;
use mdagent::Kind;

/// The stores a run writes to: existing ones, and stand-ins for those that
/// do not exist yet (created only when a confirmed write needs them).
pub(super) struct Targets {
    pub(super) store_of: BTreeMap<Scope, ScopedStore>,
    pub(super) missing: BTreeMap<Scope, PathBuf>,
    stand_in: Option<tempfile::TempDir>,
}

/// A store that does not exist yet is planned against an empty stand-in (no
/// records, no tombstones: the same classification) and created only when a
/// confirmed write needs it, so that a dry run, a refusal or an unconfirmed
/// run leaves the disk as it was.
pub(super) fn open_targets(
    config: &Config,
    ui: &Ui,
    batch: &Batch,
    items: &[Item],
) -> anyhow::Result<Targets> {
    let mut targets = Targets {
        store_of: BTreeMap::new(),
        missing: BTreeMap::new(),
        stand_in: None,
    };
    let scopes: BTreeSet<Scope> = items
        .iter()
        .filter(|i| i.outcome.is_none())
        .map(|i| i.scope)
        .collect();
    for scope in scopes {
        match stores::write_target(config, scope)? {
            WriteTarget::Existing(scoped) => {
                targets.store_of.insert(scope, scoped);
            }
            WriteTarget::Missing { scope, dir } => {
                if !batch.dry_run {
                    confirm_creation(scope, &dir, ui, batch.yes)?;
                }
                if targets.stand_in.is_none() {
                    targets.stand_in = Some(
                        tempfile::tempdir()
                            .context("cannot create a temporary folder to plan in")?,
                    );
                }
                let root = targets
                    .stand_in
                    .as_ref()
                    .map(|d| d.path().join(scope.as_str()))
                    .context("cannot create a temporary folder to plan in")?;
                let store =
                    Store::create(&root).context("cannot create a temporary folder to plan in")?;
                ui.note(&format!(
                    "The {} store {} does not exist yet; saving creates it.",
                    scope.as_str(),
                    dir.display()
                ));
                targets.store_of.insert(scope, ScopedStore { scope, store });
                targets.missing.insert(scope, dir);
            }
        }
    }
    Ok(targets)
}

/// Creates the missing stores that confirmed writes need. Each stays listed
/// as missing, so that paths are shown under it, not under its stand-in.
pub(super) fn create_needed(
    targets: &Targets,
    items: &[Item],
    ui: &Ui,
) -> anyhow::Result<BTreeMap<Scope, ScopedStore>> {
    let mut created = BTreeMap::new();
    for (scope, dir) in &targets.missing {
        if items
            .iter()
            .any(|i| i.scope == *scope && i.outcome.is_none())
        {
            created.insert(*scope, create(*scope, dir, ui)?);
        }
    }
    Ok(created)
}

/// The folder each scope's paths are shown under: the store, or where a
/// missing one would be created.
pub(super) fn display_roots(
    store_of: &BTreeMap<Scope, ScopedStore>,
    missing: &BTreeMap<Scope, PathBuf>,
) -> BTreeMap<Scope, PathBuf> {
    store_of
        .iter()
        .map(|(scope, scoped)| {
            let root = missing
                .get(scope)
                .map_or_else(|| scoped.store.root().to_path_buf(), Clone::clone);
            (*scope, root)
        })
        .collect()
}

/// Asks whether to create a missing workspace store (SPEC §9: "created after
/// confirmation"); a global store needs no question. Creates nothing.
fn confirm_creation(scope: Scope, dir: &Path, ui: &Ui, yes: bool) -> anyhow::Result<()> {
    if scope == Scope::Global || yes {
        return Ok(());
    }
    let question = format!("Create a workspace store at {}?", dir.display());
    if ui.confirm(&question)? {
        return Ok(());
    }
    Err(Failure::new(
        Kind::NotConfirmed,
        format!("no workspace store was created at {}", dir.display()),
    )
    .with_hint("run `memctl init` there, or pass --yes")
    .into())
}

/// Creates the missing store of a confirmed write, saying so.
fn create(scope: Scope, dir: &Path, ui: &Ui) -> anyhow::Result<ScopedStore> {
    let scoped = stores::create(scope, dir)?;
    ui.note(&format!(
        "Created the {} store {}",
        scope.as_str(),
        dir.display()
    ));
    mdagent::git::attributes::ensure_in_repo(ui, scoped.store.root());
    Ok(scoped)
}
