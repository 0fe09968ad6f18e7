//! Issue 15, item 2: nothing secret is sent to a model. `dream --llm-cmd`
//! sent hand-written records' secrets (an AWS key id in a description, an
//! `aws_secret_access_key = …` line in the body, a `ghp_` token in `tags`)
//! to the model word for word. Every request now passes through the secret
//! rules: dream leaves such a record out (and says so), extract hides the
//! line. Tested with the labelled secret set of docs/SECRETS.md.

use std::fs;
use std::path::PathBuf;

use mdstore::guard::secrets::find_secrets;
use serde_json::{Value, json};

use crate::dream::{fake_model, record};
use crate::env::{Run, TestEnv};

#[path = "../../../mdstore/tests/it/labelled_secrets.rs"]
#[allow(dead_code)]
mod labelled_secrets;

/// Every string in `value` that the secret rules find something in.
fn strings_holding_secrets(value: &Value) -> Vec<String> {
    match value {
        Value::String(text) if !find_secrets(text).is_empty() => vec![text.clone()],
        Value::Array(values) => values.iter().flat_map(strings_holding_secrets).collect(),
        Value::Object(map) => map.values().flat_map(strings_holding_secrets).collect(),
        _ => Vec::new(),
    }
}

/// Where the fake runners save what they were sent.
fn sent_path(env: &TestEnv) -> PathBuf {
    env.root().join("model-input.json")
}

/// What the model command was sent, one JSON document a call.
fn sent(env: &TestEnv) -> Vec<Value> {
    let text = fs::read_to_string(sent_path(env)).expect("the model command ran");
    serde_json::Deserializer::from_str(&text)
        .into_iter::<Value>()
        .map(|v| v.expect("the model's input is JSON"))
        .collect()
}

/// A workspace store holding every labelled secret, each in a record of its
/// own and in turn in the body, the description and the tags (the three
/// fields of the issue), beside two records without one. Returns the ids of
/// the records holding a secret.
fn store_of_secrets(env: &TestEnv) -> Vec<String> {
    let ws = env.store();
    record(
        env,
        &ws,
        "plain-a",
        "project",
        "inferred",
        "CI caches ~/.cargo.\n",
    );
    record(
        env,
        &ws,
        "plain-b",
        "project",
        "inferred",
        "Deploys use pnpm.\n",
    );
    let mut ids = Vec::new();
    for (n, labelled) in labelled_secrets::positives().iter().enumerate() {
        let id = format!("secret-{n:03}");
        // A JSON string is a YAML double-quoted scalar.
        let quoted = json!(labelled.line).to_string();
        let (description, tags, body) = match n % 3 {
            0 => (
                "\"fine\"".to_string(),
                "[ok]".to_string(),
                labelled.line.clone(),
            ),
            1 => (quoted, "[ok]".to_string(), "Nothing here.".to_string()),
            _ => (
                "\"fine\"".to_string(),
                format!("[ok, {quoted}]"),
                "Nothing.".to_string(),
            ),
        };
        fs::write(
            ws.join(format!("{id}.md")),
            format!(
                "---\nname: {id}\ndescription: {description}\ntype: reference\ntags: {tags}\n---\n{body}\n"
            ),
        )
        .expect("a record");
        ids.push(id);
    }
    ids
}

#[test]
fn dream_sends_no_record_holding_a_secret_to_the_model_and_says_which_it_left_out() {
    let mut env = TestEnv::new();
    let secret_ids = store_of_secrets(&env);
    env.set_var(
        "FAKE_MODEL_INPUT_COPY",
        sent_path(&env).display().to_string(),
    );
    let runner = fake_model(&env, "empty");
    let run = env.run(&["dream", "--dry-run", "--json", "--llm-cmd", &runner]);
    run.assert_success();

    let inputs = sent(&env);
    assert_eq!(inputs.len(), 1, "one call");
    let ids: Vec<&str> = inputs[0]["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(ids, ["plain-a", "plain-b"]);
    assert_eq!(strings_holding_secrets(&inputs[0]), Vec::<String>::new());
    let raw = fs::read_to_string(sent_path(&env)).expect("the input");
    for labelled in labelled_secrets::positives() {
        assert!(!raw.contains(&labelled.line), "sent: {}", labelled.line);
    }

    // Every record left out is named in the plan, with the field and the
    // rule, and the output holds none of the secrets.
    let plan = run.json();
    let left: Vec<(&str, &str)> = plan["left_alone"]
        .as_array()
        .expect("left_alone")
        .iter()
        .map(|a| {
            (
                a["records"][0]["id"].as_str().unwrap_or_default(),
                a["reason"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        left.iter()
            .map(|(id, _)| id.to_string())
            .collect::<Vec<_>>(),
        secret_ids
    );
    for (n, (_, reason)) in left.iter().enumerate() {
        let field = ["body", "description", "tags"][n % 3];
        assert!(
            reason.starts_with(&format!(
                "not sent to the model command: its {field} looks like it holds a secret (rule "
            )),
            "{reason}"
        );
    }
    for labelled in labelled_secrets::positives() {
        assert!(
            !run.all_output().contains(&labelled.line),
            "{}",
            labelled.line
        );
    }
    // A person reads the same.
    let shown = env.run(&["dream", "--dry-run", "--llm-cmd", &runner]);
    shown.assert_success();
    assert!(
        shown.stdout.contains(
            "  - workspace:secret-000 (model): not sent to the model command: its body looks like it holds a secret (rule "
        ),
        "{}",
        shown.render()
    );
}

/// The three fields of the issue's report, one record each.
fn issue_store(env: &TestEnv) {
    let ws = env.store();
    record(
        env,
        &ws,
        "plain",
        "project",
        "inferred",
        "CI caches ~/.cargo.\n",
    );
    let key_id = ["AKIA", "IOSFODNN7EXAMPLF"].concat();
    let secret = ["wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYz1a2b3c4d5"].concat();
    let token = crate::remember::fake_github_token();
    for (id, description, tags, body) in [
        (
            "aws-id",
            format!("CI user {key_id}"),
            "[ci]".to_string(),
            "x".to_string(),
        ),
        (
            "aws-secret",
            "CI keys".to_string(),
            "[ci]".to_string(),
            format!("aws_secret_access_key = {secret}"),
        ),
        (
            "gh",
            "The registry".to_string(),
            format!("[ci, {token}]"),
            "x".to_string(),
        ),
    ] {
        fs::write(
            ws.join(format!("{id}.md")),
            format!("---\nname: {id}\ndescription: {description}\ntype: reference\ntags: {tags}\n---\n{body}\n"),
        )
        .expect("a record");
    }
}

fn replay(env: &TestEnv, operations: Value) -> Run {
    let plan = env.root().join("plan.json");
    fs::write(
        &plan,
        json!({"version": 1, "operations": operations}).to_string(),
    )
    .expect("plan");
    let runner = format!("{} {}", fake_model(env, "replay"), plan.display());
    env.run(&["dream", "--yes", "--llm-cmd", &runner])
}

#[test]
fn a_model_plan_naming_a_record_it_was_not_sent_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    issue_store(&env);
    let before = env.store_bytes();
    let reference = |id: &str| json!({"scope": "workspace", "id": id, "revision": 1});
    // A merge that would keep the user's record without its secret line,
    // and a retire of a record the model guessed (in another case).
    for operations in [
        json!([{
            "op": "merge", "finding": "model", "reason": "both about CI",
            "reads": [reference("plain"), reference("aws-secret")],
            "into": {"name": "plain", "type": "project", "description": "CI", "body": "CI caches ~/.cargo.\n"},
            "drops": [{"id": "aws-secret", "fact": "<a line hidden: it looks like it holds a secret (rule aws-secret-access-key)>", "why": "hidden"}]
        }]),
        json!([{
            "op": "retire", "finding": "model", "reason": "old",
            "reads": reference("GH")
        }]),
    ] {
        let run = replay(&env, operations);
        run.assert_code(2);
        assert!(
            run.stderr.contains(
                "a record it was not sent (it looks like it holds a secret); nothing was written"
            ),
            "{}",
            run.render()
        );
        assert_eq!(env.store_bytes(), before, "{}", run.render());
    }
}

#[test]
fn the_issues_three_secrets_never_reach_the_model_and_a_plan_without_them_is_applied() {
    let mut env = TestEnv::new();
    issue_store(&env);
    env.set_var(
        "FAKE_MODEL_INPUT_COPY",
        sent_path(&env).display().to_string(),
    );
    let run = replay(&env, json!([]));
    run.assert_success();
    let inputs = sent(&env);
    let ids: Vec<&str> = inputs[0]["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(ids, ["plain"]);
    assert_eq!(strings_holding_secrets(&inputs[0]), Vec::<String>::new());
    for (id, field, rule) in [
        ("aws-id", "description", "aws-access-key-id"),
        ("aws-secret", "body", "aws-secret-access-key"),
        ("gh", "tags", "github-token"),
    ] {
        assert!(
            run.stdout.contains(&format!(
                "workspace:{id} (model): not sent to the model command: its {field} looks like it holds a secret (rule {rule})"
            )),
            "{}",
            run.render()
        );
    }
}

/// `extract` with a runner that saves its request; the model proposes nothing.
fn extract(env: &TestEnv, messages: &Value) -> Run {
    let transcript = env.root().join("session.json");
    fs::write(&transcript, messages.to_string()).expect("a transcript");
    let runner = env.script(
        "model",
        &format!("cat > '{}'\necho '[]'", sent_path(env).display()),
    );
    let transcript = transcript.display().to_string();
    let runner = runner.display().to_string();
    env.run(&[
        "extract",
        "--yes",
        "--transcript",
        &transcript,
        "--llm-cmd",
        &runner,
    ])
}

#[test]
fn extract_hides_every_labelled_secret_and_a_whole_private_key_from_the_model_and_says_so() {
    let env = TestEnv::new();
    let positives = labelled_secrets::positives();
    let negatives = labelled_secrets::negatives();
    let header = ["-----BEGIN OPENSSH ", "PRIVATE KEY-----"].concat();
    let footer = ["-----END OPENSSH ", "PRIVATE KEY-----"].concat();
    let key_lines = [
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
        "QyNTUxOQAAACDx1Vn0yZb9kq3aX7Yc2Wm8Ue4pL5sT6rN0hJ9fG1bQAAAAJhM3c5==",
    ];
    let mut messages = vec![json!({
        "role": "user",
        "text": format!("Here is the deploy key:\n{header}\n{}\n{}\n{footer}\nKeep it safe.", key_lines[0], key_lines[1]),
    })];
    for (n, labelled) in positives.iter().enumerate() {
        let role = if n % 2 == 0 { "user" } else { "assistant" };
        messages.push(
            json!({"role": role, "text": format!("Before {n}.\n{}\nAfter {n}.", labelled.line)}),
        );
    }
    for labelled in &negatives {
        messages.push(json!({"role": "user", "text": labelled.line}));
    }
    let run = extract(&env, &Value::Array(messages));
    run.assert_success();

    let request: Value =
        serde_json::from_str(&fs::read_to_string(sent_path(&env)).expect("the request"))
            .expect("the request is JSON");
    assert_eq!(
        request["earlier_characters_left_out"], 0,
        "all in the window"
    );
    assert_eq!(strings_holding_secrets(&request), Vec::<String>::new());
    let raw = request.to_string();
    for labelled in &positives {
        assert!(!raw.contains(&labelled.line), "sent: {}", labelled.line);
    }
    for line in key_lines {
        assert!(!raw.contains(line), "a line of the key was sent");
    }
    // What is not a secret still reaches the model: the lines around them,
    // and every labelled negative.
    for n in 0..positives.len() {
        assert!(raw.contains(&format!("Before {n}.")) && raw.contains(&format!("After {n}.")));
    }
    for labelled in &negatives {
        let sent = json!(labelled.line).to_string();
        assert!(
            raw.contains(&sent[1..sent.len() - 1]),
            "hidden: {}",
            labelled.line
        );
    }
    assert!(raw.contains("Here is the deploy key:") && raw.contains("Keep it safe."));
    let hidden = positives.len() + 4;
    assert!(
        run.stderr.contains(&format!(
            "{hidden} lines of the session were not sent to the model: they look like they hold a secret ("
        )),
        "{}",
        run.render()
    );
    for labelled in &positives {
        assert!(!run.all_output().contains(&labelled.line));
    }
}
