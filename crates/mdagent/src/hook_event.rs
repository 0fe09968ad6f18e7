//! A hook event as an agent sends it, typed: one Rust type per agent and
//! event, each field read and checked once, and which of memctl's moments
//! it is. The face reads the JSON (bounded) and parses it here. Claude
//! Code's events: https://code.claude.com/docs/en/hooks; Codex's:
//! `codex-rs/hooks/schema/generated/` in openai/codex (see
//! crates/memctl/tests/fixtures/hooks/README.md).

use std::path::PathBuf;

use serde_json::Value;

/// The agents whose hooks memctl answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    ClaudeCode,
    Codex,
}

impl Agent {
    /// As `memctl hook AGENT` names it.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
        }
    }
}

/// Why an event cannot be answered.
#[derive(Debug, thiserror::Error)]
pub enum EventError {
    #[error("{agent} sends no hook event {name:?} that memctl answers")]
    Unknown { agent: &'static str, name: String },
    #[error("the hook event has no {0:?}")]
    Missing(&'static str),
    #[error("the hook event's {0:?} is not a string")]
    NotAString(&'static str),
}

fn unknown(agent: Agent, name: &str) -> EventError {
    EventError::Unknown {
        agent: agent.name(),
        name: mdstore::escape::for_message(name, 60),
    }
}

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
pub type Refused = (Option<Moment>, EventError);

impl Event {
    /// `value` (one JSON object, [`read`]) as `agent`'s event.
    pub fn parse(agent: Agent, value: &Value) -> Result<(String, Event), Refused> {
        let name = field(value, "hook_event_name").map_err(|e| (None, e))?;
        let Some(moment) = moment(agent, name) else {
            return Err((None, unknown(agent, name)));
        };
        let event = Event::fields(agent, name, value).map_err(|e| (Some(moment), e))?;
        Ok((name.to_string(), event))
    }

    fn fields(agent: Agent, name: &str, value: &Value) -> Result<Event, EventError> {
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
        let prompt = || -> Result<PromptSubmit, EventError> {
            Ok(PromptSubmit {
                prompt: text("prompt")?,
                session_id: text("session_id")?,
                cwd: cwd.clone(),
            })
        };
        let end = || -> Result<SessionEnd, EventError> {
            Ok(SessionEnd {
                session_id: text("session_id")?,
                transcript: optional_field(value, "transcript_path")?.map(PathBuf::from),
                cwd: cwd.clone(),
            })
        };
        Ok(match agent {
            Agent::ClaudeCode => Event::ClaudeCode(match name {
                "SessionStart" => ClaudeCodeEvent::SessionStart(start()),
                "UserPromptSubmit" => ClaudeCodeEvent::UserPromptSubmit(prompt()?),
                "SessionEnd" => ClaudeCodeEvent::SessionEnd(end()?),
                "Stop" => ClaudeCodeEvent::Stop,
                "PreCompact" => ClaudeCodeEvent::PreCompact,
                "PostCompact" => ClaudeCodeEvent::PostCompact,
                _ => return Err(unknown(agent, name)),
            }),
            Agent::Codex => Event::Codex(match name {
                "SessionStart" => CodexEvent::SessionStart(start()),
                "UserPromptSubmit" => CodexEvent::UserPromptSubmit(prompt()?),
                "SessionEnd" => CodexEvent::SessionEnd(end()?),
                "Stop" => CodexEvent::Stop(end()?),
                "PreCompact" => CodexEvent::PreCompact,
                "PostCompact" => CodexEvent::PostCompact,
                _ => return Err(unknown(agent, name)),
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
fn moment(agent: Agent, name: &str) -> Option<Moment> {
    match (agent, name) {
        (_, "SessionStart") => Some(Moment::SessionStart),
        (_, "UserPromptSubmit") => Some(Moment::UserPromptSubmit),
        (_, "SessionEnd") => Some(Moment::SessionEnd),
        (Agent::Codex, "Stop") => Some(Moment::TurnEnd),
        (Agent::ClaudeCode, "Stop" | "PreCompact" | "PostCompact")
        | (Agent::Codex, "PreCompact" | "PostCompact") => Some(Moment::Nothing),
        _ => None,
    }
}

/// A string field of the event, or an error naming it.
fn field<'a>(event: &'a Value, name: &'static str) -> Result<&'a str, EventError> {
    match event.get(name) {
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(EventError::NotAString(name)),
        None => Err(EventError::Missing(name)),
    }
}

/// A string field that may be missing or null (Codex sends
/// `"transcript_path": null`); any other type is an error naming it.
fn optional_field<'a>(event: &'a Value, name: &'static str) -> Result<Option<&'a str>, EventError> {
    match event.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => field(event, name).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn moment_of(agent: Agent, value: Value) -> Result<Moment, Refused> {
        let (_, event) = Event::parse(agent, &value)?;
        Ok(match event.what() {
            What::Start(_) => Moment::SessionStart,
            What::Prompt(_) => Moment::UserPromptSubmit,
            What::End(_, moment) => moment,
            What::Nothing => Moment::Nothing,
        })
    }

    #[test]
    fn each_agents_events_are_typed_with_their_fields() {
        let prompt = json!({"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "hi", "cwd": "/p"});
        let (name, event) = Event::parse(Agent::Codex, &prompt).unwrap();
        assert_eq!(name, "UserPromptSubmit");
        assert!(
            matches!(&event, Event::Codex(CodexEvent::UserPromptSubmit(p)) if p.prompt == "hi" && p.session_id == "s")
        );
        assert_eq!(event.cwd(), Some("/p"));
        let end =
            json!({"hook_event_name": "SessionEnd", "session_id": "s", "transcript_path": null});
        let (_, event) = Event::parse(Agent::ClaudeCode, &end).unwrap();
        assert!(matches!(
            event,
            Event::ClaudeCode(ClaudeCodeEvent::SessionEnd(SessionEnd {
                transcript: None,
                ..
            }))
        ));
        let stop = json!({"hook_event_name": "Stop", "session_id": "s"});
        assert_eq!(
            moment_of(Agent::Codex, stop.clone()).unwrap(),
            Moment::TurnEnd
        );
        assert_eq!(moment_of(Agent::ClaudeCode, stop).unwrap(), Moment::Nothing);
    }

    #[test]
    fn a_wrong_field_names_it_and_an_unknown_event_has_no_moment() {
        let no_prompt = json!({"hook_event_name": "UserPromptSubmit", "session_id": "s"});
        let (moment, error) = Event::parse(Agent::ClaudeCode, &no_prompt).unwrap_err();
        assert_eq!(moment, Some(Moment::UserPromptSubmit));
        assert_eq!(error.to_string(), "the hook event has no \"prompt\"");
        let number = json!({"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": 7});
        let (_, error) = Event::parse(Agent::ClaudeCode, &number).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the hook event's \"prompt\" is not a string"
        );
        let unknown = json!({"hook_event_name": "PreToolUse"});
        let (moment, error) = Event::parse(Agent::Codex, &unknown).unwrap_err();
        assert_eq!(moment, None);
        assert_eq!(
            error.to_string(),
            "codex sends no hook event \"PreToolUse\" that memctl answers"
        );
    }
}
