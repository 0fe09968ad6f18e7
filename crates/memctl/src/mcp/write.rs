//! The tools that write, `remember` and `forget`: each call is one
//! `mdstore::txn::Transaction`, planned under the store's lock and never
//! confirmed by anyone, so every guard that refuses in a `--yes` run refuses
//! here, and nothing can override a tombstone or a more trusted record.

use jiff::Timestamp;
use mdagent::Config;
use mdagent::index_sink;
use mdagent::remember::{SECRET_HINT, describe_plan_error, refusal_message};
use mdagent::stores::{self, Scope, ScopedStore, WriteTarget};
use mdstore::guard::secrets::{self, secret_note};
use mdstore::hash::read_hash;
use mdstore::txn::{self, WriteError};
use mdstore::write::{Candidate, ForgetError, Operation, Refusal, WriteOptions};
use mdstore::{Source, Store};

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
    let options = WriteOptions {
        force: false,
        expect_revision,
        refuse_temporary: true,
        default_source: Source::Inferred,
        now: mdstore::clock::now(),
    };
    let store = &scoped.store;
    let mut txn = index_sink::begin(config, store, lock_wait(config)?).map_err(|e| busy(&e))?;
    let written = txn.write(&candidate, &options, None);
    let committed = txn.commit(&mut index_sink::IndexSink::new(config, store));
    let (mut answer, is_error) = match written {
        Ok(step) => classification(&candidate, scope, store, &step),
        Err(WriteError::Plan(e)) => refused(
            hidden_id(
                &candidate,
                &mdstore::escape::for_message(&candidate.name, 60),
            ),
            scope,
            hide_name(&candidate, &describe_plan_error(&e, true)),
            None,
        ),
        Err(e @ WriteError::Io { .. }) => {
            return Err(ToolError::new(format!("nothing was written: {e}")));
        }
    };
    if !committed.changed.is_empty() {
        note_catalog(&mut answer.outcome, &committed);
        let verb = if answer.operation == RememberOperation::Add {
            "add"
        } else {
            "update"
        };
        let message = format!("remember: {verb} {}", answer.id);
        commit_if_configured(config, ui, store, &message, &committed);
    }
    Ok((answer, is_error))
}

/// An agent's write is committed as a person's is when the store's
/// `.memctl.toml` asks for it (`[git] commit = true`); notes go to
/// standard error, which is not the protocol's channel.
fn commit_if_configured(
    config: &Config,
    ui: &Ui,
    store: &Store,
    message: &str,
    committed: &txn::Committed,
) {
    let changed = &committed.changed;
    mdagent::git::commit::after_write(config, ui, store.root(), false, message, changed);
}

/// ADD, UPDATE, NOOP or REFUSED, as the write under the lock decided.
fn classification(
    candidate: &Candidate,
    scope: Scope,
    store: &Store,
    step: &txn::Step,
) -> Answer<RememberAnswer> {
    let plan = &step.plan;
    let id = hidden_id(candidate, &plan.id);
    let source = candidate.source.unwrap_or(Source::Inferred).as_str();
    match &step.outcome {
        txn::Outcome::Saved { revision } => {
            let operation = match plan.operation {
                Operation::Update { .. } => RememberOperation::Update,
                _ => RememberOperation::Add,
            };
            let answer = RememberAnswer {
                path: Some(store.root().join(&plan.rel_path)),
                revision: Some(*revision),
                source: Some(source),
                warnings: plan
                    .warnings
                    .iter()
                    .map(|w| hide_name(candidate, w))
                    .collect(),
                ..RememberAnswer::new(operation, id, scope, Outcome::default())
            };
            (answer, false)
        }
        txn::Outcome::Noop { existing } => {
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
        txn::Outcome::Refused(refusal) => {
            let (reason, hint) = refusal_reason(refusal, &id);
            refused(id, scope, reason, Some(hint))
        }
        // Only a plan shown to a person can conflict; none is shown here.
        txn::Outcome::Conflict => {
            let reason = format!("{id} changed while it was being written; nothing was written");
            refused(
                id,
                scope,
                reason,
                Some("read it again and retry".to_string()),
            )
        }
    }
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
    if let Some(reason) = &reason {
        let found = secrets::find_secrets(reason);
        if !found.is_empty() {
            let rules: Vec<&str> = found.iter().map(|f| f.rule).collect();
            return Err(ToolError::new(format!(
                "argument \"reason\" looks like it holds a secret (rule {}); it would be kept in the tombstone",
                rules.join(", rule ")
            ))
            .with_hint("say why without the secret; nothing was forgotten"));
        }
    }
    let scope = params
        .scope
        .map_or_else(|| stores::default_scope(config), |s| s.0);
    let scoped = existing_store(config, scope)?;
    let store = &scoped.store;
    let mut txn = index_sink::begin(config, store, lock_wait(config)?).map_err(|e| busy(&e))?;
    // Looked up and read under the lock: what is compared is what is
    // forgotten.
    let Some(summary) = txn.view().find(&id).cloned() else {
        return Err(ToolError::new(format!(
            "no record {} in the {} store",
            shown_value(&id),
            scope.as_str()
        ))
        .with_hint("the list and search tools give the ids"));
    };
    let record = store.read_record(&summary.rel_path).map_err(|skipped| {
        ToolError::new(format!(
            "{} cannot be read as a record ({}); nothing was forgotten",
            summary.id, skipped.reason
        ))
    })?;
    let read = ReadAs {
        revision: params.revision.0,
        read_hash: &params.read_hash.0,
    };
    if let Some((reason, hint)) = not_to_forget(&record, &read) {
        let answer = ForgetAnswer {
            operation: ForgetOperation::Refused,
            id: summary.id,
            scope: scope.as_str(),
            revision: None,
            outcome: Outcome::because(reason, Some(hint)),
        };
        return Ok((answer, true));
    }
    let forgotten = txn.forget(&summary.id, reason, Timestamp::now());
    let committed = txn.commit(&mut index_sink::IndexSink::new(config, store));
    match forgotten {
        Ok(_) => {}
        Err(ForgetError::NotFound(id)) => {
            return Err(ToolError::new(format!("{id} was removed meanwhile")));
        }
        Err(e) => return Err(ToolError::new(format!("cannot forget {}: {e}", summary.id))),
    }
    let mut answer = ForgetAnswer {
        operation: ForgetOperation::Forgotten,
        id: summary.id,
        scope: scope.as_str(),
        revision: Some(read.revision),
        outcome: Outcome::default(),
    };
    note_catalog(&mut answer.outcome, &committed);
    let message = format!("forget: {}", answer.id);
    commit_if_configured(config, ui, store, &message, &committed);
    Ok((answer, false))
}

/// What the agent says it read of the record it would forget.
struct ReadAs<'a> {
    revision: u64,
    read_hash: &'a str,
}

/// Why the agent may not forget `record` (the reason, and what to do
/// instead), or `None`. The user's records are the user's (a file without
/// `source` is one, SPEC §2); any other is forgotten only as it was read:
/// at that revision, and still saying what it said then, since a hand edit
/// keeps the revision.
fn not_to_forget(record: &mdstore::Record, read: &ReadAs<'_>) -> Option<(String, String)> {
    let id = &record.id;
    if record.source() == Source::User {
        return Some((
            format!(
                "{id} is the user's record (source: user): an agent may not forget it; nothing was forgotten"
            ),
            format!(
                "ask the user: tell them why it no longer holds; they can forget it with `memctl forget {id}`"
            ),
        ));
    }
    let actual = record.meta.revision.unwrap_or(1);
    if actual != read.revision {
        return Some((
            format!(
                "{id} is at revision {actual}, not {}; nothing was forgotten",
                read.revision
            ),
            "show it again, read it, and pass the revision and read_hash it has now".to_string(),
        ));
    }
    if read_hash(record) != read.read_hash {
        return Some((
            format!(
                "{id} changed since you read it (edited by hand, its revision kept); nothing was forgotten"
            ),
            "show it again, read it, and pass the read_hash it has now".to_string(),
        ));
    }
    None
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
fn note_catalog(outcome: &mut Outcome, committed: &txn::Committed) {
    match &committed.catalog {
        Ok(Some(catalog)) => {
            if let Some(kept) = &catalog.preserved {
                outcome.note = Some(format!(
                    "MEMORY.md was not written by memctl: its text is kept in {}; MEMORY.md now lists the store's records",
                    kept.display()
                ));
            }
        }
        Ok(None) => {}
        Err(e) => {
            outcome.warning = Some(format!(
                "the change is saved, but MEMORY.md could not be updated ({e}); the next write regenerates it"
            ));
        }
    }
}

fn busy(e: &mdstore::lock::LockError) -> ToolError {
    ToolError::new(format!("{e}; nothing was written"))
        .with_hint("another memctl is writing to this store; try again in a moment")
}

/// How long to wait for the store's lock; a bad `MEMCTL_LOCK_TIMEOUT_MS`
/// writes nothing.
fn lock_wait(config: &Config) -> Result<std::time::Duration, ToolError> {
    config.lock_timeout().map_err(|e| {
        ToolError::new(format!("{e}; nothing was written")).with_hint(e.hint().unwrap_or_default())
    })
}

/// The id to show: the plan's, unless the name holds a secret.
fn hidden_id(candidate: &Candidate, id: &str) -> String {
    secret_note(&candidate.name).unwrap_or_else(|| id.to_string())
}

/// `text` with a name that holds a secret replaced by a note.
fn hide_name(candidate: &Candidate, text: &str) -> String {
    match secret_note(&candidate.name) {
        Some(note) if !candidate.name.is_empty() => text.replace(&candidate.name, &note),
        _ => text.to_string(),
    }
}
