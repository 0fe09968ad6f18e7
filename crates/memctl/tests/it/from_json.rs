//! `memctl remember --from-json`: an agent's candidates, each classified and
//! reported, the exit code that of the first refusal (SPEC §6).

use std::fs;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::env::TestEnv;
use crate::remember::fake_github_token;

fn write_json(env: &TestEnv, name: &str, value: &Value) -> String {
    let path = env.root().join(name);
    fs::write(&path, serde_json::to_string_pretty(value).expect("json"))
        .expect("the candidates file");
    path.display().to_string()
}

fn statuses(run: &crate::env::Run) -> Vec<(String, String, u64)> {
    let rows: Vec<Value> =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}:\n{}", run.render()));
    rows.iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or_default().to_string(),
                r["status"].as_str().unwrap_or_default().to_string(),
                r["exit_code"].as_u64().unwrap_or(99),
            )
        })
        .collect()
}

#[test]
fn mixed_candidates_are_each_reported_and_the_first_refusal_sets_the_exit_code() {
    let env = TestEnv::new();
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    env.remember(
        "old-ci",
        "project",
        "CI ran on Jenkins",
        "Jenkins at ci.example.org.",
    );
    env.run(&[
        "forget",
        "--yes",
        "--reason",
        "moved to GitHub Actions",
        "old-ci",
    ])
    .assert_success();
    let file = write_json(
        &env,
        "candidates.json",
        &json!([
            {"name": "ci-cache", "type": "project", "description": "CI caches the cargo registry", "body": "Keyed on Cargo.lock."},
            {"name": "pytest-again", "type": "feedback", "description": "Tests use pytest", "body": "New tests use pytest."},
            {"name": "api-token", "type": "reference", "description": "The API token", "body": format!("token {}", fake_github_token())},
            {"name": "old-ci", "type": "project", "description": "CI runs on Jenkins", "body": "Jenkins again."},
            {"name": "dev-port", "type": "project", "description": "Dev port", "body": "For now use port 8080."},
            {"name": "user-editor", "type": "user", "description": "The user edits with helix", "body": "Helix.", "source": "verified", "tags": ["editor"]}
        ]),
    );
    let run = env
        .remembering_unnamed()
        .candidates_from(&file)
        .arg("--json")
        .run();
    run.assert_code(2);
    assert_eq!(
        statuses(&run),
        [
            ("ci-cache".to_string(), "saved".to_string(), 0),
            ("pytest-again".to_string(), "noop".to_string(), 0),
            ("api-token".to_string(), "refused".to_string(), 2),
            ("old-ci".to_string(), "refused".to_string(), 4),
            ("dev-port".to_string(), "refused".to_string(), 2),
            ("user-editor".to_string(), "saved".to_string(), 0),
        ]
    );
    assert!(
        !run.all_output().contains(&fake_github_token()),
        "{}",
        run.render()
    );
    assert_run_snapshot!(env, run);
    assert!(env.store().join("ci-cache.md").is_file());
    assert!(env.store().join("user-editor.md").is_file());
    for refused in [
        "api-token.md",
        "old-ci.md",
        "dev-port.md",
        "pytest-again.md",
    ] {
        assert!(!env.store().join(refused).exists(), "{refused} was written");
    }
    let ci = env.read_store_file("ci-cache.md");
    assert!(
        ci.contains("source: inferred\n"),
        "an agent's proposal is inferred by default: {ci}"
    );
    assert!(
        env.read_store_file("user-editor.md")
            .contains("source: verified\n")
    );
}

#[test]
fn the_text_report_names_each_outcome() {
    let env = TestEnv::new();
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    let file = write_json(
        &env,
        "candidates.json",
        &json!([
            {"name": "pytest-again", "type": "feedback", "description": "Tests use pytest", "body": "New tests use pytest."},
            {"name": "prefer-pytest", "type": "feedback", "description": "Tests use unittest", "body": "Lower trust."},
            {"name": "ci-cache", "type": "project", "description": "CI caches cargo", "body": "Keyed on Cargo.lock."}
        ]),
    );
    let run = env.remembering_unnamed().candidates_from(&file).run();
    run.assert_code(4);
    assert_run_snapshot!(env, run);
}

#[test]
fn every_candidate_stored_or_noop_exits_0() {
    let env = TestEnv::new();
    let candidates = json!([
        {"name": "a", "type": "project", "description": "Fact a", "body": "A."},
        {"name": "b", "type": "project", "description": "Fact b", "body": "B."}
    ]);
    let file = write_json(&env, "candidates.json", &candidates);
    env.remembering_unnamed().candidates_from(&file).ok();
    let again = env
        .remembering_unnamed()
        .candidates_from(&file)
        .arg("--json")
        .run();
    again.assert_success();
    assert_eq!(
        statuses(&again),
        [
            ("a".to_string(), "noop".to_string(), 0),
            ("b".to_string(), "noop".to_string(), 0)
        ]
    );
}

#[test]
fn candidates_from_standard_input() {
    let env = TestEnv::new();
    let run = env.remembering_unnamed().candidates_from("-").stdin(r#"[{"name": "ci-cache", "type": "project", "description": "CI caches cargo", "body": "Keyed on Cargo.lock."}]"#).run();
    run.assert_success();
    assert!(env.store().join("ci-cache.md").is_file());
}

#[test]
fn without_yes_nothing_is_written() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    let file = write_json(
        &env,
        "candidates.json",
        &json!([{"name": "ci-cache", "type": "project", "description": "CI caches cargo", "body": "Keyed."}]),
    );
    let run = env
        .remembering_unnamed()
        .candidates_from(&file)
        .asking()
        .run();
    run.assert_code(3);
    assert!(run.stderr.contains("--yes"), "{}", run.render());
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn malformed_json_names_file_line_and_column() {
    let env = TestEnv::new();
    let path = env.root().join("broken.json");
    fs::write(&path, "[\n  {\"name\": \"a\", \"type\": \"project\",\n   \"description\": \"x\" \"body\": \"y\"}\n]\n")
        .expect("file");
    let before = env.store_bytes();
    let run = env
        .remembering_unnamed()
        .candidates_from(&path.display().to_string())
        .run();
    run.assert_code(2);
    assert!(
        run.stderr.contains(&format!("{}:3:", path.display())),
        "{}",
        run.render()
    );
    assert_run_snapshot!(env, run);
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn wrong_shapes_and_values_are_bad_input() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    let cases = [
        (
            "unknown-key.json",
            json!([{"name": "a", "type": "project", "description": "d", "body": "b", "colour": "red"}]),
            "colour",
        ),
        (
            "bad-type.json",
            json!([{"name": "a", "type": "opinion", "description": "d", "body": "b"}]),
            "opinion",
        ),
        (
            "bad-scope.json",
            json!([{"name": "a", "type": "project", "description": "d", "body": "b", "scope": "team"}]),
            "team",
        ),
        (
            "bad-name.json",
            json!([{"name": "../a", "type": "project", "description": "d", "body": "b"}]),
            "invalid name",
        ),
        (
            "not-a-list.json",
            json!({"candidates": []}),
            "candidate 1: unknown field \"candidates\"",
        ),
    ];
    for (file, value, named) in cases {
        let path = write_json(&env, file, &value);
        let run = env.remembering_unnamed().candidates_from(&path).run();
        run.assert_code(2);
        assert!(
            run.stderr.contains(named),
            "{file}: {named:?} not named:\n{}",
            run.render()
        );
    }
    let missing = env
        .remembering_unnamed()
        .candidates_from("/nonexistent/candidates.json")
        .run();
    missing.assert_code(2);
    assert!(
        missing.stderr.contains("/nonexistent/candidates.json"),
        "{}",
        missing.render()
    );
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn candidates_route_to_their_scope() {
    let env = TestEnv::new();
    let file = write_json(
        &env,
        "candidates.json",
        &json!([
            {"name": "ci-cache", "type": "project", "description": "CI caches cargo", "body": "Keyed."},
            {"name": "editor", "type": "user", "description": "Uses helix", "body": "Helix.", "scope": "global"}
        ]),
    );
    env.remembering_unnamed().candidates_from(&file).ok();
    assert!(env.store().join("ci-cache.md").is_file());
    assert!(env.global_store().join("editor.md").is_file());
    assert!(!env.store().join("editor.md").exists());
}
