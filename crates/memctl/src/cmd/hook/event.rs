//! A hook event as an agent sends it: one JSON object on standard input,
//! and which of memctl's moments it is for each agent. Claude Code's
//! events: https://code.claude.com/docs/en/hooks; Codex's:
//! `codex-rs/hooks/schema/generated/` in openai/codex (see
//! tests/fixtures/hooks/README.md).

use std::io::Read as _;
use std::path::PathBuf;

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

/// An event of `agent`'s, typed: one Rust type per agent and event, each
/// field read and checked once, here.
#[derive(Debug)]
pub enum Event {
    ClaudeCode(ClaudeCodeEvent),
    Codex(CodexEvent),
}

/// Claude Code's events that memctl knows.
#[derive(Debug)]
pub enum ClaudeCodeEvent {
    SessionStart(SessionStart),
    UserPromptSubmit(PromptSubmit),
    SessionEnd(SessionEnd),
    /// Fires after every turn of a session whose `SessionEnd` memctl also
    /// gets: nothing to do there.
    Stop,
    PreCompact,
    PostCompact,
}

/// Codex's events that memctl knows.
#[derive(Debug)]
pub enum CodexEvent {
    SessionStart(SessionStart),
    UserPromptSubmit(PromptSubmit),
    /// Codex has sent `SessionEnd` since 0.16x (0.169.1 was seen to send
    /// it, with `transcript_path` and `reason`).
    SessionEnd(SessionEnd),
    /// A turn is over: an older Codex has nothing else to end a session with.
    Stop(SessionEnd),
    PreCompact,
    PostCompact,
}

/// `SessionStart`.
#[derive(Debug)]
pub struct SessionStart {
    pub cwd: Option<String>,
    pub session_id: Option<String>,
    /// `startup`, `resume`, `clear`, `compact`.
    pub source: Option<String>,
}

/// `UserPromptSubmit`.
#[derive(Debug)]
pub struct PromptSubmit {
    pub cwd: Option<String>,
    pub session_id: String,
    pub prompt: String,
}

/// `SessionEnd`, and Codex's `Stop`.
#[derive(Debug)]
pub struct SessionEnd {
    pub cwd: Option<String>,
    pub session_id: String,
    pub transcript: Option<PathBuf>,
}

/// The event's name, which moment it is, or why it was refused: an
/// unknown event, or a known one whose fields are wrong ([`Moment`] known).
pub type Refused = (Option<Moment>, anyhow::Error);

impl Event {
    /// `value` (one JSON object, [`read`]) as `agent`'s event.
    pub fn parse(agent: HookAgent, value: &Value) -> Result<(String, Event), Refused> {
        let name = field(value, "hook_event_name").map_err(|e| (None, e))?;
        let Some(moment) = moment(agent, name) else {
            return Err((
                None,
                anyhow::anyhow!(
                    "{} sends no hook event {:?} that memctl answers",
                    agent.name(),
                    mdstore::escape::for_message(name, 60)
                ),
            ));
        };
        let event = Event::fields(agent, name, value).map_err(|e| (Some(moment), e))?;
        Ok((name.to_string(), event))
    }

    fn fields(agent: HookAgent, name: &str, value: &Value) -> anyhow::Result<Event> {
        let cwd = value.get("cwd").and_then(Value::as_str).map(str::to_string);
        let text = |field_name| field(value, field_name).map(str::to_string);
        let start = || SessionStart {
            cwd: cwd.clone(),
            session_id: value
                .get("session_id")
                .and_then(Value::as_str)
                .map(str::to_string),
            source: value
                .get("source")
                .and_then(Value::as_str)
                .map(str::to_string),
        };
        let prompt = || -> anyhow::Result<PromptSubmit> {
            Ok(PromptSubmit {
                prompt: text("prompt")?,
                session_id: text("session_id")?,
                cwd: cwd.clone(),
            })
        };
        let end = || -> anyhow::Result<SessionEnd> {
            Ok(SessionEnd {
                session_id: text("session_id")?,
                transcript: optional_field(value, "transcript_path")?.map(PathBuf::from),
                cwd: cwd.clone(),
            })
        };
        Ok(match agent {
            HookAgent::ClaudeCode => Event::ClaudeCode(match name {
                "SessionStart" => ClaudeCodeEvent::SessionStart(start()),
                "UserPromptSubmit" => ClaudeCodeEvent::UserPromptSubmit(prompt()?),
                "SessionEnd" => ClaudeCodeEvent::SessionEnd(end()?),
                "Stop" => ClaudeCodeEvent::Stop,
                "PreCompact" => ClaudeCodeEvent::PreCompact,
                "PostCompact" => ClaudeCodeEvent::PostCompact,
                _ => bail!("Claude Code sends no hook event {name:?}"),
            }),
            HookAgent::Codex => Event::Codex(match name {
                "SessionStart" => CodexEvent::SessionStart(start()),
                "UserPromptSubmit" => CodexEvent::UserPromptSubmit(prompt()?),
                "SessionEnd" => CodexEvent::SessionEnd(end()?),
                "Stop" => CodexEvent::Stop(end()?),
                "PreCompact" => CodexEvent::PreCompact,
                "PostCompact" => CodexEvent::PostCompact,
                _ => bail!("Codex sends no hook event {name:?}"),
            }),
        })
    }

    /// The agent's folder, when the event names one.
    pub fn cwd(&self) -> Option<&str> {
        match self.what() {
            What::Start(e) => e.cwd.as_deref(),
            What::Prompt(e) => e.cwd.as_deref(),
            What::End(e, _) => e.cwd.as_deref(),
            What::Nothing => None,
        }
    }

    /// What the event asks of memctl, whichever agent sent it.
    pub fn what(&self) -> What<'_> {
        use {ClaudeCodeEvent as Claude, CodexEvent as Codex};
        match self {
            Event::ClaudeCode(Claude::SessionStart(e)) | Event::Codex(Codex::SessionStart(e)) => {
                What::Start(e)
            }
            Event::ClaudeCode(Claude::UserPromptSubmit(e))
            | Event::Codex(Codex::UserPromptSubmit(e)) => What::Prompt(e),
            Event::ClaudeCode(Claude::SessionEnd(e)) | Event::Codex(Codex::SessionEnd(e)) => {
                What::End(e, Moment::SessionEnd)
            }
            Event::Codex(Codex::Stop(e)) => What::End(e, Moment::TurnEnd),
            Event::ClaudeCode(Claude::Stop | Claude::PreCompact | Claude::PostCompact)
            | Event::Codex(Codex::PreCompact | Codex::PostCompact) => What::Nothing,
        }
    }
}

/// An event by what it asks for.
pub enum What<'a> {
    Start(&'a SessionStart),
    Prompt(&'a PromptSubmit),
    /// A session's end, or a turn's ([`Moment::TurnEnd`]).
    End(&'a SessionEnd, Moment),
    Nothing,
}

/// The moment of event `name` for `agent`; `None` for an event it does
/// not send or memctl does not know.
fn moment(agent: HookAgent, name: &str) -> Option<Moment> {
    match (agent, name) {
        (_, "SessionStart") => Some(Moment::SessionStart),
        (_, "UserPromptSubmit") => Some(Moment::UserPromptSubmit),
        (_, "SessionEnd") => Some(Moment::SessionEnd),
        (HookAgent::Codex, "Stop") => Some(Moment::TurnEnd),
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
fn field<'a>(event: &'a Value, name: &str) -> anyhow::Result<&'a str> {
    match event.get(name) {
        Some(Value::String(text)) => Ok(text),
        Some(_) => bail!("the hook event's {name:?} is not a string"),
        None => bail!("the hook event has no {name:?}"),
    }
}

/// A string field that may be missing or null (Codex sends
/// `"transcript_path": null`); any other type is an error naming it.
fn optional_field<'a>(event: &'a Value, name: &str) -> anyhow::Result<Option<&'a str>> {
    match event.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => field(event, name).map(Some),
    }
}
