//! The one hook block, after a session (issue 17 item 2): Claude Code's
//! SessionEnd starts `extract --pending` detached with the user's model
//! command; the next SessionStart says how many candidates wait; without
//! a model command nothing starts and the next session start says so once;
//! a hostile clone's settings never run a command.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::env::TestEnv;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/extract")
}

fn event(env: &TestEnv, name: &str, transcript: &Path) -> String {
    serde_json::json!({
        "session_id": "s-1",
        "transcript_path": transcript,
        "cwd": env.work(),
        "hook_event_name": name,
        "reason": "exit",
        "source": "startup",
    })
    .to_string()
}

fn system_message(env: &TestEnv, transcript: &Path) -> String {
    let run = env.run_stdin(
        &["hook", "claude-code"],
        &event(env, "SessionStart", transcript),
    );
    run.assert_success();
    let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_default();
    answer["systemMessage"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn session_end_leaves_candidates_that_the_next_session_start_announces() {
    let mut env = TestEnv::new();
    let transcript = env.root().join("session.jsonl");
    fs::copy(fixtures().join("session.jsonl"), &transcript).unwrap();
    let runner = env.root().join("fake-model.sh");
    fs::copy(fixtures().join("fake-model.sh"), &runner).unwrap();
    env.set_var(
        "FAKE_MODEL_STDIN",
        env.root().join("model-stdin.json").display().to_string(),
    );
    env.set_var(
        "FAKE_MODEL_ANSWER",
        fixtures().join("answers/good.json").display().to_string(),
    );
    env.set_var("MEMCTL_LLM_CMD", format!("sh {}", runner.display()));
    env.set_var("MEMCTL_AUTO_WATCH", "off");
    env.set_var("MEMCTL_AUTO_DREAM", "off");
    let before = env.store_bytes();
    let run = env.run_stdin(
        &["hook", "claude-code"],
        &event(&env, "SessionEnd", &transcript),
    );
    run.assert_success();
    assert_eq!(run.stdout, "", "{}", run.render());
    let deadline = Instant::now() + Duration::from_secs(60);
    let listed = loop {
        let listed = env.run(&["review", "--json"]);
        if listed.json().as_array().is_some_and(|rows| rows.len() == 2) || Instant::now() > deadline
        {
            break listed;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(
        listed.json().as_array().map(Vec::len),
        Some(2),
        "{}",
        listed.render()
    );
    assert_eq!(
        env.store_bytes(),
        before,
        "nothing is written before review"
    );
    let said = system_message(&env, &transcript);
    assert!(
        said.contains("2 new memory candidates") && said.contains("memctl review"),
        "{said}"
    );
}

#[test]
fn without_a_model_command_session_end_starts_nothing_and_says_so_once() {
    let mut env = TestEnv::new();
    env.set_var("MEMCTL_AUTO_WATCH", "off");
    env.set_var("MEMCTL_AUTO_DREAM", "off");
    let transcript = env.root().join("session.jsonl");
    fs::copy(fixtures().join("session.jsonl"), &transcript).unwrap();
    // A clone's settings name a command: ignored.
    let marker = env.root().join("PWNED");
    env.write_store_file(
        ".memctl.toml",
        &format!(
            "[model]\ncommand = [\"touch\", {:?}]\n",
            marker.display().to_string()
        ),
    );
    env.run_stdin(
        &["hook", "claude-code"],
        &event(&env, "SessionEnd", &transcript),
    )
    .assert_success();
    let first = system_message(&env, &transcript);
    assert!(first.contains("no model command is configured"), "{first}");
    // Each line names memctl once (issue 27: "memctl: … memctl:" was doubled).
    for line in first.lines() {
        assert!(line.starts_with("memctl"), "{line}");
        assert!(!line[1..].contains("memctl:"), "{line}");
    }
    env.run_stdin(
        &["hook", "claude-code"],
        &event(&env, "SessionEnd", &transcript),
    )
    .assert_success();
    let second = system_message(&env, &transcript);
    assert!(!second.contains("no model command"), "said once: {second}");
    std::thread::sleep(Duration::from_millis(500));
    assert!(!marker.exists(), "the store's [model] command never runs");
}
