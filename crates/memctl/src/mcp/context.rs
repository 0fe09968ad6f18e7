//! The `context` tool: for clients without hooks (Cursor, VS Code, Claude
//! Desktop), the same recall as `memctl context --hook` gives before each
//! prompt: the policy, `MEMORY.md` at a session's start, the records
//! relevant to the prompt (none expired, none holding a secret), within the
//! hook's budget. A session is the server's lifetime, or from one call
//! with `session_start` to the next: a client that keeps one server for
//! many conversations (Claude Desktop) starts each with `session_start`.

use std::sync::{Mutex, PoisonError};

use mdagent::Config;
use mdagent::context::session::Shown;
use mdagent::context::{self, Ask, DEFAULT_BUDGET, DEFAULT_MAX, fit, render};

use super::answers::ContextAnswer;
use super::args::ToolError;
use super::params::ContextParams;
use crate::ui;

/// The text block when nothing is recalled: a client that reads only the
/// text (Claude Code) must still get a block, and it must say so.
const NOTHING: &str = "No memory is relevant to this prompt.";

/// The recall for `params`, and its readable form (the hook's text), with
/// the records shown marked in `shown`.
pub fn recall(
    config: &Config,
    shown: &Mutex<Shown>,
    params: ContextParams,
) -> Result<(ContextAnswer, String), ToolError> {
    let session_start = params.session_start.is_some_and(|flag| flag.0);
    let max = params.max.map_or(DEFAULT_MAX, |max| max.0 as usize);
    // A poisoned lock only means a call panicked: what it held is a list
    // of keys, still whole.
    let mut shown = shown.lock().unwrap_or_else(PoisonError::into_inner);
    if session_start {
        *shown = Shown::default();
    }
    let ask = Ask {
        prompt: Some(&params.prompt.0),
        session_start,
        max,
        already_shown: shown.keys().map(str::to_string).collect(),
        background_budget: None,
    };
    let stores = mdagent::stores::read_stores(config).map_err(ToolError::from_error)?;
    let gathered = context::gather(config, &stores, &ask).map_err(ToolError::from_error)?;
    for warning in &gathered.warnings {
        eprintln!("memctl mcp: warning: {}", ui::shown(warning));
    }
    let fitted = fit::fit(gathered, DEFAULT_BUDGET, &|c| {
        render::readable(c).chars().count()
    });
    for record in &fitted.records {
        shown.mark_shown(context::key(record.scope, &record.id));
    }
    let text = if fitted.is_empty() {
        NOTHING.to_string()
    } else {
        render::readable(&fitted)
    };
    Ok((ContextAnswer { context: fitted }, text))
}
