//! `forget`: records removed, each leaving a tombstone that keeps it from
//! coming back (SPEC §6). A person names records and confirms them
//! ([`find_targets`], then [`forget_confirmed`]: the command line); an agent
//! forgets one record only as it read it, and never the user's
//! ([`forget_as_read`]: the MCP server).

mod as_read;

use jiff::Timestamp;
use mdstore::escape::escape_controls;
use mdstore::guard::secrets;
use mdstore::write::ForgetError;
use mdstore::{Store, Summary};

use crate::face::{Tell, warn_catalog_kept, warn_repaired};
use crate::stores::{ScopedStore, WriteTarget};
use crate::write_failure::WriteFailure;
use crate::{Config, Kind, index_sink};

pub use as_read::{AgentForget, ReadAs, forget_as_read};

/// Refuses a `reason` that holds a secret: it would be kept in the
/// tombstone. `what` names the reason as its giver does (`--reason`, an
/// argument). Refused by the transaction too; asked first so that nobody
/// confirms a forget that cannot happen.
pub fn refuse_secret_reason(reason: Option<&str>, what: &str) -> Result<(), WriteFailure> {
    let found = reason.map(secrets::find_secrets).unwrap_or_default();
    if found.is_empty() {
        return Ok(());
    }
    Err(secret_in_reason(&found, what))
}

fn secret_in_reason(found: &[secrets::SecretFinding], what: &str) -> WriteFailure {
    let rules: Vec<&str> = found.iter().map(|f| f.rule).collect();
    WriteFailure::bad_input(format!(
        "{what} looks like it holds a secret (rule {}); it would be kept in the tombstone",
        rules.join(", rule ")
    ))
    .with_hint("say why without the secret; nothing was forgotten")
}

/// The store the command line forgets in (the default scope's): one that
/// exists, since there is nothing to forget, and no reason to create a
/// store to say so.
pub fn target_store(config: &Config, ids: &[String]) -> Result<ScopedStore, WriteFailure> {
    let scope = crate::stores::default_scope(config);
    match crate::stores::write_target(config, scope)? {
        WriteTarget::Existing(scoped) => Ok(scoped),
        WriteTarget::Missing { dir, .. } => Err(WriteFailure::bad_input(format!(
            "no record {:?}: there is no {} store at {}",
            ids.join(" "),
            scope.as_str(),
            dir.display()
        ))),
    }
}

/// The records `ids` name in `scoped`'s store, as the store is before the
/// lock: shown for confirmation, and forgotten again by id under the lock.
/// An id that names no readable record stops it all, saying why.
pub fn find_targets(
    config: &Config,
    scoped: &ScopedStore,
    ids: &[String],
) -> Result<Vec<Summary>, WriteFailure> {
    let store = &scoped.store;
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
            let path = store.root().join(&skipped.rel_path).display().to_string();
            return Err(WriteFailure::bad_input(format!(
                "{}: {}",
                escape_controls(&path),
                skipped.reason
            ))
            .with_hint(
                "nothing was forgotten; memctl forgets only a file it can read as a record",
            ));
        }
        let hint = match mdstore::tombstone::find_match(&view.tombstones, id, "") {
            Some(t) => format!(
                "it was already forgotten on {}",
                t.forgotten_at.strftime("%Y-%m-%d")
            ),
            None => {
                match crate::records::near_id(id, view.summaries.iter().map(|s| s.id.clone())) {
                    Some(near) => format!(
                        "did you mean {}? `memctl list` shows the ids",
                        escape_controls(&near)
                    ),
                    None => "`memctl list` shows the ids".to_string(),
                }
            }
        };
        return Err(WriteFailure::bad_input(format!(
            "no record {id:?} in the {} store {}",
            scoped.scope.as_str(),
            store.root().display()
        ))
        .with_hint(hint));
    }
    Ok(targets)
}

/// Forgets `targets` (from [`find_targets`], confirmed) under `store`'s
/// lock, each saying so through `tell`; `MEMORY.md` and the index follow,
/// even for those forgotten before a failure, and the change is committed
/// to git when asked (`commit`) or configured.
pub fn forget_confirmed(
    config: &Config,
    tell: &dyn Tell,
    store: &Store,
    targets: &[Summary],
    reason: Option<&str>,
    commit: bool,
) -> Result<(), WriteFailure> {
    let mut txn = index_sink::begin(config, store, config.lock_timeout()?)?;
    warn_repaired(tell, store.root(), txn.recovered());
    let now = Timestamp::now();
    let mut failed = None;
    let forgot = |id: &str| {
        tell.note(&format!(
            "Forgot {id}; a tombstone keeps it from coming back."
        ));
    };
    for summary in targets {
        // An earlier forget of it, interrupted half-way, was just finished.
        if txn.recovered().changed.contains(&summary.rel_path)
            && txn.view().find(&summary.id).is_none()
        {
            forgot(&summary.id);
            continue;
        }
        match txn.forget(&summary.id, reason.map(str::to_string), now) {
            Ok(_) => forgot(&summary.id),
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
        warn_catalog_kept(tell, catalog);
    }
    if let Some(failure) = failed {
        return Err(failure);
    }
    if let Err(e) = committed.catalog {
        return Err(WriteFailure::io(
            "the records are forgotten, but MEMORY.md could not be updated; the next memctl write regenerates it",
            e,
        ));
    }
    let ids: Vec<String> = targets.iter().map(|s| s.id.clone()).collect();
    crate::git::commit::after_write(
        config,
        tell,
        store.root(),
        commit,
        &crate::git::commit::message("forget", &ids),
        &committed.changed,
    );
    Ok(())
}

fn forget_failure(id: &str, err: ForgetError) -> WriteFailure {
    match err {
        ForgetError::NotFound(id) => WriteFailure::stopped(
            Kind::Conflict,
            format!("{id} was removed by another process meanwhile"),
        ),
        ForgetError::SecretInReason(found) => secret_in_reason(&found, "--reason"),
        source => WriteFailure::Forget {
            id: id.to_string(),
            source,
        },
    }
}
