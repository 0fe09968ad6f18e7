//! Each tool's parameters, one struct a tool: the input schema of
//! `tools/list` is derived from it (the doc comments are the properties'
//! descriptions), and the handler reads nothing else.

use schemars::JsonSchema;
use serde::Deserialize;

use super::args::Params;
use super::fields::{
    AgentSource, Count, Flag, Ids, Line, Lines, MAX_BODY_BYTES, MAX_TEXT_BYTES, ReadHash,
    ReadScope, Tags, Text, TypeArg, WriteScope,
};

/// The most hits one search returns.
pub const MAX_LIMIT: u64 = 100;

/// The most records one `context` call recalls.
pub const MAX_RECALLED: u64 = 20;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// What to look for: free text, "exact phrase", +must, -mustnot,
    /// prefix*, and the filters type:T, tag:X, scope:S. It may span lines.
    pub query: Lines,
    /// Which stores to search (default: every store the server reads).
    pub scope: Option<ReadScope>,
    /// Only records of this type.
    #[serde(rename = "type")]
    pub record_type: Option<TypeArg>,
    /// The most hits to return (default 10).
    pub limit: Option<Count<1, MAX_LIMIT>>,
}

impl Params for SearchParams {}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowParams {
    /// The ids to read, as search and list give them (one to twenty).
    pub ids: Ids,
}

impl Params for ShowParams {}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// Only records of this type.
    #[serde(rename = "type")]
    pub record_type: Option<TypeArg>,
    /// Which stores to list (default: every store the server reads).
    pub scope: Option<ReadScope>,
}

impl Params for ListParams {}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextParams {
    /// The user's message, as they wrote it: the records relevant to it
    /// are recalled.
    pub prompt: Text<MAX_BODY_BYTES>,
    /// True on the first turn of a conversation: the stores' MEMORY.md
    /// come too, and records shown before may be shown again.
    pub session_start: Option<Flag>,
    /// The most records to recall (default 5).
    pub max: Option<Count<1, MAX_RECALLED>>,
}

impl Params for ContextParams {}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RememberParams {
    /// The record's id: lower case words joined by -.
    pub name: Text<MAX_TEXT_BYTES>,
    #[serde(rename = "type")]
    pub record_type: Option<TypeArg>,
    /// One line: the retrieval key.
    pub description: Option<Text<MAX_TEXT_BYTES>>,
    /// The fact, in Markdown.
    pub body: Option<Text<MAX_BODY_BYTES>>,
    /// The store to write to (default: the server's).
    pub scope: Option<WriteScope>,
    /// verified when you checked it against the code; inferred otherwise
    /// (the default).
    pub source: Option<AgentSource>,
    /// When it stops holding: a date (2026-12-31) or an RFC 3339 time.
    pub expires: Option<Text<MAX_TEXT_BYTES>>,
    pub tags: Option<Tags>,
    /// The revision show gave: an update is written only if the record is
    /// still at it.
    pub expect_revision: Option<Count<1, { u64::MAX }>>,
}

impl Params for RememberParams {}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgetParams {
    /// The record's id.
    pub id: Line,
    /// The revision show gave.
    pub revision: Count<1, { u64::MAX }>,
    /// The read_hash show gave: the record is forgotten only if it still
    /// says what you read.
    pub read_hash: ReadHash,
    /// Why it no longer holds; kept in the tombstone.
    pub reason: Option<Line>,
    /// The store it is in (default: the server's).
    pub scope: Option<WriteScope>,
}

impl Params for ForgetParams {
    fn missing_hint(field: &str) -> Option<&'static str> {
        matches!(field, "revision" | "read_hash").then_some(
            "show the record first and pass the revision and read_hash it gives: a record is forgotten only by one who read it",
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::super::args::{ToolError, parse};
    use super::super::fields::MAX_TEXT_BYTES;
    use super::*;

    fn map(value: Value) -> Option<Map<String, Value>> {
        match value {
            Value::Object(map) => Some(map),
            _ => unreachable!("tests pass objects"),
        }
    }

    fn error<P: Params + std::fmt::Debug>(value: Value) -> ToolError {
        parse::<P>(map(value)).unwrap_err()
    }

    #[test]
    fn unknown_argument_is_named_with_the_fields_the_tool_takes() {
        let err = error::<SearchParams>(json!({"query": "x", "limt": 3}));
        assert_eq!(err.message, "unknown argument \"limt\"");
        assert_eq!(
            err.hint.as_deref(),
            Some("this tool takes query, scope, type, limit")
        );
    }

    #[test]
    fn unknown_argument_holding_a_secret_is_not_echoed() {
        let key = "AKIAIOSFODNN7EXAMPLF";
        let err = error::<SearchParams>(json!({ "query": "x", key: 1 }));
        assert!(!err.message.contains(key), "{}", err.message);
        assert!(
            err.message.contains("looks like a secret"),
            "{}",
            err.message
        );
    }

    #[test]
    fn nul_in_a_text_argument_is_refused_naming_it() {
        let err = error::<ForgetParams>(
            json!({"id": "a\u{0}b", "revision": 1, "read_hash": "0".repeat(64)}),
        );
        assert_eq!(
            err.message,
            "argument \"id\" holds the control character U+0000; it may not hold control characters"
        );
    }

    #[test]
    fn escape_in_a_query_is_refused_but_tabs_and_line_breaks_are_text() {
        let err = error::<SearchParams>(json!({"query": "x\u{1b}[31m"}));
        assert!(err.message.contains("U+001B"), "{}", err.message);
        let ok = parse::<SearchParams>(map(json!({"query": "line\nnext\tcol"}))).unwrap();
        assert_eq!(ok.query.0, "line\nnext\tcol");
    }

    #[test]
    fn huge_argument_is_refused_by_size_not_echoed() {
        let big = "a".repeat(MAX_TEXT_BYTES + 1);
        let err = error::<SearchParams>(json!({ "query": big }));
        assert!(err.message.len() < 200, "{}", err.message);
        assert!(err.message.starts_with("argument \"query\" is 16385 bytes"));
    }

    #[test]
    fn wrong_types_and_out_of_range_numbers_name_the_field_never_the_value() {
        let key = "AKIAIOSFODNN7EXAMPLF";
        for (value, expected) in [
            (json!({"query": 3}), "argument \"query\" must be a string"),
            (
                json!({"query": "x", "limit": -1}),
                "argument \"limit\" must be a whole number from 1 to 100",
            ),
            (
                json!({"query": "x", "limit": 1.5}),
                "argument \"limit\" must be a whole number from 1 to 100",
            ),
            (
                json!({"query": "x", "limit": key}),
                "argument \"limit\" must be a whole number from 1 to 100",
            ),
            (
                json!({"query": "x", "type": key}),
                "argument \"type\": unknown value <hidden: looks like a secret (rule aws-access-key-id)>: expected user, feedback, project, reference",
            ),
        ] {
            assert_eq!(error::<SearchParams>(value).message, expected);
        }
        let err = error::<ContextParams>(json!({"prompt": "p", "session_start": key}));
        assert_eq!(
            err.message,
            "argument \"session_start\" must be true or false, not a string"
        );
    }

    #[test]
    fn a_missing_or_null_required_argument_is_named() {
        assert_eq!(
            error::<SearchParams>(json!({})).message,
            "argument \"query\" is required"
        );
        let err = error::<ForgetParams>(json!({"id": "x", "revision": null}));
        assert_eq!(err.message, "argument \"revision\" is required");
        assert!(err.hint.unwrap().contains("show the record first"));
        let err = error::<ForgetParams>(json!({"id": "x", "revision": 1}));
        assert_eq!(err.message, "argument \"read_hash\" is required");
    }

    #[test]
    fn lists_name_the_item_and_refuse_too_many() {
        let err = error::<ShowParams>(json!({"ids": ["a", "b\u{1b}"]}));
        assert_eq!(
            err.message,
            "argument \"ids\": item 2 holds the control character U+001B; it may not hold control characters"
        );
        let err = error::<ShowParams>(json!({"ids": []}));
        assert_eq!(
            err.message,
            "argument \"ids\" is empty; give at least one id"
        );
        let many: Vec<String> = (0..21).map(|n| n.to_string()).collect();
        let err = error::<ShowParams>(json!({ "ids": many }));
        assert_eq!(
            err.message,
            "argument \"ids\" has 21 items; at most 20 are accepted"
        );
        let err = error::<RememberParams>(json!({"name": "n", "tags": "one"}));
        assert_eq!(err.message, "argument \"tags\" must be a list of strings");
    }

    #[test]
    fn an_agent_claiming_source_user_is_told_why_not() {
        let err = error::<RememberParams>(json!({"name": "n", "source": "user"}));
        assert!(
            err.message
                .starts_with("argument \"source\": an agent may not write source user"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_read_hash_is_64_hex_digits() {
        let err = error::<ForgetParams>(json!({"id": "x", "revision": 1, "read_hash": "abc"}));
        assert!(
            err.message.contains("64 hexadecimal digits"),
            "{}",
            err.message
        );
        let ok = parse::<ForgetParams>(map(
            json!({"id": "x", "revision": 1, "read_hash": "AB".repeat(32)}),
        ))
        .unwrap();
        assert_eq!(ok.read_hash.0, "ab".repeat(32));
    }
}
