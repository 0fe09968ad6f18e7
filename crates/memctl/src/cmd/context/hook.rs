//! `memctl context --hook claude-code`: Claude Code's `SessionStart` and
//! `UserPromptSubmit` hooks. The event comes as JSON on standard input; the
//! answer is the JSON those hooks document
//! (`{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`, see
//! docs/agents.md and docs/CONTEXT.md for the source). A hook runs before
//! every prompt, so it must never stand in the user's way: any failure is
//! one line on standard error, nothing on standard output, and exit 0. A
//! cache folder that cannot be written still gets an answer: the search
//! falls back to a temporary index, and session state that cannot be kept
//! only means a record may be shown again (a warning says so).

use std::io::Read as _;

use anyhow::{Context as _, bail};
use serde_json::{Value, json};

use mdagent::Config;
use mdagent::context::session::Session;
use mdagent::context::{self, Ask, Context, DEFAULT_BUDGET, render};

use crate::cli::ContextArgs;
use crate::failure::Exit;
use crate::ui;

/// An event larger than this is refused (a prompt with a pasted file is
/// far smaller; more is not an event Claude Code sends).
const MAX_EVENT_BYTES: u64 = 8 * 1024 * 1024;

/// Runs the hook; whatever happens, exit 0.
pub fn run(config: &Config, args: &ContextArgs) -> Exit {
    match answer(config, args) {
        Ok(Some(out)) => {
            if let Err(e) = ui::print(&out) {
                eprintln!("memctl context --hook claude-code: cannot write the answer: {e}");
            }
        }
        Ok(None) => {}
        Err(e) => {
            eprintln!("memctl context --hook claude-code: {e:#}; nothing was added to the prompt")
        }
    }
    Exit::Ok
}

/// The hook's standard output, or `None` when there is nothing to add.
fn answer(config: &Config, args: &ContextArgs) -> anyhow::Result<Option<String>> {
    let event = read_event()?;
    let name = field(&event, "hook_event_name")?;
    if mdagent::stores::named_workspace_dir(config).is_none()
        && let Some(cwd) = event.get("cwd").and_then(Value::as_str)
    {
        std::env::set_current_dir(cwd)
            .with_context(|| format!("cannot enter the event's cwd {cwd:?}"))?;
    }
    let cache = mdindex::cache_dir_from_env();
    let context = match name {
        "SessionStart" => {
            // A cleared or compacted conversation no longer holds what was
            // shown before.
            if matches!(
                event.get("source").and_then(Value::as_str),
                Some("clear" | "compact")
            ) && let Some(id) = event.get("session_id").and_then(Value::as_str)
            {
                save_or_warn(&Session::empty(&cache, id));
            }
            let ask = Ask {
                session_start: true,
                max: args.max,
                ..Ask::default()
            };
            context::gather(config, &ask)?
        }
        "UserPromptSubmit" => {
            let prompt = field(&event, "prompt")?;
            let id = field(&event, "session_id")?;
            // Unreadable state only means records may be shown again.
            let (mut session, readable) = match Session::load(&cache, id) {
                Ok(session) => (session, true),
                Err(e) => {
                    warn_session_state("not read", e);
                    (Session::empty(&cache, id), false)
                }
            };
            let ask = Ask {
                prompt: Some(prompt),
                session_start: false,
                max: args.max,
                already_shown: session.keys().map(str::to_string).collect(),
            };
            let context = fit(context::gather(config, &ask)?, args, name);
            for warning in &context.warnings {
                eprintln!(
                    "memctl context --hook claude-code: warning: {}",
                    ui::shown(warning)
                );
            }
            for record in &context.records {
                session.mark_shown(context::key(record.scope, &record.id));
            }
            if readable && !context.records.is_empty() {
                save_or_warn(&session);
            }
            return output(&context, name);
        }
        other => bail!("unsupported hook event {other:?}: give SessionStart or UserPromptSubmit"),
    };
    output(&fit(context, args, name), name)
}

/// Saves the session's state; a cache folder that cannot be written (read
/// only, full) costs the once-a-session rule, never the answer.
fn save_or_warn(session: &Session) {
    if let Err(e) = session.save() {
        warn_session_state("not saved", e);
    }
}

fn warn_session_state(what: &str, e: context::session::SessionError) {
    let e = anyhow::Error::from(e);
    eprintln!(
        "memctl context --hook claude-code: warning: session state {what} ({e:#}); records may repeat in this session"
    );
}

fn fit(context: Context, args: &ContextArgs, name: &str) -> Context {
    let budget = args.budget.unwrap_or(DEFAULT_BUDGET);
    context::fit::fit(context, budget, &|c| {
        output(c, name).map_or(usize::MAX, |o| o.map_or(0, |t| t.chars().count()))
    })
}

/// The JSON Claude Code reads; `None` when there is nothing to add.
fn output(context: &Context, name: &str) -> anyhow::Result<Option<String>> {
    if context.is_empty() {
        return Ok(None);
    }
    let answer = json!({
        "hookSpecificOutput": {
            "hookEventName": name,
            "additionalContext": render::readable(context),
        }
    });
    Ok(Some(
        mdstore::escape::escape_json_controls(&answer.to_string()) + "\n",
    ))
}

/// The event on standard input: one JSON object of at most
/// [`MAX_EVENT_BYTES`].
fn read_event() -> anyhow::Result<Value> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_EVENT_BYTES + 1)
        .read_to_end(&mut bytes)
        .context("cannot read the hook event on standard input")?;
    if bytes.len() as u64 > MAX_EVENT_BYTES {
        bail!(
            "the hook event on standard input is larger than {} MiB",
            MAX_EVENT_BYTES / 1024 / 1024
        );
    }
    let event: Value =
        serde_json::from_slice(&bytes).context("the hook event on standard input is not JSON")?;
    if !event.is_object() {
        bail!("the hook event on standard input is not a JSON object");
    }
    Ok(event)
}

/// A string field of the event, or an error naming it.
fn field<'a>(event: &'a Value, name: &str) -> anyhow::Result<&'a str> {
    match event.get(name) {
        Some(Value::String(text)) => Ok(text),
        Some(_) => bail!("the hook event's {name:?} is not a string"),
        None => bail!("the hook event has no {name:?}"),
    }
}
