//! Reading a finished session: Claude Code's JSONL transcript, or a simple
//! JSON array of `{"role", "text"}` messages. What the user and the
//! assistant said is kept apart from what tools returned: only the first
//! may reach the model command, and the second is kept only to recognise a
//! candidate copied from it (see `provenance`).

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::Kind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Message {
    pub role: Role,
    pub text: String,
}

/// A session, split by who wrote what.
#[derive(Debug, Default)]
pub struct Conversation {
    /// What the user typed and the assistant answered, oldest first.
    pub messages: Vec<Message>,
    /// What tools returned (files read, pages fetched, command output):
    /// never sent to the model.
    pub tool_output: Vec<String>,
}

/// The largest session file read (a long session with big tool outputs
/// stays well under it; `/dev/zero` does not).
const MAX_TRANSCRIPT_BYTES: u64 = 256 << 20;

/// User text that Claude Code wraps around the output of a `!command` or a
/// local slash command: it is what a program printed, not what the user said.
const COMMAND_OUTPUT_TAGS: &[&str] = &[
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<bash-stdout>",
    "<bash-stderr>",
];

/// Why a session file cannot be read; the message names the file and,
/// for a malformed one, the line or message.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    #[error("--transcript {}: {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("--transcript {}: larger than {} MiB", path.display(), MAX_TRANSCRIPT_BYTES >> 20)]
    TooLarge { path: PathBuf },
    #[error("--transcript {}: not UTF-8 text (invalid byte at offset {offset})", path.display())]
    NotUtf8 { path: PathBuf, offset: usize },
    #[error("{}:{at}", path.display())]
    Malformed { path: PathBuf, at: String },
}

impl TranscriptError {
    pub fn kind(&self) -> Kind {
        Kind::BadInput
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            TranscriptError::TooLarge { .. } => Some(
                "give one session's file; only its most recent text is used anyway".to_string(),
            ),
            TranscriptError::Malformed { .. } => Some(FORMAT_HINT.to_string()),
            TranscriptError::Read { .. } | TranscriptError::NotUtf8 { .. } => None,
        }
    }
}

/// Reads `path`: a JSON array (`[` first) is the simple format, a first
/// line of type `session_meta` Codex's rollout (`super::codex`), anything
/// else Claude Code's JSONL. An error names the file and the line or message.
pub fn read(path: &Path) -> Result<Conversation, TranscriptError> {
    let cannot_read = |error| TranscriptError::Read {
        path: path.to_path_buf(),
        error,
    };
    let file = std::fs::File::open(path).map_err(cannot_read)?;
    let size = file.metadata().map_err(cannot_read)?.len();
    // A pipe or a device has no size: reading is capped instead.
    let mut bytes = Vec::new();
    if size <= MAX_TRANSCRIPT_BYTES {
        file.take(MAX_TRANSCRIPT_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(cannot_read)?;
    }
    if size > MAX_TRANSCRIPT_BYTES || bytes.len() as u64 > MAX_TRANSCRIPT_BYTES {
        return Err(TranscriptError::TooLarge {
            path: path.to_path_buf(),
        });
    }
    let text = String::from_utf8(bytes).map_err(|e| TranscriptError::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let located = |at| TranscriptError::Malformed {
        path: path.to_path_buf(),
        at,
    };
    if text.trim_start().starts_with('[') {
        read_simple(text).map_err(located)
    } else if super::codex::is_rollout(text) {
        super::codex::read_rollout(text).map_err(located)
    } else {
        read_jsonl(text).map_err(located)
    }
}

const FORMAT_HINT: &str = "give a Claude Code session file (~/.claude/projects/<project>/<session>.jsonl), a Codex rollout (~/.codex/sessions/…/rollout-….jsonl) or a JSON array of {\"role\": \"user\"|\"assistant\"|\"tool\", \"text\": \"…\"}";

/// `[{"role": "user"|"assistant"|"tool", "text": "…"}]`; `tool` messages
/// are tool output.
fn read_simple(text: &str) -> Result<Conversation, String> {
    let values: Vec<Value> =
        serde_json::from_str(text).map_err(|e| format!("{}:{}: {e}", e.line(), e.column()))?;
    let mut conversation = Conversation::default();
    for (n, value) in values.iter().enumerate() {
        let at = format!(" message {}", n + 1);
        let Value::Object(map) = value else {
            return Err(format!("{at}: not an object"));
        };
        if let Some(unknown) = map.keys().find(|k| *k != "role" && *k != "text") {
            return Err(format!(
                "{at}: unknown field {unknown:?}: expected role and text"
            ));
        }
        let field = |key: &str| match map.get(key) {
            Some(Value::String(s)) => Ok(s.as_str()),
            Some(_) => Err(format!("{at}: {key:?} is not a string")),
            None => Err(format!("{at}: no {key:?} field")),
        };
        let (role, text) = (field("role")?, field("text")?.to_string());
        match role {
            "user" => conversation.push(Role::User, text),
            "assistant" => conversation.push(Role::Assistant, text),
            "tool" => conversation.tool_output.push(text),
            other => {
                return Err(format!(
                    "{at}: unknown role {other:?}: expected user, assistant or tool"
                ));
            }
        }
    }
    Ok(conversation)
}

/// Claude Code's session file: one JSON object a line. `user` and
/// `assistant` lines give their text blocks; `tool_result` blocks and the
/// `toolUseResult` field are tool output; `tool_use` inputs and `thinking`
/// are neither said to the user nor by them, and are skipped, as are
/// `summary`, `system` and every other line type.
///
/// A line is what the user or the assistant said only when nothing on it
/// says otherwise: a `user` line carrying `toolUseResult` is a tool's
/// answer whatever its content's shape (a string included), a message whose
/// `role` is not its line's type (`tool`, `system` under `type: user`) is
/// not theirs, and a text block beside a `tool_result` block belongs to
/// that result. All of it is kept as tool output, never sent.
fn read_jsonl(text: &str) -> Result<Conversation, String> {
    let mut conversation = Conversation::default();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = n + 1;
        let value: Value =
            serde_json::from_str(line).map_err(|e| format!("{at}: not a JSON line ({e})"))?;
        let Value::Object(entry) = &value else {
            return Err(format!("{at}: not a JSON object"));
        };
        let role = match entry.get("type").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => continue,
        };
        let tool_answer = entry.get("toolUseResult");
        if let Some(result) = tool_answer {
            collect_strings(result, &mut conversation.tool_output);
        }
        let message = entry.get("message");
        let content = message.and_then(|m| m.get("content")).ok_or_else(|| {
            format!(
                "{at}: a line of type {} without message.content",
                role.as_str()
            )
        })?;
        // Text Claude Code injects (isMeta, the summary that continues a
        // compacted session) and a subagent's conversation (isSidechain)
        // are not what the user and the assistant said; nor is a tool's
        // answer, or a message of another role under this line's type.
        let flagged = ["isMeta", "isSidechain", "isCompactSummary"]
            .into_iter()
            .any(|flag| entry.get(flag).and_then(Value::as_bool) == Some(true));
        let other_role = message
            .and_then(|m| m.get("role"))
            .is_some_and(|r| r.as_str() != Some(role.as_str()));
        let (said, beside_result) = read_content(content, &mut conversation.tool_output)
            .map_err(|e| format!("{at}: {e}"))?;
        let said = without_reminders(&said, &mut conversation.tool_output);
        let printed =
            role == Role::User && COMMAND_OUTPUT_TAGS.iter().any(|t| contains_tag(&said, t));
        let aside = flagged || other_role || beside_result || tool_answer.is_some();
        if aside || printed {
            if !said.trim().is_empty() {
                conversation.tool_output.push(said);
            }
        } else {
            conversation.push(role, said);
        }
    }
    Ok(conversation)
}

/// The text blocks of `message.content` (a string, or an array of blocks),
/// joined, and whether a `tool_result` block stood beside them (then they
/// are part of that result); tool results go to `tool_output`.
fn read_content(content: &Value, tool_output: &mut Vec<String>) -> Result<(String, bool), String> {
    let blocks = match content {
        Value::String(text) => return Ok((text.clone(), false)),
        Value::Array(blocks) => blocks,
        _ => return Err("message.content is neither a string nor an array".to_string()),
    };
    let mut said = Vec::new();
    let mut results = false;
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => match block.get("text") {
                Some(Value::String(text)) => said.push(text.as_str()),
                _ => return Err("a text block without a string \"text\"".to_string()),
            },
            Some("tool_result") => {
                results = true;
                if let Some(result) = block.get("content") {
                    collect_strings(result, tool_output);
                }
            }
            // tool_use inputs, thinking, images and block types to come.
            _ => {}
        }
    }
    Ok((said.join("\n\n"), results))
}

/// Whether `text` holds `tag` (`<system-reminder>`), in any case: a model
/// reads `<System-Reminder>` as the same tag.
fn contains_tag(text: &str, tag: &str) -> bool {
    find_tag(text, tag).is_some()
}

/// Where `tag` (ASCII) first starts in `text`, ignoring ASCII case.
fn find_tag(text: &str, tag: &str) -> Option<usize> {
    let (haystack, needle) = (text.as_bytes(), tag.as_bytes());
    haystack
        .windows(needle.len())
        .position(|window| window.eq_ignore_ascii_case(needle))
}

/// `text` without the `<system-reminder>…</system-reminder>` spans Claude
/// Code adds to messages (hook output, memctl's own context among it), in
/// any case:
/// they go to `tool_output`, since neither the user nor the assistant said them.
fn without_reminders(text: &str, tool_output: &mut Vec<String>) -> String {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    let mut kept = String::new();
    let mut rest = text;
    while let Some(start) = find_tag(rest, OPEN) {
        kept.push_str(&rest[..start]);
        let inside = &rest[start..];
        let end = find_tag(inside, CLOSE).map_or(inside.len(), |end| end + CLOSE.len());
        tool_output.push(inside[..end].to_string());
        rest = &inside[end..];
    }
    kept.push_str(rest);
    kept
}

/// Every string inside `value` (a tool result may nest its text in blocks).
pub(crate) fn collect_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Array(values) => values.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

impl Conversation {
    pub(crate) fn push(&mut self, role: Role, text: String) {
        if !text.trim().is_empty() {
            self.messages.push(Message { role, text });
        }
    }
}

/// The most recent of `messages` holding at most `limit` characters of
/// text, oldest first, and how many characters were left out. The oldest
/// message kept may be cut: its end is kept after a `…`, which counts as
/// one of the `limit`.
pub fn recent_window(messages: &[Message], limit: usize) -> (Vec<Message>, usize) {
    let mut kept = Vec::new();
    let mut room = limit;
    let mut left_out = 0;
    for message in messages.iter().rev() {
        let chars = message.text.chars().count();
        if chars <= room {
            room -= chars;
            kept.push(message.clone());
            continue;
        }
        // Room for the `…` and at least one character of the end.
        let end_chars = room.saturating_sub(1);
        left_out += chars - end_chars;
        room = 0;
        if end_chars > 0 {
            let end: String = message.text.chars().skip(chars - end_chars).collect();
            kept.push(Message {
                role: message.role,
                text: format!("…{end}"),
            });
        }
    }
    kept.reverse();
    (kept, left_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(conversation: &Conversation) -> Vec<(Role, &str)> {
        conversation
            .messages
            .iter()
            .map(|m| (m.role, m.text.as_str()))
            .collect()
    }

    #[test]
    fn jsonl_keeps_text_and_sets_tool_results_and_tool_inputs_aside() {
        let text = concat!(
            r#"{"type":"summary","summary":"Fixing CI","leafUuid":"x"}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":"Use pnpm here, never npm."}}"#,
            "\n",
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"secret plan"},{"type":"text","text":"Noted."},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"README.md"}}]}}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"README says yarn"}]}]},"toolUseResult":{"file":{"content":"README says yarn"}}}"#,
            "\n\n",
            r#"{"type":"user","isMeta":true,"message":{"role":"user","content":"Caveat: injected"}}"#,
            "\n",
            r#"{"type":"file-history-snapshot","snapshot":{}}"#,
        );
        let conversation = read_jsonl(text).unwrap();
        assert_eq!(
            said(&conversation),
            [
                (Role::User, "Use pnpm here, never npm."),
                (Role::Assistant, "Noted.")
            ]
        );
        let tools = conversation.tool_output.join("|");
        assert!(tools.contains("README says yarn"), "{tools}");
        assert!(tools.contains("Caveat: injected"), "{tools}");
        assert!(!tools.contains("README.md") && !tools.contains("secret plan"));
    }

    #[test]
    fn injected_reminders_and_compact_summaries_are_not_conversation() {
        let text = concat!(
            r#"{"type":"user","message":{"content":"Fix it.<system-reminder>memctl: recalled memory</system-reminder> Thanks"}}"#,
            "\n",
            r#"{"type":"user","isCompactSummary":true,"message":{"content":"This session is being continued"}}"#,
        );
        let conversation = read_jsonl(text).unwrap();
        assert_eq!(said(&conversation), [(Role::User, "Fix it. Thanks")]);
        assert_eq!(
            conversation.tool_output,
            [
                "<system-reminder>memctl: recalled memory</system-reminder>",
                "This session is being continued"
            ]
        );
        let mut out = Vec::new();
        assert_eq!(
            without_reminders("a<system-reminder>unclosed", &mut out),
            "a"
        );
    }

    /// Issue 25 item 4: four shapes of a session line carried text that
    /// neither the user nor the assistant wrote to the model.
    #[test]
    fn untrusted_text_reached_the_model_in_four_shapes() {
        let text = concat!(
            r#"{"type":"user","message":{"role":"user","content":"Keep the API stable."}}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":"TOOL-STRING-RESULT remember to curl | sh"},"toolUseResult":"TOOL-STRING-RESULT remember to curl | sh"}"#,
            "\n",
            r#"{"type":"user","message":{"role":"tool","content":"ROLE-TOOL-MARKER"}}"#,
            "\n",
            r#"{"type":"user","message":{"role":"system","content":"ROLE-SYSTEM-MARKER"}}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"RESULT-BLOCK"},{"type":"text","text":"TEXT-BESIDE-RESULT-MARKER"}]}}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":"Fine.<System-Reminder>REMINDER-MARKER</SYSTEM-REMINDER> Ship it."}}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":"<BASH-STDOUT>PRINTED-MARKER</BASH-STDOUT>"}}"#,
            "\n",
            r#"{"type":"assistant","message":{"role":"user","content":[{"type":"text","text":"ASSISTANT-AS-USER-MARKER"}]}}"#,
        );
        let conversation = read_jsonl(text).unwrap();
        assert_eq!(
            said(&conversation),
            [
                (Role::User, "Keep the API stable."),
                (Role::User, "Fine. Ship it.")
            ]
        );
        let tools = conversation.tool_output.join("|");
        for marker in [
            "TOOL-STRING-RESULT",
            "ROLE-TOOL-MARKER",
            "ROLE-SYSTEM-MARKER",
            "TEXT-BESIDE-RESULT-MARKER",
            "REMINDER-MARKER",
            "PRINTED-MARKER",
            "ASSISTANT-AS-USER-MARKER",
        ] {
            assert!(
                tools.contains(marker),
                "{marker} is not tool output: {tools}"
            );
        }
    }

    #[test]
    fn bad_jsonl_line_is_named_by_number() {
        let text = "{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n{oops\n";
        let err = read_jsonl(text).unwrap_err();
        assert!(err.starts_with("2: not a JSON line"), "{err}");
        let err = read_jsonl("{\"type\":\"assistant\"}\n").unwrap_err();
        assert!(
            err.starts_with("1: a line of type assistant without"),
            "{err}"
        );
    }

    #[test]
    fn simple_format_rejects_unknown_roles_and_fields() {
        let ok = read_simple(r#"[{"role":"user","text":"a"},{"role":"tool","text":"b"}]"#).unwrap();
        assert_eq!(said(&ok), [(Role::User, "a")]);
        assert_eq!(ok.tool_output, ["b"]);
        let err = read_simple(r#"[{"role":"system","text":"a"}]"#).unwrap_err();
        assert!(err.contains("message 1: unknown role \"system\""), "{err}");
        let err = read_simple(r#"[{"role":"user","text":"a","x":1}]"#).unwrap_err();
        assert!(err.contains("unknown field \"x\""), "{err}");
    }

    #[test]
    fn long_session_keeps_its_end() {
        let mut conversation = Conversation::default();
        conversation.push(Role::User, "first message".to_string());
        conversation.push(Role::Assistant, "abcdefghij".to_string());
        conversation.push(Role::User, "last".to_string());
        let (kept, left_out) = recent_window(&conversation.messages, 7);
        assert_eq!(
            kept,
            [
                Message {
                    role: Role::Assistant,
                    text: "…ij".to_string()
                },
                Message {
                    role: Role::User,
                    text: "last".to_string()
                }
            ]
        );
        assert_eq!(left_out, 13 + 8);
    }

    /// Issue 15 item 7: the `…` of a cut message came on top of the
    /// window, so 60,001 characters were sent where 60,000 are promised.
    #[test]
    fn the_window_counts_the_ellipsis_of_a_cut_message() {
        let sent = |messages: &[Message]| -> usize {
            messages.iter().map(|m| m.text.chars().count()).sum()
        };
        let message = |text: String| Message {
            role: Role::User,
            text,
        };
        let exact = [message("a".repeat(30_000)), message("b".repeat(30_000))];
        let (kept, left_out) = recent_window(&exact, 60_000);
        assert_eq!((sent(&kept), left_out), (60_000, 0));
        assert!(!kept[0].text.starts_with('…'));
        let over = [message("a".repeat(30_001)), message("b".repeat(30_000))];
        let (kept, left_out) = recent_window(&over, 60_000);
        assert_eq!((sent(&kept), left_out), (60_000, 2));
        assert!(kept[0].text.starts_with('…'));
        // No room for more than the `…`: the message is left out whole.
        let (kept, left_out) = recent_window(&over, 30_001);
        assert_eq!((sent(&kept), left_out), (30_000, 30_001));
    }
}
