//! A hook's answer: the context rendered as the agent reads it, within the
//! budget, and the user-facing `systemMessage`. Claude Code and Codex read
//! the same shape (Codex's output schemas accept exactly these keys).

use serde_json::json;

use mdagent::context::session::{Session, SessionError};
use mdagent::context::{self, Context, DEFAULT_BUDGET, render};

/// What an answer is made of besides the context.
pub struct Answer<'a> {
    /// The event answered (`hookEventName`).
    pub event: &'a str,
    /// Characters of the whole answer at most (`--budget`).
    pub budget: Option<usize>,
    /// Said to the user, not to the model: what background jobs did.
    pub system_message: Option<&'a str>,
    /// Whether the model is to be given the system message too, to pass
    /// on: `codex exec` shows a hook's `systemMessage` nowhere (Codex
    /// 0.169.1 shows it only in its interactive view), so a Codex user
    /// hears of what waits only through the model (issue 27).
    pub relay: bool,
}

/// How the system message reaches a model that is to pass it on: marked as
/// memctl's own word about itself, neither a memory nor a request of the user.
fn relayed(message: &str) -> String {
    format!(
        "\n<memctl-notice>\nmemctl's report to the user about its own background work (not a memory, not a request): mention it to the user.\n{message}\n</memctl-notice>\n"
    )
}

impl Answer<'_> {
    /// `context` within the budget, counting the whole answer.
    pub fn fit(&self, context: Context) -> Context {
        let budget = self.budget.unwrap_or(DEFAULT_BUDGET);
        context::fit::fit(context, budget, &|c| {
            self.render(c).map_or(0, |t| t.chars().count())
        })
    }

    /// The answer for `context` (fitted first: [`Answer::fit`]), or `None`
    /// when there is nothing to say.
    pub fn render(&self, context: &Context) -> Option<String> {
        if context.is_empty() && self.system_message.is_none() {
            return None;
        }
        let mut answer = json!({});
        let mut added = (!context.is_empty()).then(|| render::readable(context));
        if self.relay
            && let Some(message) = self.system_message
        {
            added = Some(added.unwrap_or_default() + &relayed(message));
        }
        if let Some(added) = added {
            answer["hookSpecificOutput"] = json!({
                "hookEventName": self.event,
                "additionalContext": added,
            });
        }
        if let Some(message) = self.system_message {
            answer["systemMessage"] = json!(message);
        }
        Some(mdstore::escape::escape_json_controls(&answer.to_string()) + "\n")
    }
}

/// Saves the session's state; a cache folder that cannot be written (read
/// only, full) costs the once-a-session rule, never the answer.
pub fn save_or_warn(label: &str, session: &Session) {
    if let Err(e) = session.save() {
        warn_session_state(label, "not saved", e);
    }
}

pub fn warn_session_state(label: &str, what: &str, e: SessionError) {
    let e = anyhow::Error::from(e);
    eprintln!("{label}: warning: session state {what} ({e:#}); records may repeat in this session");
}
