//! docs/dream-plan.schema.json is the JSON Schema of [`crate::plan::Plan`],
//! derived from the types (schemars, with their serde attributes and doc
//! comments): a test fails when the file and the types disagree, and
//! example plans of the rules and of a model are checked against the file.

use serde_json::{Value, json};

use crate::plan::{
    DroppedFact, Finding, LeftAlone, NewRecord, Operation, Origin, Plan, RecordRef, Scope,
};

const SCHEMA_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../docs/dream-plan.schema.json"
);

fn derived_schema() -> String {
    let schema = schemars::schema_for!(Plan);
    let mut text = serde_json::to_string_pretty(&schema).unwrap();
    text.push('\n');
    text
}

#[test]
fn docs_schema_matches_the_plan_types() {
    let derived = derived_schema();
    let on_disk = std::fs::read_to_string(SCHEMA_FILE).unwrap_or_default();
    assert!(
        on_disk == derived,
        "docs/dream-plan.schema.json differs from the plan types; if the types are right, run \
         cargo test -p mddream write_docs_schema -- --ignored and review the diff"
    );
}

/// Rewrites docs/dream-plan.schema.json from the types. Run by hand, not an
/// environment switch: the engine crates read no environment (issue 26).
#[test]
#[ignore = "a tool, not a check: writes docs/dream-plan.schema.json; run by hand after changing the plan types"]
fn write_docs_schema() {
    std::fs::write(SCHEMA_FILE, derived_schema()).unwrap();
}

fn reference(scope: Scope, id: &str) -> RecordRef {
    RecordRef {
        scope,
        id: id.to_string(),
        revision: 1,
    }
}

/// A rules' plan with every kind of operation and field.
fn rules_plan() -> Plan {
    let into = NewRecord {
        name: "tooling".to_string(),
        record_type: "project".to_string(),
        description: "Package manager".to_string(),
        body: "We use pnpm.\n".to_string(),
        tags: vec!["node".to_string()],
        expires: Some("2027-01-01".to_string()),
    };
    Plan {
        operations: vec![
            Operation::Merge {
                finding: Finding::ExactDuplicate,
                reason: "same text".to_string(),
                reads: vec![
                    reference(Scope::Workspace, "a"),
                    reference(Scope::Workspace, "b"),
                ],
                into: into.clone(),
                drops: vec![DroppedFact {
                    id: "a".to_string(),
                    fact: "We used npm.".to_string(),
                    why: "corrected by b".to_string(),
                }],
            },
            Operation::Update {
                finding: Finding::Correction,
                reason: "newer value".to_string(),
                reads: reference(Scope::Global, "node"),
                record: NewRecord {
                    name: "node".to_string(),
                    ..into
                },
                drops: Vec::new(),
            },
            Operation::Retire {
                finding: Finding::Expired,
                reason: "expired on 2026-01-01".to_string(),
                reads: reference(Scope::Workspace, "freeze"),
                superseded_by: Some(reference(Scope::Workspace, "thaw")),
            },
        ],
        left_alone: vec![LeftAlone {
            finding: Finding::OverBudget,
            reason: "MEMORY.md is over its budget".to_string(),
            records: vec![reference(Scope::Workspace, "a")],
        }],
        ..Plan::new(Origin::Rules)
    }
}

/// A plan as a model command answers it: JSON text, fields left out.
fn model_answer() -> Value {
    json!({
        "version": 1,
        "origin": "model",
        "operations": [
            {"op": "retire", "finding": "model", "reason": "duplicate",
             "reads": {"scope": "workspace", "id": "x", "revision": 3}, "superseded_by": null},
            {"op": "merge", "finding": "near-duplicate", "reason": "same fact",
             "reads": [{"scope": "global", "id": "p", "revision": 1},
                       {"scope": "global", "id": "q", "revision": 2}],
             "into": {"name": "pq", "type": "user", "description": "d", "body": "b\n"}}
        ]
    })
}

fn schema() -> Value {
    serde_json::from_str(&std::fs::read_to_string(SCHEMA_FILE).unwrap()).unwrap()
}

/// The keywords the derived schema uses: [`conforms`] knows each of them,
/// and a schema using any other would not be checked fully.
const KEYWORDS: [&str; 17] = [
    "$schema",
    "title",
    "description",
    "$defs",
    "$ref",
    "type",
    "format",
    "enum",
    "const",
    "oneOf",
    "anyOf",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minimum",
    "default",
];

/// Whether `value` conforms to `schema` (a JSON Schema using only
/// [`KEYWORDS`]), `root` holding the `$defs`. A small validator rather than
/// a crate: the JSON Schema crates take minutes to build on CI's machines.
fn conforms(value: &Value, schema: &Value, root: &Value) -> bool {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/$defs/");
        return conforms(value, &root["$defs"][name], root);
    }
    let one_of = |key: &str| {
        schema[key]
            .as_array()
            .map(|options| options.iter().filter(|s| conforms(value, s, root)).count())
    };
    if one_of("oneOf").is_some_and(|n| n != 1) || one_of("anyOf").is_some_and(|n| n == 0) {
        return false;
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let type_ok = types.is_empty()
        || types.iter().any(|t| match *t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "null" => value.is_null(),
            _ => false,
        });
    let enum_ok = schema["enum"].as_array().is_none_or(|e| e.contains(value));
    let const_ok = schema.get("const").is_none_or(|c| c == value);
    let minimum_ok = schema["minimum"]
        .as_f64()
        .is_none_or(|m| value.as_f64().is_none_or(|v| v >= m));
    type_ok
        && enum_ok
        && const_ok
        && minimum_ok
        && object_conforms(value, schema, root)
        && schema.get("items").is_none_or(|items| {
            value
                .as_array()
                .is_none_or(|a| a.iter().all(|v| conforms(v, items, root)))
        })
}

fn object_conforms(value: &Value, schema: &Value, root: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return true;
    };
    let properties = schema["properties"].as_object();
    let required = schema["required"].as_array().into_iter().flatten();
    required
        .filter_map(Value::as_str)
        .all(|key| object.contains_key(key))
        && object
            .iter()
            .all(|(key, v)| match properties.and_then(|p| p.get(key)) {
                Some(property) => conforms(v, property, root),
                None => schema["additionalProperties"] != Value::Bool(false),
            })
}

fn valid(value: &Value) -> bool {
    let root = schema();
    conforms(value, &root, &root)
}

#[test]
fn schema_uses_only_keywords_the_check_knows() {
    fn keys(schema: &Value, found: &mut Vec<String>) {
        match schema {
            Value::Object(map) => {
                for (key, value) in map {
                    found.push(key.clone());
                    match key.as_str() {
                        // Names of definitions and properties, not keywords.
                        "$defs" | "properties" => value
                            .as_object()
                            .into_iter()
                            .flatten()
                            .for_each(|(_, v)| keys(v, found)),
                        "enum" | "const" | "required" | "default" => {}
                        _ => keys(value, found),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| keys(v, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    keys(&schema(), &mut found);
    let unknown: Vec<&String> = found
        .iter()
        .filter(|k| !KEYWORDS.contains(&k.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "teach conforms() these keywords: {unknown:?}"
    );
}

#[test]
fn rules_and_model_plans_validate_against_the_schema() {
    let rules = serde_json::to_value(rules_plan()).unwrap();
    assert!(valid(&rules), "{rules}");
    let answer = model_answer();
    assert!(valid(&answer), "{answer}");
    // And the types read what the schema accepts.
    let plan: Plan = serde_json::from_value(answer).unwrap();
    assert_eq!(plan.operations.len(), 2);
}

#[test]
fn schema_refuses_what_the_types_refuse() {
    let mut wrong = Vec::new();
    let mut unknown_field = model_answer();
    unknown_field["operations"][0]["note"] = json!("x");
    wrong.push(unknown_field);
    let mut unknown_op = model_answer();
    unknown_op["operations"][0]["op"] = json!("delete");
    wrong.push(unknown_op);
    let mut unknown_scope = model_answer();
    unknown_scope["operations"][0]["reads"]["scope"] = json!("team");
    wrong.push(unknown_scope);
    let mut no_reads = model_answer();
    no_reads["operations"][1]
        .as_object_mut()
        .unwrap()
        .remove("reads");
    wrong.push(no_reads);
    let mut negative_revision = model_answer();
    negative_revision["operations"][0]["reads"]["revision"] = json!(-1);
    wrong.push(negative_revision);
    for plan in wrong {
        assert!(!valid(&plan), "the schema accepts {plan}");
        assert!(
            serde_json::from_value::<Plan>(plan.clone()).is_err(),
            "the types accept {plan}"
        );
    }
}
