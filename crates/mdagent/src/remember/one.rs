//! One candidate an agent gives (the MCP server's `remember` tool): one
//! transaction, planned under the store's lock and confirmed by nobody, so
//! every guard that refuses in a `--yes` run refuses here, and nothing can
//! override a tombstone or a more trusted record.

use std::path::PathBuf;

use mdstore::guard::secrets::secret_note;
use mdstore::txn::{Committed, WriteError};
use mdstore::write::{Candidate, Operation, Plan, WriteOptions};
use mdstore::{Source, Store};

use super::outcome::Outcome;
use super::say::describe_plan_error;
use crate::face::Tell;
use crate::write_failure::WriteFailure;
use crate::{Config, index_sink};

/// What became of `MEMORY.md` when a write changed a store, when it is news.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CatalogNews {
    /// Where the text of a `MEMORY.md` memctl did not write was kept
    /// (SPEC §3: never lost).
    pub kept: Option<PathBuf>,
    /// Why it could not be regenerated (the next write does it).
    pub failed: Option<String>,
}

impl CatalogNews {
    pub(crate) fn of(committed: &Committed) -> CatalogNews {
        match &committed.catalog {
            Ok(catalog) => CatalogNews {
                kept: catalog.as_ref().and_then(|c| c.preserved.clone()),
                failed: None,
            },
            Err(e) => CatalogNews {
                kept: None,
                failed: Some(e.to_string()),
            },
        }
    }
}

/// What one unconfirmed write came to.
#[derive(Clone, Debug)]
pub struct Written {
    /// The plan made under the lock; `None` when the candidate could not
    /// be planned (its outcome says why).
    pub plan: Option<Plan>,
    pub outcome: Outcome,
    /// Set when the store changed.
    pub catalog: Option<CatalogNews>,
}

/// Writes `candidate` to `store` under its lock, as an agent's: `inferred`
/// unless it says otherwise, never temporary, never forced; `MEMORY.md` and
/// the index follow, and the change is committed to git when the store's
/// `.memctl.toml` asks for it (what git says goes to `tell`).
pub fn write_unconfirmed(
    config: &Config,
    tell: &dyn Tell,
    store: &Store,
    candidate: &Candidate,
    expect_revision: Option<u64>,
) -> Result<Written, WriteFailure> {
    let options = WriteOptions {
        force: false,
        expect_revision,
        refuse_temporary: true,
        default_source: Source::Inferred,
        now: mdstore::clock::now(),
    };
    let mut txn = index_sink::begin(config, store, config.lock_timeout()?)?;
    let written = txn.write(candidate, &options, None);
    let committed = txn.commit(&mut index_sink::IndexSink::new(config, store));
    let (plan, outcome) = match written {
        Ok(step) => (Some(step.plan.clone()), Outcome::of_step(store, &step)),
        Err(WriteError::Plan(e)) => (None, Outcome::BadInput(describe_plan_error(&e, true))),
        Err(e @ WriteError::Io { .. }) => (None, Outcome::Failed(e.to_string())),
    };
    let catalog = (!committed.changed.is_empty()).then(|| {
        let added = matches!(
            (&outcome, plan.as_ref().map(|p| &p.operation)),
            (Outcome::Saved { .. }, Some(Operation::Add))
        );
        let id = secret_note(&candidate.name).unwrap_or_else(|| {
            plan.as_ref().map_or_else(
                || mdstore::escape::for_message(&candidate.name, 60),
                |p| p.id.clone(),
            )
        });
        let verb = if added { "add" } else { "update" };
        let message = format!("remember: {verb} {id}");
        crate::git::commit::after_write(
            config,
            tell,
            store.root(),
            false,
            &message,
            &committed.changed,
        );
        CatalogNews::of(&committed)
    });
    Ok(Written {
        plan,
        outcome,
        catalog,
    })
}
