//! The tools that write, `remember` and `forget`: each call is one of
//! `mdagent`'s unconfirmed writes (`remember::write_unconfirmed`,
//! `forget::forget_as_read`), so every guard that refuses in a `--yes` run
//! refuses here, and nothing can override a tombstone or a more trusted
//! record. This file turns their outcomes into the tools' answers.

use mdagent::Config;
use mdagent::forget::{self, AgentForget, ReadAs};
use mdagent::remember::{
    self, CatalogNews, Outcome as Written, SECRET_HINT, hide_secret_name, refusal_message,
};
use mdagent::stores::{self, Scope, ScopedStore, WriteTarget};
use mdstore::Source;
use mdstore::guard::secrets::secret_note;
use mdstore::write::{Candidate, Operation, Refusal};

use super::answers::{ForgetAnswer, ForgetOperation, Outcome, RememberAnswer, RememberOperation};
use super::args::{ToolError, shown_value};
use super::params::{ForgetParams, RememberParams};
use crate::ui::Ui;

/// A write's answer, and whether it reports a failure (a refusal).
pub type Answer<A> = (A, bool);

pub fn remember(
    config: &Config,
    ui: &Ui,
    params: RememberParams,
) -> Result<Answer<RememberAnswer>, ToolError> {
    let expect_revision = params.expect_revision.map(|r| r.0);
    let candidate = Candidate {
        name: params.name.0,
        record_type: params.record_type.map(|t| t.0),
        description: params.description.map(|t| t.0),
        body: params.body.map(|t| t.0),
        source: params.source.map(|s| s.0),
        expires: params.expires.map(|t| t.0),
        tags: params.tags.map(|t| t.0).unwrap_or_default(),
        scope: None,
    };
    let scope = params
        .scope
        .map_or_else(|| stores::default_scope(config), |s| s.0);
    let scoped = existing_store(config, scope)?;
    let store = &scoped.store;
    let written = remember::write_unconfirmed(config, ui, store, &candidate, expect_revision)
        .map_err(ToolError::from_error)?;
    let id = hidden_id(
        &candidate,
        &written.plan.as_ref().map_or_else(
            || mdstore::escape::for_message(&candidate.name, 60),
            |p| p.id.clone(),
        ),
    );
    let (mut answer, is_error) = answer_of(&written, &candidate, store, id, scope)?;
    if let Some(catalog) = &written.catalog {
        note_catalog(&mut answer.outcome, catalog);
    }
    Ok((answer, is_error))
}

/// The tool's answer to one write's outcome, and whether it is a refusal.
fn answer_of(
    written: &remember::Written,
    candidate: &Candidate,
    store: &mdstore::Store,
    id: String,
    scope: Scope,
) -> Result<Answer<RememberAnswer>, ToolError> {
    let answer = match (&written.outcome, &written.plan) {
        (Written::Saved { revision }, Some(plan)) => {
            let operation = match plan.operation {
                Operation::Update { .. } => RememberOperation::Update,
                _ => RememberOperation::Add,
            };
            let answer = RememberAnswer {
                path: Some(store.root().join(&plan.rel_path)),
                revision: Some(*revision),
                source: Some(candidate.source.unwrap_or(Source::Inferred).as_str()),
                warnings: plan
                    .warnings
                    .iter()
                    .map(|w| hide_secret_name(&candidate.name, w))
                    .collect(),
                ..RememberAnswer::new(operation, id, scope, Outcome::default())
            };
            (answer, false)
        }
        (Written::Noop { existing, .. }, _) => {
            let reason =
                format!("the same content is already stored as {existing}; nothing was written");
            let answer = RememberAnswer {
                existing: Some(existing.clone()),
                ..RememberAnswer::new(
                    RememberOperation::Noop,
                    id,
                    scope,
                    Outcome::because(reason, None),
                )
            };
            (answer, false)
        }
        (Written::Refused(refusal), _) => {
            let (reason, hint) = refusal_reason(refusal, &id);
            refused(id, scope, reason, Some(hint))
        }
        (Written::BadInput(message), _) => {
            refused(id, scope, hide_secret_name(&candidate.name, message), None)
        }
        // Only a plan shown to a person can conflict; none is shown here.
        (Written::Conflict, _) => {
            let reason = format!("{id} changed while it was being written; nothing was written");
            refused(
                id,
                scope,
                reason,
                Some("read it again and retry".to_string()),
            )
        }
        (Written::Failed(e), _) => {
            return Err(ToolError::new(format!("nothing was written: {e}")));
        }
        // The single write has no one to confirm or drop a candidate and
        // no dry run, and a save always has its plan: none of these can
        // happen here. No candidate text is quoted if one ever does.
        (
            Written::Saved { .. } | Written::NotConfirmed | Written::DryRun | Written::Dropped(_),
            _,
        ) => {
            return Err(ToolError::new(
                "nothing was written: the write ended in a way the MCP server does not expect"
                    .to_string(),
            ));
        }
    };
    Ok(answer)
}

fn refused(
    id: String,
    scope: Scope,
    reason: String,
    hint: Option<String>,
) -> Answer<RememberAnswer> {
    let outcome = Outcome::because(reason, hint);
    let answer = RememberAnswer::new(RememberOperation::Refused, id, scope, outcome);
    (answer, true)
}

/// Why a guard refused, and what the agent can do: never "pass --force",
/// which the server does not take.
fn refusal_reason(refusal: &Refusal, id: &str) -> (String, String) {
    let hint = match refusal {
        Refusal::Secret(_) => SECRET_HINT,
        Refusal::Temporary(_) => "say it without the temporary part, or do not remember it",
        Refusal::Tombstone(_) => "only the user can bring it back, with `memctl remember --force`",
        Refusal::LowerTrust { .. } => {
            "tell the user what you would change; they can edit it with `memctl edit`"
        }
        Refusal::RevisionMismatch { .. } => "read it again with the show tool and retry",
    };
    (refusal_message(refusal, id), hint.to_string())
}

pub fn forget(
    config: &Config,
    ui: &Ui,
    params: ForgetParams,
) -> Result<Answer<ForgetAnswer>, ToolError> {
    let id = params.id.0;
    let reason = params.reason.map(|r| r.0);
    forget::refuse_secret_reason(reason.as_deref(), "argument \"reason\"")
        .map_err(ToolError::from_error)?;
    let scope = params
        .scope
        .map_or_else(|| stores::default_scope(config), |s| s.0);
    let scoped = existing_store(config, scope)?;
    let read = ReadAs {
        revision: params.revision.0,
        read_hash: params.read_hash.0,
    };
    let forgot = forget::forget_as_read(config, ui, &scoped.store, &id, reason, &read)
        .map_err(ToolError::from_error)?;
    let answer = |operation, id, revision, outcome| ForgetAnswer {
        operation,
        id,
        scope: scope.as_str(),
        revision,
        outcome,
    };
    match forgot {
        AgentForget::Forgotten { id, catalog } => {
            let mut forgotten = answer(
                ForgetOperation::Forgotten,
                id,
                Some(read.revision),
                Outcome::default(),
            );
            note_catalog(&mut forgotten.outcome, &catalog);
            Ok((forgotten, false))
        }
        AgentForget::NotToForget { id, reason, hint } => {
            let outcome = Outcome::because(reason, Some(hint));
            Ok((answer(ForgetOperation::Refused, id, None, outcome), true))
        }
        AgentForget::NoRecord => Err(ToolError::new(format!(
            "no record {} in the {} store",
            shown_value(&id),
            scope.as_str()
        ))
        .with_hint("the list and search tools give the ids")),
        AgentForget::Unreadable { id, reason } => Err(ToolError::new(format!(
            "{id} cannot be read as a record ({reason}); nothing was forgotten"
        ))),
        AgentForget::Failed {
            error: mdstore::write::ForgetError::NotFound(id),
            ..
        } => Err(ToolError::new(format!("{id} was removed meanwhile"))),
        AgentForget::Failed { id, error } => {
            Err(ToolError::new(format!("cannot forget {id}: {error}")))
        }
    }
}

/// An existing store: the server never creates one, since nobody is there
/// to confirm it (SPEC §9 creates a workspace store only after asking).
fn existing_store(config: &Config, scope: Scope) -> Result<ScopedStore, ToolError> {
    match stores::write_target(config, scope).map_err(ToolError::from_error)? {
        WriteTarget::Existing(scoped) => Ok(scoped),
        WriteTarget::Missing { dir, .. } => Err(ToolError::new(format!(
            "there is no {} store at {}; the MCP server does not create one",
            scope.as_str(),
            dir.display()
        ))
        .with_hint(match scope {
            Scope::Workspace => "ask the user to run `memctl init` in the project",
            Scope::Global => "ask the user to run `memctl init --global`",
        })),
    }
}

/// What became of `MEMORY.md`, when it is news: a hand-made one kept
/// beside it (SPEC §3: never lost), or one that could not be regenerated.
fn note_catalog(outcome: &mut Outcome, catalog: &CatalogNews) {
    if let Some(kept) = &catalog.kept {
        outcome.note = Some(format!(
            "MEMORY.md was not written by memctl: its text is kept in {}; MEMORY.md now lists the store's records",
            kept.display()
        ));
    }
    if let Some(e) = &catalog.failed {
        outcome.warning = Some(format!(
            "the change is saved, but MEMORY.md could not be updated ({e}); the next write regenerates it"
        ));
    }
}

/// The id to show: the plan's, unless the name holds a secret.
fn hidden_id(candidate: &Candidate, id: &str) -> String {
    secret_note(&candidate.name).unwrap_or_else(|| id.to_string())
}
