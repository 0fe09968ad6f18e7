//! A hook event as an agent sends it: one JSON object on standard input,
//! and which of memctl's moments it is for each agent. Claude Code's
//! events: https://code.claude.com/docs/en/hooks; Codex's:
//! `codex-rs/hooks/schema/generated/` in openai/codex (see
//! tests/fixtures/hooks/README.md).

use std::io::Read as _;

use anyhow::{Context as _, bail};
use serde_json::Value;

use crate::cli::HookAgent;

/// An event larger than this is refused (a prompt with a pasted file is
/// far smaller; more is not an event an agent sends).
const MAX_EVENT_BYTES: u64 = 8 * 1024 * 1024;

/// What an event asks of memctl.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// The policy and the catalogues; background jobs started.
    SessionStart,
    /// The records relevant to the prompt.
    UserPromptSubmit,
    /// The session is over (`SessionEnd`).
    SessionEnd,
    /// A turn is over (Codex's `Stop`: a Codex too old to send
    /// `SessionEnd` has nothing else to end a session with).
    TurnEnd,
    /// An event memctl has nothing to add to (`PreCompact`: the
    /// `SessionStart` after a compaction gives the memory again).
    Nothing,
}

/// The moment of event `name` for `agent`; `None` for an event it does
/// not send or memctl does not know.
pub fn moment(agent: HookAgent, name: &str) -> Option<Moment> {
    match (agent, name) {
        (_, "SessionStart") => Some(Moment::SessionStart),
        (_, "UserPromptSubmit") => Some(Moment::UserPromptSubmit),
        // Codex has sent SessionEnd since 0.16x (0.169.1 was seen to send it,
        // with `transcript_path` and `reason`); an older one only has Stop.
        (_, "SessionEnd") => Some(Moment::SessionEnd),
        (HookAgent::Codex, "Stop") => Some(Moment::TurnEnd),
        // Claude Code's Stop fires after every turn of a session whose
        // SessionEnd memctl also gets: nothing to do there.
        (HookAgent::ClaudeCode, "Stop" | "PreCompact" | "PostCompact")
        | (HookAgent::Codex, "PreCompact" | "PostCompact") => Some(Moment::Nothing),
        _ => None,
    }
}

/// The event on standard input: one JSON object of at most
/// [`MAX_EVENT_BYTES`].
pub fn read() -> anyhow::Result<Value> {
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
pub fn field<'a>(event: &'a Value, name: &str) -> anyhow::Result<&'a str> {
    match event.get(name) {
        Some(Value::String(text)) => Ok(text),
        Some(_) => bail!("the hook event's {name:?} is not a string"),
        None => bail!("the hook event has no {name:?}"),
    }
}

/// A string field that may be missing or null (Codex sends
/// `"transcript_path": null`); any other type is an error naming it.
pub fn optional_field<'a>(event: &'a Value, name: &str) -> anyhow::Result<Option<&'a str>> {
    match event.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => field(event, name).map(Some),
    }
}
