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
use mdstore::txn::{self, WriteError};
use mdstore::write::{
    Candidate, ForgetError, Operation, Refusal, WriteOptions, candidate_from_json,
};
use mdstore::{Source, Store};
use serde_json::{Value, json};

use super::args::{Args, MAX_BODY_BYTES, MAX_TEXT_BYTES, ToolError, check_size};
use crate::ui::Ui;

pub const REMEMBER_FIELDS: &[&str] = &[
    "name",
    "type",
    "description",
    "body",
    "scope",
    "source",
    "expires",
    "tags",
    "expect_revision",
];
pub const FORGET_FIELDS: &[&str] = &["id", "revision", "reason", "scope"];

/// The most tags one record may be given here.
const MAX_TAGS: usize = 64;

/// A tool's answer: the JSON, and whether it reports a failure (a refusal).
pub type Answer = (Value, bool);

pub fn remember(config: &Config, ui: &Ui, args: &Args) -> Result<Answer, ToolError> {
    check_sizes(args)?;
    let expect_revision = args.integer("expect_revision", 1, u64::MAX)?;
    let mut fields = args.map().clone();
    fields.remove("expect_revision");
    let candidate = candidate_from_json(&Value::Object(fields))
        .map_err(|e| ToolError::new(format!("invalid candidate: {e}")))?;
    if candidate.source == Some(Source::User) {
        return Err(ToolError::new(
            "argument \"source\": an agent may not write source user; use verified (checked against the code) or leave it out (inferred)",
        )
        .with_hint("a fact the user stated is recorded by the user with `memctl remember`"));
    }
    let scope = scope_of(config, candidate.scope.as_deref())?;
    let scoped = existing_store(config, scope)?;
    let options = WriteOptions {
        force: false,
        expect_revision,
        refuse_temporary: true,
        default_source: Source::Inferred,
        now: mdstore::clock::now(),
    };
    let store = &scoped.store;
    let mut txn = index_sink::begin(store).map_err(|e| busy(&e))?;
    let written = txn.write(&candidate, &options, None);
    let committed = txn.commit(&mut index_sink::IndexSink(store));
    let mut answer = match written {
        Ok(step) => classification(&candidate, scope, store, &step),
        Err(WriteError::Plan(e)) => refused(
            &hidden_id(
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
        note_catalog(&mut answer.0, &committed);
        let verb = if answer.0["operation"] == "ADD" {
            "add"
        } else {
            "update"
        };
        let id = answer.0["id"].as_str().unwrap_or_default().to_string();
        commit_if_configured(ui, store, &format!("remember: {verb} {id}"), &committed);
    }
    Ok(answer)
}

/// An agent's write is committed as a person's is when the store's
/// `.memctl.toml` asks for it (`[git] commit = true`); notes go to
/// standard error, which is not the protocol's channel.
fn commit_if_configured(ui: &Ui, store: &Store, message: &str, committed: &txn::Committed) {
    crate::git::commit::after_write(ui, store.root(), false, message, &committed.changed);
}

/// Refuses a value too large to read before anything reads it: a 10 MB
/// body is one short error, not a scan.
fn check_sizes(args: &Args) -> Result<(), ToolError> {
    for (field, value) in args.map() {
        let max = if field == "body" {
            MAX_BODY_BYTES
        } else {
            MAX_TEXT_BYTES
        };
        match value {
            Value::String(text) => check_size(field, text, max)?,
            Value::Array(items) if items.len() > MAX_TAGS => {
                return Err(ToolError::new(format!(
                    "argument {field:?} has {} items; at most {MAX_TAGS} are accepted",
                    items.len()
                )));
            }
            Value::Array(items) => {
                for item in items.iter().filter_map(Value::as_str) {
                    check_size(field, item, MAX_TEXT_BYTES)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// ADD, UPDATE, NOOP or REFUSED, as the write under the lock decided.
fn classification(candidate: &Candidate, scope: Scope, store: &Store, step: &txn::Step) -> Answer {
    let plan = &step.plan;
    let id = hidden_id(candidate, &plan.id);
    let source = candidate.source.unwrap_or(Source::Inferred).as_str();
    match &step.outcome {
        txn::Outcome::Saved { revision } => {
            let operation = match plan.operation {
                Operation::Update { .. } => "UPDATE",
                _ => "ADD",
            };
            let value = json!({
                "operation": operation,
                "id": id,
                "scope": scope.as_str(),
                "path": store.root().join(&plan.rel_path),
                "revision": revision,
                "source": source,
                "warnings": plan.warnings.iter().map(|w| hide_name(candidate, w)).collect::<Vec<_>>(),
            });
            (value, false)
        }
        txn::Outcome::Noop { existing } => {
            let value = json!({
                "operation": "NOOP",
                "id": id,
                "scope": scope.as_str(),
                "existing": existing,
                "reason": format!("the same content is already stored as {existing}; nothing was written"),
            });
            (value, false)
        }
        txn::Outcome::Refused(refusal) => {
            let (reason, hint) = refusal_reason(refusal, &id);
            refused(&id, scope, reason, Some(hint))
        }
        // Only a plan shown to a person can conflict; none is shown here.
        txn::Outcome::Conflict => refused(
            &id,
            scope,
            format!("{id} changed while it was being written; nothing was written"),
            Some("read it again and retry".to_string()),
        ),
    }
}

fn refused(id: &str, scope: Scope, reason: String, hint: Option<String>) -> Answer {
    let value = json!({
        "operation": "REFUSED",
        "id": id,
        "scope": scope.as_str(),
        "reason": reason,
        "hint": hint,
    });
    (value, true)
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

pub fn forget(config: &Config, ui: &Ui, args: &Args) -> Result<Answer, ToolError> {
    let id = args.required_text("id", MAX_TEXT_BYTES)?;
    let revision = args
        .integer("revision", 1, u64::MAX)?
        .ok_or_else(|| {
            ToolError::new("argument \"revision\" is required").with_hint(
                "show the record first and pass its revision: a record is forgotten only by one who read it",
            )
        })?;
    let reason = args.text("reason", MAX_TEXT_BYTES, false)?;
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
    let scope = scope_of(
        config,
        args.choice("scope", &["workspace", "global"])?.as_deref(),
    )?;
    let scoped = existing_store(config, scope)?;
    let store = &scoped.store;
    let mut txn = index_sink::begin(store).map_err(|e| busy(&e))?;
    // Looked up under the lock: the revision compared is the one forgotten.
    let Some(summary) = txn.view().find(&id).cloned() else {
        return Err(ToolError::new(format!(
            "no record {} in the {} store",
            super::args::shown_value(&id),
            scope.as_str()
        ))
        .with_hint("the list and search tools give the ids"));
    };
    let actual = summary.meta.revision.unwrap_or(1);
    if actual != revision {
        return Ok(refused(
            &summary.id,
            scope,
            format!(
                "{} is at revision {actual}, not {revision}; nothing was forgotten",
                summary.id
            ),
            Some("show it again, read it, and pass the revision it has now".to_string()),
        ));
    }
    let forgotten = txn.forget(&summary.id, reason, Timestamp::now());
    let committed = txn.commit(&mut index_sink::IndexSink(store));
    match forgotten {
        Ok(_) => {}
        Err(ForgetError::NotFound(id)) => {
            return Err(ToolError::new(format!("{id} was removed meanwhile")));
        }
        Err(e) => return Err(ToolError::new(format!("cannot forget {}: {e}", summary.id))),
    }
    let mut value = json!({
        "operation": "FORGOTTEN",
        "id": summary.id,
        "scope": scope.as_str(),
        "revision": actual,
    });
    note_catalog(&mut value, &committed);
    commit_if_configured(ui, store, &format!("forget: {}", summary.id), &committed);
    Ok((value, false))
}

/// The store a write goes to: the candidate's `scope`, else the server's
/// (`memctl --global mcp` writes to the global store).
fn scope_of(config: &Config, scope: Option<&str>) -> Result<Scope, ToolError> {
    match scope {
        None => Ok(stores::default_scope(config)),
        Some("workspace") => Ok(Scope::Workspace),
        Some("global") => Ok(Scope::Global),
        Some(other) => Err(ToolError::new(format!(
            "argument \"scope\": unknown value {}: expected workspace or global",
            super::args::shown_value(other)
        ))),
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
fn note_catalog(answer: &mut Value, committed: &txn::Committed) {
    match &committed.catalog {
        Ok(Some(catalog)) => {
            if let Some(kept) = &catalog.preserved {
                answer["note"] = json!(format!(
                    "MEMORY.md was not written by memctl: its text is kept in {}; MEMORY.md now lists the store's records",
                    kept.display()
                ));
            }
        }
        Ok(None) => {}
        Err(e) => {
            answer["warning"] = json!(format!(
                "the change is saved, but MEMORY.md could not be updated ({e}); the next write regenerates it"
            ));
        }
    }
}

fn busy(e: &mdstore::lock::LockError) -> ToolError {
    let hint = match e {
        mdstore::lock::LockError::Env(env) => env.hint(),
        _ => "another memctl is writing to this store; try again in a moment".to_string(),
    };
    ToolError::new(format!("{e}; nothing was written")).with_hint(hint)
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
