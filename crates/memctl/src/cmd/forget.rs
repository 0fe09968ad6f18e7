//! `memctl forget`: remove records, leaving tombstones (SPEC §6).

use anyhow::Context;
use jiff::Timestamp;
use mdstore::lock::{self, StoreLock};
use mdstore::write::{self, ForgetError};

use crate::cli::{ForgetArgs, GlobalArgs};
use crate::cmd::remember::print_error;
use crate::failure::{Exit, Failure};
use crate::index_hook;
use crate::stores::{self, Scope, WriteTarget};
use crate::ui::{self, Ui};

pub fn run(global: &GlobalArgs, ui: &Ui, args: ForgetArgs) -> anyhow::Result<Exit> {
    let scope = if global.global {
        Scope::Global
    } else {
        Scope::Workspace
    };
    // The reason is kept in a tombstone that teams commit: no place for a secret.
    if let Some(reason) = &args.reason {
        let found = mdstore::guard::secrets::find_secrets(reason);
        if !found.is_empty() {
            let rules: Vec<&str> = found.iter().map(|f| f.rule).collect();
            return Err(Failure::bad_input(format!(
                "--reason looks like it holds a secret (rule {}); it would be kept in the tombstone",
                rules.join(", rule ")
            ))
            .with_hint("say why without the secret; nothing was forgotten")
            .into());
        }
    }
    let scoped = match stores::write_target(global, scope)? {
        WriteTarget::Existing(scoped) => scoped,
        // Nothing to forget, and no reason to create a store to say so.
        WriteTarget::Missing { dir, .. } => {
            return Err(Failure::bad_input(format!(
                "no record {:?}: there is no {} store at {}",
                args.ids.join(" "),
                scope.as_str(),
                dir.display()
            ))
            .into());
        }
    };
    let store = &scoped.store;
    let view = index_hook::view_for_write(store);
    let mut targets = Vec::new();
    for id in &args.ids {
        match view.find(id) {
            Some(summary) => targets.push(summary.clone()),
            None => {
                let hint = match mdstore::tombstone::find_match(&view.tombstones, id, "") {
                    Some(t) => format!(
                        "it was already forgotten on {}",
                        t.forgotten_at.strftime("%Y-%m-%d")
                    ),
                    None => "`memctl list` shows the ids".to_string(),
                };
                return Err(Failure::bad_input(format!(
                    "no record {id:?} in the {} store {}",
                    scope.as_str(),
                    store.root().display()
                ))
                .with_hint(hint)
                .into());
            }
        }
    }
    let mut plan = String::new();
    for summary in &targets {
        plan += &format!(
            "FORGET {} ({}): {}\n",
            summary.id,
            store.root().join(&summary.rel_path).display(),
            summary.description()
        );
    }
    ui::print(&plan)?;
    let confirmed = args.yes || (ui.interactive && ui.confirm("Forget?")?);
    if !confirmed {
        let (message, hint) = if ui.interactive {
            ("nothing forgotten: declined at the prompt", None)
        } else {
            (
                "nothing forgotten: there is no terminal to confirm on",
                Some("pass --yes to forget without asking"),
            )
        };
        print_error(ui, message, hint);
        return Ok(Exit::NotConfirmed);
    }

    let _lock = StoreLock::acquire(store.root(), lock::timeout_from_env()).map_err(|e| match e {
        lock::LockError::Timeout(waited) => anyhow::Error::from(
            Failure::new(
                Exit::Conflict,
                format!("another memctl process held the write lock for {waited:?}; nothing was forgotten"),
            )
            .with_hint("try again when it is done"),
        ),
        e => anyhow::Error::from(e).context("cannot take the store's write lock"),
    })?;
    let mut view = index_hook::view_for_write(store);
    // Kept here, where it can be told; the rewrite of MEMORY.md below finds
    // this copy and makes no other.
    if let Some(kept) = mdstore::catalog::disk::preserve_foreign(store)
        .context("cannot keep the MEMORY.md that memctl did not write")?
    {
        super::admin::note_preserved_at(ui, &kept);
    }
    let now = Timestamp::now();
    let mut removed = Vec::new();
    for summary in &targets {
        match write::forget(store, &mut view, &summary.id, args.reason.clone(), now) {
            Ok(_) => {
                removed.push(summary.rel_path.clone());
                ui.note(&format!(
                    "Forgot {}; a tombstone keeps it from coming back.",
                    summary.id
                ));
            }
            Err(ForgetError::NotFound(id)) => {
                index_hook::after_write(store, &removed);
                return Err(Failure::new(
                    Exit::Conflict,
                    format!("{id} was removed by another process meanwhile"),
                )
                .into());
            }
            Err(e) => {
                index_hook::after_write(store, &removed);
                return Err(e).with_context(|| format!("cannot forget {}", summary.id));
            }
        }
    }
    index_hook::after_write(store, &removed);
    Ok(Exit::Ok)
}
