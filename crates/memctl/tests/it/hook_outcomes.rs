//! Every after-session outcome is said once, at the next session start
//! (issue 27 item 2): candidates waiting, nothing found, the model's answer
//! refused (why, in one line), the model command missing or failing. Before,
//! a failed extraction was known only to a log in the cache folder.

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

/// A project whose sessions end with `model` as the user's model command.
fn project(model: &str) -> (TestEnv, PathBuf) {
    let mut env = TestEnv::new();
    env.set_var("MEMCTL_AUTO_WATCH", "off");
    env.set_var("MEMCTL_AUTO_DREAM", "off");
    env.set_var("MEMCTL_LLM_CMD", model);
    let transcript = env.root().join("session.jsonl");
    fs::copy(fixtures().join("session.jsonl"), &transcript).unwrap();
    (env, transcript)
}

/// The fake model answering with `answers/ANSWER`.
fn fake_model(env: &mut TestEnv, answer: &str) -> String {
    let runner = env.root().join("fake-model.sh");
    fs::copy(fixtures().join("fake-model.sh"), &runner).unwrap();
    env.set_var(
        "FAKE_MODEL_STDIN",
        env.root().join("model-stdin.json").display().to_string(),
    );
    env.set_var(
        "FAKE_MODEL_ANSWER",
        fixtures()
            .join("answers")
            .join(answer)
            .display()
            .to_string(),
    );
    format!("sh {}", runner.display())
}

/// Ends a session, waits for the detached job's report, and returns what
/// the next two session starts say (the second should say nothing of it).
fn end_then_start_twice(env: &TestEnv, transcript: &Path) -> (String, String) {
    let end = env.run_stdin(
        &["hook", "claude-code"],
        &event(env, "SessionEnd", transcript),
    );
    end.assert_success();
    let reports = env.root().join("cache/job-reports");
    let start = Instant::now();
    while fs::read_dir(&reports).map_or(0, |d| d.count()) == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the after-session job reported nothing"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let said = || {
        let run = env.run_stdin(
            &["hook", "claude-code"],
            &event(env, "SessionStart", transcript),
        );
        run.assert_success();
        if run.stdout.trim().is_empty() {
            return String::new();
        }
        run.json()["systemMessage"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    (said(), said())
}

#[test]
fn waiting_candidates_are_said_once_with_what_became_of_the_others() {
    let (mut env, transcript) = project("");
    let model = fake_model(&mut env, "good.json");
    env.set_var("MEMCTL_LLM_CMD", model);
    let (first, second) = end_then_start_twice(&env, &transcript);
    assert!(
        first.contains("2 new memory candidates")
            && first.contains("1 set aside")
            && first.contains("2 wait in all")
            && first.contains("`memctl review`"),
        "{first}"
    );
    assert_eq!(second, "", "said once");
}

#[test]
fn a_session_with_nothing_to_remember_is_said_so() {
    let (mut env, transcript) = project("");
    let model = fake_model(&mut env, "none.json");
    env.set_var("MEMCTL_LLM_CMD", model);
    let (first, second) = end_then_start_twice(&env, &transcript);
    assert!(first.contains("proposed no candidate"), "{first}");
    assert_eq!(second, "");
}

#[test]
fn a_refused_answer_is_said_with_its_reason_in_one_line() {
    let (mut env, transcript) = project("");
    let model = fake_model(&mut env, "malformed.txt");
    env.set_var("MEMCTL_LLM_CMD", model);
    let (first, second) = end_then_start_twice(&env, &transcript);
    assert!(
        first.contains("not turned into memory candidates")
            && first.contains("answer cannot be read"),
        "{first}"
    );
    assert_eq!(first.lines().count(), 1, "{first}");
    assert_eq!(second, "");
}

#[test]
fn a_model_command_that_fails_or_is_missing_is_said_so() {
    for (model, why) in [
        ("sh -c 'echo boom >&2; exit 3'", "exit"),
        (
            "/nonexistent/model-runner --json",
            "/nonexistent/model-runner",
        ),
    ] {
        let (env, transcript) = project(model);
        let (first, second) = end_then_start_twice(&env, &transcript);
        assert!(
            first.contains("not turned into memory candidates") && first.contains(why),
            "{model}: {first}"
        );
        assert_eq!(first.lines().count(), 1, "{first}");
        assert_eq!(second, "", "{model}");
    }
}
