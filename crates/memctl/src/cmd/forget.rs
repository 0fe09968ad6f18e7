//! `memctl forget`: remove records, leaving tombstones (SPEC §6).

use anyhow::Context;
use jiff::Timestamp;
use mdstore::guard::secrets;
use mdstore::write::ForgetError;
use mdstore::{Store, Summary};

use mdagent::Config;
use mdagent::index_sink;
use mdagent::stores::{self, Scope, WriteTarget};

use crate::cli::ForgetArgs;
use crate::failure::{Exit, Failure};
use crate::ui::{self, Ui};
use mdagent::Kind;

pub fn run(config: &Config, ui: &Ui, args: ForgetArgs) -> anyhow::Result<Exit> {
    let scope = stores::default_scope(config);
    // Refused by the transaction too; asked here first so that nobody
    // confirms a forget that cannot happen.
    if let Some(reason) = &args.reason
        && !secrets::find_secrets(reason).is_empty()
    {
        return Err(secret_in_reason(&secrets::find_secrets(reason)));
    }
    let scoped = match stores::write_target(config, scope)? {
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
    let targets = find_targets(config, store, scope, &args.ids)?;
    let mut plan = String::new();
    for summary in &targets {
        plan += &format!(
            "FORGET {} ({}): {}\n",
            ui::shown(&summary.id),
            ui::shown_path(&store.root().join(&summary.rel_path)),
            ui::shown(summary.description())
        );
    }
    ui::print(&plan)?;
    let confirmed = args.yes || (ui.interactive && ui.confirm("Forget?")?);
    if !confirmed {
        ui.not_confirmed("nothing forgotten", "pass --yes to forget without asking");
        return Ok(Exit::NotConfirmed);
    }

    let mut txn = index_sink::begin(config, store, config.lock_timeout()?)?;
    ui.warn_repaired(store.root(), txn.recovered());
    let now = Timestamp::now();
    let mut failed = None;
    for summary in &targets {
        // An earlier forget of it, interrupted half-way, was just finished.
        if txn.recovered().changed.contains(&summary.rel_path)
            && txn.view().find(&summary.id).is_none()
        {
            ui.note(&format!(
                "Forgot {}; a tombstone keeps it from coming back.",
                summary.id
            ));
            continue;
        }
        match txn.forget(&summary.id, args.reason.clone(), now) {
            Ok(_) => ui.note(&format!(
                "Forgot {}; a tombstone keeps it from coming back.",
                summary.id
            )),
            Err(e) => {
                failed = Some(forget_failure(&summary.id, e));
                break;
            }
        }
    }
    // What was forgotten before a failure stays forgotten: MEMORY.md and the
    // index must say so too.
    let committed = txn.commit(&mut index_sink::IndexSink::new(config, store));
    if let Ok(Some(catalog)) = &committed.catalog {
        ui.note_catalog(catalog);
    }
    if let Some(failure) = failed {
        return Err(failure);
    }
    committed.catalog.context(
        "the records are forgotten, but MEMORY.md could not be updated; the next memctl write regenerates it",
    )?;
    let ids: Vec<String> = targets.iter().map(|s| s.id.clone()).collect();
    mdagent::git::commit::after_write(
        config,
        ui,
        store.root(),
        args.commit,
        &mdagent::git::commit::message("forget", &ids),
        &committed.changed,
    );
    Ok(Exit::Ok)
}

/// The records to forget, as the store is before the lock: shown for
/// confirmation, and forgotten again by id under the lock.
fn find_targets(
    config: &Config,
    store: &Store,
    scope: Scope,
    ids: &[String],
) -> anyhow::Result<Vec<Summary>> {
    let view = index_sink::view_for_write(config.cache_dir(), store);
    let mut targets = Vec::new();
    for id in ids {
        if let Some(summary) = view.find(id) {
            targets.push(summary.clone());
            continue;
        }
        if let Some(entry) = store.find(id)
            && let Err(skipped) = store.read_record(&entry.rel_path)
        {
            return Err(Failure::bad_input(format!(
                "{}: {}",
                ui::shown_path(&store.root().join(&skipped.rel_path)),
                skipped.reason
            ))
            .with_hint("nothing was forgotten; memctl forgets only a file it can read as a record")
            .into());
        }
        let hint = match mdstore::tombstone::find_match(&view.tombstones, id, "") {
            Some(t) => format!(
                "it was already forgotten on {}",
                t.forgotten_at.strftime("%Y-%m-%d")
            ),
            None => {
                match mdagent::records::near_id(id, view.summaries.iter().map(|s| s.id.clone())) {
                    Some(near) => format!(
                        "did you mean {}? `memctl list` shows the ids",
                        ui::shown(&near)
                    ),
                    None => "`memctl list` shows the ids".to_string(),
                }
            }
        };
        return Err(Failure::bad_input(format!(
            "no record {id:?} in the {} store {}",
            scope.as_str(),
            store.root().display()
        ))
        .with_hint(hint)
        .into());
    }
    Ok(targets)
}

fn forget_failure(id: &str, err: ForgetError) -> anyhow::Error {
    match err {
        ForgetError::NotFound(id) => Failure::new(
            Kind::Conflict,
            format!("{id} was removed by another process meanwhile"),
        )
        .into(),
        ForgetError::SecretInReason(found) => secret_in_reason(&found),
        e => anyhow::Error::from(e).context(format!("cannot forget {id}")),
    }
}

fn secret_in_reason(found: &[secrets::SecretFinding]) -> anyhow::Error {
    let rules: Vec<&str> = found.iter().map(|f| f.rule).collect();
    Failure::bad_input(format!(
        "--reason looks like it holds a secret (rule {}); it would be kept in the tombstone",
        rules.join(", rule ")
    ))
    .with_hint("say why without the secret; nothing was forgotten")
    .into()
}
