//! The kinds of value a tool argument may hold, each deserialised from the
//! JSON value and checked as the CLI checks its own, and each with its JSON
//! Schema, so that what `tools/list` says is what the handlers accept.
//!
//! Every check's message is the end of a sentence that starts with the
//! argument's name (`args::parse` writes `argument "id"` before it), and
//! none repeats a value but through [`shown_value`]: serde's own messages
//! (`invalid type: string "AKIA…"`) would echo a secret, so no field here
//! leaves a message to serde.

use std::borrow::Cow;

use mdstore::{RecordType, Scope, Source};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{Deserialize, Deserializer, Error as _};
use serde_json::Value;

use super::args::shown_value;

/// The most bytes of any one text argument but a record's body or a
/// prompt: a query, an id, a description or a reason fits well within it.
pub const MAX_TEXT_BYTES: usize = 16 * 1024;

/// A record's body, or a prompt: records are at most 256 KiB (SPEC §2).
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// The most tags one record may be given here.
pub const MAX_TAGS: usize = 64;

/// The most ids one `show` reads.
pub const MAX_IDS: usize = 20;

/// The JSON value of an argument, which every field reads first: reading a
/// `Value` from a `Value` never fails, so every message is ours.
fn value_of<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    Value::deserialize(d)
}

/// A JSON type's name, for a message that never repeats the value.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A string of at most `max_bytes`, refused by its size before anything
/// reads it.
fn text(value: Value, max_bytes: usize) -> Result<String, String> {
    let Value::String(text) = value else {
        return Err(" must be a string".to_string());
    };
    if text.len() > max_bytes {
        return Err(format!(
            " is {} bytes; at most {max_bytes} are accepted",
            text.len()
        ));
    }
    Ok(text)
}

/// Refuses a control character, but a tab or a line break where
/// `multiline`.
fn no_controls(text: String, multiline: bool) -> Result<String, String> {
    match text
        .chars()
        .find(|&c| c.is_control() && !(multiline && matches!(c, '\n' | '\t' | '\r')))
    {
        Some(c) => Err(format!(
            " holds the control character U+{:04X}; it may not hold control characters",
            u32::from(c)
        )),
        None => Ok(text),
    }
}

/// A field type's schema: a plain JSON Schema object, inlined.
macro_rules! inline_schema {
    ($name:expr, $schema:expr) => {
        fn inline_schema() -> bool {
            true
        }

        fn schema_name() -> Cow<'static, str> {
            $name.into()
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            $schema
        }
    };
}

/// Text whose content the write guards judge (a record's name,
/// description, expiry), or a prompt, which is never echoed and of which
/// only the words are searched (any text, as the hook takes Claude Code's):
/// only its type and size are checked here.
#[derive(Clone, Debug)]
pub struct Text<const MAX: usize>(pub String);

impl<'de, const MAX: usize> Deserialize<'de> for Text<MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        text(value_of(d)?, MAX).map(Text).map_err(D::Error::custom)
    }
}

impl<const MAX: usize> JsonSchema for Text<MAX> {
    inline_schema!("Text", json_schema!({ "type": "string" }));
}

/// One line: no control character at all (an id, a reason).
#[derive(Clone, Debug)]
pub struct Line(pub String);

impl<'de> Deserialize<'de> for Line {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        text(value_of(d)?, MAX_TEXT_BYTES)
            .and_then(|t| no_controls(t, false))
            .map(Line)
            .map_err(D::Error::custom)
    }
}

impl JsonSchema for Line {
    inline_schema!("Line", json_schema!({ "type": "string" }));
}

/// Text that may span lines (a query pasted from a prompt): tabs and line
/// breaks, but no other control character.
#[derive(Clone, Debug)]
pub struct Lines(pub String);

impl<'de> Deserialize<'de> for Lines {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        text(value_of(d)?, MAX_TEXT_BYTES)
            .and_then(|t| no_controls(t, true))
            .map(Lines)
            .map_err(D::Error::custom)
    }
}

impl JsonSchema for Lines {
    inline_schema!("Lines", json_schema!({ "type": "string" }));
}

/// A whole number from `MIN` to `MAX`.
#[derive(Clone, Copy, Debug)]
pub struct Count<const MIN: u64, const MAX: u64>(pub u64);

impl<'de, const MIN: u64, const MAX: u64> Deserialize<'de> for Count<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match value_of(d)?.as_u64() {
            Some(n) if (MIN..=MAX).contains(&n) => Ok(Count(n)),
            _ if MAX == u64::MAX => Err(D::Error::custom(format!(
                " must be a whole number, at least {MIN}"
            ))),
            _ => Err(D::Error::custom(format!(
                " must be a whole number from {MIN} to {MAX}"
            ))),
        }
    }
}

impl<const MIN: u64, const MAX: u64> JsonSchema for Count<MIN, MAX> {
    inline_schema!("Count", {
        let mut schema = json_schema!({ "type": "integer", "minimum": MIN });
        if MAX < u64::MAX {
            schema.insert("maximum".into(), MAX.into());
        }
        schema
    });
}

/// `true` or `false`.
#[derive(Clone, Copy, Debug)]
pub struct Flag(pub bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match value_of(d)? {
            Value::Bool(b) => Ok(Flag(b)),
            other => Err(D::Error::custom(format!(
                " must be true or false, not {}",
                kind(&other)
            ))),
        }
    }
}

impl JsonSchema for Flag {
    inline_schema!("Flag", json_schema!({ "type": "boolean" }));
}

/// A list of at most `max` texts, each checked by `item`; the message
/// names the item by its place.
fn list<T>(
    value: Value,
    max: usize,
    item: impl Fn(Value) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let Value::Array(items) = value else {
        return Err(" must be a list of strings".to_string());
    };
    if items.len() > max {
        return Err(format!(
            " has {} items; at most {max} are accepted",
            items.len()
        ));
    }
    items
        .into_iter()
        .enumerate()
        .map(|(n, v)| item(v).map_err(|e| format!(": item {}{e}", n + 1)))
        .collect()
}

/// A record's tags: at most [`MAX_TAGS`] texts, whose content the write
/// guards judge.
#[derive(Clone, Debug)]
pub struct Tags(pub Vec<String>);

impl<'de> Deserialize<'de> for Tags {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        list(value_of(d)?, MAX_TAGS, |v| text(v, MAX_TEXT_BYTES))
            .map(Tags)
            .map_err(D::Error::custom)
    }
}

impl JsonSchema for Tags {
    inline_schema!(
        "Tags",
        json_schema!({ "type": "array", "items": { "type": "string" }, "maxItems": MAX_TAGS })
    );
}

/// The ids of one `show`: one to [`MAX_IDS`] lines.
#[derive(Clone, Debug)]
pub struct Ids(pub Vec<String>);

impl<'de> Deserialize<'de> for Ids {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let ids = list(value_of(d)?, MAX_IDS, |v| {
            no_controls(text(v, MAX_TEXT_BYTES)?, false)
        })
        .map_err(D::Error::custom)?;
        if ids.is_empty() {
            return Err(D::Error::custom(" is empty; give at least one id"));
        }
        Ok(Ids(ids))
    }
}

impl JsonSchema for Ids {
    inline_schema!(
        "Ids",
        json_schema!({
            "type": "array",
            "items": { "type": "string" },
            "minItems": 1,
            "maxItems": MAX_IDS,
        })
    );
}

/// A `read_hash` as `show` gives it: 64 hexadecimal digits.
#[derive(Clone, Debug)]
pub struct ReadHash(pub String);

impl<'de> Deserialize<'de> for ReadHash {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let hash = text(value_of(d)?, MAX_TEXT_BYTES).map_err(D::Error::custom)?;
        if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(D::Error::custom(
                " must be the read_hash that show gave: 64 hexadecimal digits",
            ));
        }
        Ok(ReadHash(hash.to_ascii_lowercase()))
    }
}

impl JsonSchema for ReadHash {
    inline_schema!(
        "ReadHash",
        json_schema!({ "type": "string", "pattern": "^[0-9a-fA-F]{64}$" })
    );
}

/// One of a few names: the schema's `enum` and the check are made from
/// the same list.
macro_rules! choice {
    (
        $(#[$doc:meta])* $name:ident($inner:ty) { $($text:literal => $value:expr),+ $(,)? }
        $(refused { $($bad:literal => $why:literal),+ $(,)? })?
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name(pub $inner);

        impl $name {
            const NAMES: &[&str] = &[$($text),+];

            fn from_name(name: &str) -> Option<$inner> {
                match name {
                    $($text => Some($value),)+
                    _ => None,
                }
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = text(value_of(d)?, MAX_TEXT_BYTES).map_err(D::Error::custom)?;
                $($(if name == $bad {
                    return Err(D::Error::custom($why));
                })+)?
                Self::from_name(&name).map($name).ok_or_else(|| {
                    D::Error::custom(format!(
                        ": unknown value {}: expected {}",
                        shown_value(&name),
                        Self::NAMES.join(", ")
                    ))
                })
            }
        }

        impl JsonSchema for $name {
            inline_schema!(
                stringify!($name),
                json_schema!({ "type": "string", "enum": Self::NAMES })
            );
        }
    };
}

choice! {
    /// A record's type.
    TypeArg(RecordType) {
        "user" => RecordType::User,
        "feedback" => RecordType::Feedback,
        "project" => RecordType::Project,
        "reference" => RecordType::Reference,
    }
}

choice! {
    /// The stores a read covers: one, or both (`None`).
    ReadScope(Option<Scope>) {
        "workspace" => Some(Scope::Workspace),
        "global" => Some(Scope::Global),
        "all" => None,
    }
}

choice! {
    /// The store a write goes to.
    WriteScope(Scope) {
        "workspace" => Scope::Workspace,
        "global" => Scope::Global,
    }
}

choice! {
    /// The trust an agent may claim for what it writes: never `user`.
    AgentSource(Source) {
        "verified" => Source::Verified,
        "inferred" => Source::Inferred,
    }
    refused {
        "user" => ": an agent may not write source user; use verified (checked against the code) or leave it out (inferred); a fact the user stated is recorded by the user with `memctl remember`",
    }
}
