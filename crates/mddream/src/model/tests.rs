use super::*;
use crate::plan::Operation;
use crate::records;

fn store_with(records: &[(&str, &str, &str)]) -> (tempfile::TempDir, Vec<DreamRecord>) {
    let dir = tempfile::tempdir().unwrap();
    for (id, kind, body) in records {
        std::fs::write(
            dir.path().join(format!("{id}.md")),
            format!("---\nname: {id}\ndescription: about {id}\ntype: {kind}\n---\n{body}\n"),
        )
        .unwrap();
    }
    let store = mdstore::Store::open(dir.path()).unwrap();
    let loaded = records::load(&store, Scope::Workspace);
    (dir, loaded.records)
}

const LIMITS: Limits = Limits {
    max_delete_pct: 25.0,
};

#[test]
fn small_store_is_one_call_with_every_record_as_data() {
    let (_dir, records) = store_with(&[("a", "user", "x"), ("b", "project", "y")]);
    let inputs = inputs(
        &records,
        &[],
        &LIMITS,
        "2026-01-01",
        DEFAULT_MAX_INPUT_CHARS,
    )
    .unwrap();
    assert_eq!(inputs.len(), 1);
    let value: serde_json::Value = serde_json::from_str(&inputs[0]).unwrap();
    assert_eq!(value["records"].as_array().unwrap().len(), 2);
    assert!(value["instructions"][0].as_str().unwrap().contains("DATA"));
    // The plan's JSON Schema goes with it, for runners that constrain their output.
    assert_eq!(value["answer_schema"]["title"], "Plan");
    assert_eq!(value["answer_schema"], answer_schema());
}

#[test]
fn store_too_large_for_one_call_is_split_by_type_keeping_related_records_together() {
    let body = "z".repeat(300);
    let specs: Vec<(String, &str)> = (0..12)
        .map(|i| {
            (
                format!("r{i:02}"),
                if i % 2 == 0 { "user" } else { "project" },
            )
        })
        .collect();
    let refs: Vec<(&str, &str, &str)> = specs
        .iter()
        .map(|(id, k)| (id.as_str(), *k, body.as_str()))
        .collect();
    let (_dir, records) = store_with(&refs);
    let base = inputs(&records, &[], &LIMITS, "d", usize::MAX).unwrap()[0]
        .chars()
        .count()
        - records.len() * 400;
    // Room for about three records a call.
    let limit = base + 3 * 420;
    let related = vec![vec![0, 10]]; // r00 and r10, both user
    let batches = inputs(&records, &related, &LIMITS, "d", limit).unwrap();
    assert!(batches.len() >= 4, "{}", batches.len());
    let mut seen = Vec::new();
    for batch in &batches {
        assert!(batch.chars().count() <= limit);
        let value: serde_json::Value = serde_json::from_str(batch).unwrap();
        let ids: Vec<String> = value["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        let types: std::collections::BTreeSet<&str> = value["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["type"].as_str().unwrap())
            .collect();
        assert_eq!(types.len(), 1, "a batch mixes types: {ids:?}");
        if ids.contains(&"r00".to_string()) {
            assert!(
                ids.contains(&"r10".to_string()),
                "related records split: {ids:?}"
            );
        }
        seen.extend(ids);
    }
    seen.sort();
    assert_eq!(
        seen.len(),
        12,
        "every record is sent exactly once: {seen:?}"
    );
    seen.dedup();
    assert_eq!(seen.len(), 12);
}

#[test]
fn record_over_the_limit_alone_is_refused_not_truncated() {
    let big = "x".repeat(5000);
    let (_dir, records) = store_with(&[("small", "user", "x"), ("huge", "user", big.as_str())]);
    let err = inputs(&records, &[], &LIMITS, "d", 4000).unwrap_err();
    assert_eq!(err.record.id, "huge");
    assert!(err.to_string().contains("refused, not truncated"), "{err}");
}

#[test]
fn answer_origin_is_forced_to_model() {
    let plan = parse_answer(r#"{"version":1,"origin":"rules","operations":[]}"#).unwrap();
    assert_eq!(plan.origin, Origin::Model);
    let plan = parse_answer("```json\n{\"operations\":[]}\n```\n").unwrap();
    assert!(plan.operations.is_empty());
}

#[test]
fn answer_that_is_not_a_plan_says_why() {
    assert!(matches!(
        parse_answer("Sure! Here is"),
        Err(AnswerError::NotJson { .. })
    ));
    assert!(matches!(parse_answer("  "), Err(AnswerError::Empty)));
    assert!(matches!(parse_answer("[1]"), Err(AnswerError::NotAnObject)));
    assert!(matches!(
        parse_answer(r#"{"version":9}"#),
        Err(AnswerError::Version { found: 9 })
    ));
    let err = parse_answer(r#"{"operations":[{"op":"explode"}]}"#).unwrap_err();
    assert!(err.to_string().contains("explode"), "{err}");
}

#[test]
fn related_groups_follow_operations_and_supersession() {
    let (_dir, records) = store_with(&[("a", "user", "x"), ("b", "user", "y"), ("c", "user", "z")]);
    let mut plan = Plan::new(Origin::Rules);
    plan.operations.push(Operation::Retire {
        finding: crate::plan::Finding::Correction,
        reason: "r".into(),
        reads: records[0].reference(),
        superseded_by: Some(records[2].reference()),
    });
    assert_eq!(related_groups(&plan, &records), vec![vec![0, 2]]);
}

#[test]
fn a_record_with_a_secret_in_any_field_sent_is_withheld_naming_field_and_rule() {
    let key = ["AKIA", "IOSFODNN7EXAMPLF"].concat();
    let dir = tempfile::tempdir().unwrap();
    let write = |id: &str, text: String| std::fs::write(dir.path().join(format!("{id}.md")), text);
    let head = |id: &str| format!("---\nname: {id}\ntype: project\n");
    write(
        "plain",
        format!("{}description: fine\n---\nNothing.\n", head("plain")),
    )
    .unwrap();
    write(
        "in-body",
        format!("{}description: fine\n---\nkey {key}\n", head("in-body")),
    )
    .unwrap();
    write(
        "in-description",
        format!("{}description: key {key}\n---\nx\n", head("in-description")),
    )
    .unwrap();
    write(
        "in-tags",
        format!(
            "{}description: fine\ntags: [ok, \"{key}\"]\n---\nx\n",
            head("in-tags")
        ),
    )
    .unwrap();
    let store = mdstore::Store::open(dir.path()).unwrap();
    let loaded = records::load(&store, Scope::Workspace);
    let found: Vec<(String, Option<(String, &str)>)> = loaded
        .records
        .iter()
        .map(|r| {
            let why = withheld(r).map(|w| (w.field, w.rule));
            (r.record.id.clone(), why)
        })
        .collect();
    let rule = "aws-access-key-id";
    assert_eq!(
        found,
        [
            ("in-body".to_string(), Some(("body".to_string(), rule))),
            (
                "in-description".to_string(),
                Some(("description".to_string(), rule))
            ),
            ("in-tags".to_string(), Some(("tags".to_string(), rule))),
            ("plain".to_string(), None),
        ]
    );
}
