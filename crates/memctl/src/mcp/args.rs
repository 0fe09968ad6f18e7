//! A tool call's arguments, checked as the CLI checks its own: an unknown
//! field, a wrong type, a control character or a value too large is an
//! error naming the field, and never echoes a secret.

use std::ffi::OsString;

use mdstore::escape::for_message;
use mdstore::guard::secrets::{quoted_or_hidden, secret_note};
use serde_json::{Map, Value};

/// A tool's failure, shown to the agent as the tool's error result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolError {
    pub message: String,
    pub hint: Option<String>,
}

impl ToolError {
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
            hint: None,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> ToolError {
        self.hint = Some(hint.into());
        self
    }

    /// The message and hint of an error as the CLI would give them
    /// (`failure::classify`).
    pub fn from_error(err: impl Into<anyhow::Error>) -> ToolError {
        let (_, message, hint) = crate::failure::classify(&err.into());
        ToolError { message, hint }
    }
}

/// The most bytes of any one text argument but a record's body: a query,
/// an id, a description or a reason fits well within it.
pub const MAX_TEXT_BYTES: usize = 16 * 1024;

/// A record's body: records are at most 256 KiB (SPEC §2).
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// The arguments of one call, with the fields the tool knows.
pub struct Args {
    map: Map<String, Value>,
}

impl Args {
    /// Refuses a field the tool does not know, naming it (hidden if it
    /// looks like a secret).
    pub fn new(arguments: Option<Map<String, Value>>, known: &[&str]) -> Result<Args, ToolError> {
        let map = arguments.unwrap_or_default();
        if let Some(unknown) = map.keys().find(|key| !known.contains(&key.as_str())) {
            return Err(
                ToolError::new(format!("unknown argument {}", shown_value(unknown)))
                    .with_hint(format!("this tool takes {}", known.join(", "))),
            );
        }
        Ok(Args { map })
    }

    /// The raw arguments, for a parser that reads fields itself.
    pub fn map(&self) -> &Map<String, Value> {
        &self.map
    }

    /// A text argument of at most `max_bytes`, with no control character
    /// but a tab or a line break where `multiline`.
    pub fn text(
        &self,
        field: &str,
        max_bytes: usize,
        multiline: bool,
    ) -> Result<Option<String>, ToolError> {
        let text = match self.map.get(field) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(text)) => text,
            Some(_) => {
                return Err(ToolError::new(format!(
                    "argument {field:?} must be a string"
                )));
            }
        };
        check_size(field, text, max_bytes)?;
        if let Some(c) = text
            .chars()
            .find(|&c| c.is_control() && !(multiline && matches!(c, '\n' | '\t' | '\r')))
        {
            return Err(ToolError::new(format!(
                "argument {field:?} holds the control character U+{:04X}; it may not hold control characters",
                u32::from(c)
            )));
        }
        Ok(Some(text.clone()))
    }

    pub fn required_text(&self, field: &str, max_bytes: usize) -> Result<String, ToolError> {
        self.text(field, max_bytes, false)?
            .ok_or_else(|| ToolError::new(format!("argument {field:?} is required")))
    }

    /// One of `allowed`, or an error naming them.
    pub fn choice(&self, field: &str, allowed: &[&str]) -> Result<Option<String>, ToolError> {
        let Some(value) = self.text(field, MAX_TEXT_BYTES, false)? else {
            return Ok(None);
        };
        if !allowed.contains(&value.as_str()) {
            return Err(ToolError::new(format!(
                "argument {field:?}: unknown value {}: expected {}",
                shown_value(&value),
                allowed.join(", ")
            )));
        }
        Ok(Some(value))
    }

    /// A whole number from `min` to `max`.
    pub fn integer(&self, field: &str, min: u64, max: u64) -> Result<Option<u64>, ToolError> {
        match self.map.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
                _ => Err(ToolError::new(format!(
                    "argument {field:?} must be a whole number from {min} to {max}"
                ))),
            },
            Some(_) => Err(ToolError::new(format!(
                "argument {field:?} must be a whole number from {min} to {max}"
            ))),
        }
    }
}

/// Refuses a text of more than `max_bytes`, before anything reads it.
pub fn check_size(field: &str, text: &str, max_bytes: usize) -> Result<(), ToolError> {
    if text.len() > max_bytes {
        return Err(ToolError::new(format!(
            "argument {field:?} is {} bytes; at most {max_bytes} are accepted",
            text.len()
        )));
    }
    Ok(())
}

/// A value as an error message may show it: quoted and cut, or a note
/// naming the secret rule it matches.
pub fn shown_value(value: &str) -> String {
    match secret_note(value) {
        Some(note) => note,
        None => quoted_or_hidden(&for_message(value, 60)),
    }
}

/// Every text in a call's arguments, keys included, for hiding the secrets
/// among them in messages.
pub fn texts_of(arguments: &Map<String, Value>) -> Vec<OsString> {
    let mut texts = Vec::new();
    for (key, value) in arguments {
        texts.push(OsString::from(key));
        collect_texts(value, &mut texts);
    }
    texts
}

fn collect_texts(value: &Value, out: &mut Vec<OsString>) {
    match value {
        Value::String(text) => out.push(OsString::from(text)),
        Value::Array(items) => items.iter().for_each(|v| collect_texts(v, out)),
        Value::Object(map) => map.iter().for_each(|(key, v)| {
            out.push(OsString::from(key));
            collect_texts(v, out);
        }),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn args(value: Value, known: &[&str]) -> Result<Args, ToolError> {
        match value {
            Value::Object(map) => Args::new(Some(map), known),
            _ => unreachable!("tests pass objects"),
        }
    }

    #[test]
    fn unknown_argument_is_named() {
        let err = args(json!({"query": "x", "limt": 3}), &["query", "limit"])
            .err()
            .unwrap();
        assert_eq!(err.message, "unknown argument \"limt\"");
    }

    #[test]
    fn unknown_argument_holding_a_secret_is_not_echoed() {
        let key = "AKIAIOSFODNN7EXAMPLF";
        let err = args(json!({ key: 1 }), &["query"]).err().unwrap();
        assert!(!err.message.contains(key), "{}", err.message);
        assert!(
            err.message.contains("looks like a secret"),
            "{}",
            err.message
        );
    }

    #[test]
    fn nul_in_a_text_argument_is_refused_naming_it() {
        let a = args(json!({"id": "a\u{0}b"}), &["id"]).unwrap();
        let err = a.required_text("id", MAX_TEXT_BYTES).unwrap_err();
        assert!(err.message.contains("\"id\""), "{}", err.message);
        assert!(err.message.contains("U+0000"), "{}", err.message);
    }

    #[test]
    fn escape_in_a_single_line_argument_is_refused() {
        let a = args(json!({"query": "x\u{1b}[31m"}), &["query"]).unwrap();
        assert!(a.text("query", MAX_TEXT_BYTES, false).is_err());
        let a = args(json!({"body": "line\nnext\tcol"}), &["body"]).unwrap();
        assert!(a.text("body", MAX_BODY_BYTES, true).unwrap().is_some());
    }

    #[test]
    fn huge_argument_is_refused_by_size_not_echoed() {
        let big = "a".repeat(MAX_TEXT_BYTES + 1);
        let a = args(json!({ "query": big }), &["query"]).unwrap();
        let err = a.text("query", MAX_TEXT_BYTES, false).unwrap_err();
        assert!(err.message.len() < 200, "{}", err.message);
        assert!(err.message.contains("\"query\""));
    }

    #[test]
    fn wrong_type_and_out_of_range_numbers_name_the_field() {
        let a = args(json!({"limit": -1, "query": 3}), &["limit", "query"]).unwrap();
        assert!(
            a.integer("limit", 1, 100)
                .unwrap_err()
                .message
                .contains("\"limit\"")
        );
        assert!(
            a.text("query", 10, false)
                .unwrap_err()
                .message
                .contains("\"query\"")
        );
        let a = args(json!({"limit": 1.5}), &["limit"]).unwrap();
        assert!(a.integer("limit", 1, 100).is_err());
    }
}
