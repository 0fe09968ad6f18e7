//! A tool call's arguments, checked as the CLI checks its own: an unknown
//! field, a missing one, a wrong type, a control character or a value too
//! large is an error naming the field, and never echoes a secret.

use std::ffi::OsString;

use mdstore::escape::for_message;
use mdstore::guard::secrets::{quoted_or_hidden, secret_note};
use rmcp::handler::server::tool::schema_for_input;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
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

/// A tool's arguments as its typed parameters ([`Params`]). What is
/// checked before serde sees them comes from the same JSON Schema that
/// `tools/list` gives: a field the schema does not list is refused by name
/// (hidden if it looks like a secret), and so is a missing required one;
/// then each field's own type checks its value (`fields`), and its
/// message is completed with the field's name.
pub fn parse<P: Params>(arguments: Option<Map<String, Value>>) -> Result<P, ToolError> {
    let map = arguments.unwrap_or_default();
    let schema = schema_for_input::<P>().map_err(ToolError::new)?;
    let listed: Vec<&str> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    if let Some(unknown) = map.keys().find(|key| !listed.contains(&key.as_str())) {
        return Err(
            ToolError::new(format!("unknown argument {}", shown_value(unknown)))
                .with_hint(format!("this tool takes {}", listed.join(", "))),
        );
    }
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    for field in required {
        if map.get(field).is_none_or(Value::is_null) {
            let error = ToolError::new(format!("argument {field:?} is required"));
            return Err(match P::missing_hint(field) {
                Some(hint) => error.with_hint(hint),
                None => error,
            });
        }
    }
    serde_path_to_error::deserialize(Value::Object(map)).map_err(|e| {
        let field = e.path().to_string();
        let problem = e.into_inner().to_string();
        ToolError::new(format!("argument {field:?}{problem}"))
    })
}

/// A tool's parameters: one struct, its schema derived, unknown fields
/// denied.
pub trait Params: DeserializeOwned + JsonSchema + 'static {
    /// What to do about a required argument left out, beyond giving it.
    fn missing_hint(_field: &str) -> Option<&'static str> {
        None
    }
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
