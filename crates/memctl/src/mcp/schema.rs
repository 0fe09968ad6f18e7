//! The tools as an MCP client sees them: names, descriptions and input
//! schemas. The schemas say what the handlers check; the handlers check it
//! again, since a client need not validate.

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use super::read::MAX_LIMIT;

pub fn tools() -> Vec<Tool> {
    vec![
        tool(
            "search",
            "Search memory (workspace and global stores). Free text ranked by relevance; \"exact phrase\", +must, -mustnot, prefix*, and the filters type:T, tag:X, scope:S. Returns each hit's id, type, scope, description, snippet, score, age_days and revision.",
            json!({
                "query": {"type": "string", "description": "what to look for"},
                "scope": {"type": "string", "enum": ["workspace", "global", "all"]},
                "type": {"type": "string", "enum": ["user", "feedback", "project", "reference"]},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 10},
            }),
            &["query"],
            true,
        ),
        tool(
            "show",
            "Read one record whole by id: its body, metadata and revision (forget needs the revision).",
            json!({"id": {"type": "string"}}),
            &["id"],
            true,
        ),
        tool(
            "list",
            "List the records' headers (id, type, description, revision), optionally of one type or scope.",
            json!({
                "type": {"type": "string", "enum": ["user", "feedback", "project", "reference"]},
                "scope": {"type": "string", "enum": ["workspace", "global", "all"]},
            }),
            &[],
            true,
        ),
        tool(
            "remember",
            "Propose one memory: a durable fact, preference or decision, never a secret or something true only for this task. Classified and answered as ADD, UPDATE, NOOP or REFUSED with the reason; nothing asks for confirmation. Written with source inferred unless you pass verified (checked against the code). expect_revision makes an update a compare-and-swap.",
            json!({
                "name": {"type": "string", "description": "the record's id: lower case words joined by -"},
                "type": {"type": "string", "enum": ["user", "feedback", "project", "reference"]},
                "description": {"type": "string", "description": "one line: the retrieval key"},
                "body": {"type": "string"},
                "scope": {"type": "string", "enum": ["workspace", "global"]},
                "source": {"type": "string", "enum": ["verified", "inferred"]},
                "expires": {"type": "string", "description": "a date (2026-12-31) or an RFC 3339 time"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "expect_revision": {"type": "integer", "minimum": 1},
            }),
            &["name"],
            false,
        ),
        tool(
            "forget",
            "Forget one record, leaving a tombstone so that it is not re-added. Pass the revision that show or search gave you: a record that changed since you read it is not forgotten.",
            json!({
                "id": {"type": "string"},
                "revision": {"type": "integer", "minimum": 1},
                "reason": {"type": "string"},
                "scope": {"type": "string", "enum": ["workspace", "global"]},
            }),
            &["id", "revision"],
            false,
        ),
    ]
}

fn tool(
    name: &'static str,
    description: &'static str,
    properties: Value,
    required: &[&str],
    read_only: bool,
) -> Tool {
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), properties);
    schema.insert("required".into(), json!(required));
    schema.insert("additionalProperties".into(), json!(false));
    let mut annotations = ToolAnnotations::new();
    annotations.read_only_hint = Some(read_only);
    annotations.destructive_hint = Some(name == "forget");
    let mut tool = Tool::new(name, description, schema);
    tool.annotations = Some(annotations);
    tool
}
