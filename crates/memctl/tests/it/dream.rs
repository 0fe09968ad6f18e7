//! `memctl dream`: the plan shown and confirmed, a model command's plan
//! refused for each way it can be wrong (nothing changed, byte for byte),
//! `--auto`'s gates and lock, and a real Claude Code memory folder.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;
use std::time::{Duration, Instant};

use memctl_testkit::RecordFile;

use crate::env::{TestEnv, files_under};

/// A hand-made record with a source.
pub fn record(env: &TestEnv, dir: &Path, id: &str, kind: &str, source: &str, body: &str) {
    let _ = env;
    RecordFile::new(id)
        .kind(kind)
        .source(source)
        .body(body)
        .write_in(dir)
        .unwrap();
}

/// A workspace store of six records (two saying the same thing) and a
/// global store of one.
pub fn model_env() -> TestEnv {
    let env = TestEnv::new();
    let ws = env.store();
    record(
        &env,
        &ws,
        "pytest-a",
        "feedback",
        "inferred",
        "- use pytest\n- run with -x\n",
    );
    record(
        &env,
        &ws,
        "pytest-b",
        "feedback",
        "inferred",
        "- Use pytest\n- run with  -x\n",
    );
    record(
        &env,
        &ws,
        "node-version",
        "project",
        "user",
        "We use Node 22.\n",
    );
    record(
        &env,
        &ws,
        "deploy-notes",
        "project",
        "inferred",
        "Deploys go out on Tuesdays.\n",
    );
    record(
        &env,
        &ws,
        "ci-cache",
        "project",
        "inferred",
        "CI caches ~/.cargo.\n",
    );
    record(
        &env,
        &ws,
        "style",
        "feedback",
        "inferred",
        "Prefer small functions.\n",
    );
    record(
        &env,
        &env.global_store(),
        "editor",
        "feedback",
        "inferred",
        "- use pytest\n- run with -x\n",
    );
    env
}

/// The fake model runner, a Python script: python3 is required (the MCP
/// and pre-commit tests need it too), so its absence fails, never passes.
pub fn fake_model(env: &TestEnv, mode: &str) -> String {
    assert!(
        StdCommand::new("python3").arg("--version").output().is_ok(),
        "python3 is not installed: the fake model runner needs it"
    );
    let script = env.root().join("bin/fake-model.py");
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fake-model.py"),
        &script,
    )
    .unwrap();
    format!("python3 {} {mode}", script.display())
}

pub fn both_stores(env: &TestEnv) -> (BTreeMap<PathBuf, Vec<u8>>, BTreeMap<PathBuf, Vec<u8>>) {
    (env.store_bytes(), files_under(&env.global_store()))
}

/// Runs `dream --yes --llm-cmd` with a runner in `mode`, asserts the exit
/// code and that no file of either store changed, and snapshots the run.
fn refused(mode: &str, code: i32) {
    let mut env = model_env();
    // Short only for the runner that hangs: python's start on a busy
    // machine can take longer than that.
    if mode == "hang" {
        env.set_var("MEMCTL_LLM_TIMEOUT_SECS", "2");
    }
    let runner = fake_model(&env, mode);
    let before = both_stores(&env);
    let run = env.run(&["dream", "--yes", "--llm-cmd", &runner]);
    run.assert_code(code);
    assert_eq!(
        both_stores(&env),
        before,
        "a refused plan changed a file\n{}",
        run.render()
    );
    assert_run_snapshot!(format!("refused_{}", mode.replace('-', "_")), env, run);
}

#[test]
fn model_plan_with_duplicate_names_is_refused() {
    refused("duplicate-names", 2);
}

#[test]
fn model_plan_with_dotdot_name_is_refused() {
    refused("dotdot-name", 2);
}

#[test]
fn model_plan_with_lookalike_name_is_refused() {
    refused("lookalike-name", 2);
}

#[test]
fn model_plan_merging_across_scopes_is_refused() {
    refused("cross-scope", 2);
}

#[test]
fn model_plan_overwriting_higher_trust_record_is_refused() {
    refused("lower-trust", 4);
}

#[test]
fn model_plan_retiring_everything_is_refused() {
    refused("retire-all", 2);
}

#[test]
fn model_plan_dropping_a_fact_silently_is_refused() {
    refused("drop-fact", 2);
}

#[test]
fn model_answer_that_is_not_json_is_refused() {
    refused("invalid-json", 2);
}

#[test]
fn model_runner_that_hangs_is_stopped_and_nothing_written() {
    let started = Instant::now();
    refused("hang", 5);
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "the timeout did not stop it"
    );
}

#[test]
fn model_runner_exiting_non_zero_is_refused() {
    refused("fail", 5);
}

#[test]
fn model_good_plan_is_shown_confirmed_and_applied() {
    let mut env = model_env();
    let runner = fake_model(&env, "good");
    let copy = env.root().join("input.json");
    env.set_var("FAKE_MODEL_INPUT_COPY", copy.display().to_string());
    let before = both_stores(&env);
    let dry = env.run(&["dream", "--dry-run", "--llm-cmd", &runner]);
    dry.assert_success();
    assert_eq!(both_stores(&env), before, "--dry-run wrote");
    assert_run_snapshot!("good_dry_run", env, dry);

    // Without a terminal and without --yes: nothing is written, exit 3.
    env.run(&["dream", "--llm-cmd", &runner]).assert_code(3);
    assert_eq!(both_stores(&env), before);

    let run = env.run(&["dream", "--yes", "--llm-cmd", &runner]);
    run.assert_success();
    assert_run_snapshot!("good_applied", env, run);
    assert!(!env.store().join("pytest-b.md").exists());
    let merged = env.read_store_file("pytest-a.md");
    assert!(
        merged.contains("run with -x") && merged.contains("merged_from"),
        "{merged}"
    );
    // The merged-away record left a tombstone: remembering it again is caught.
    env.run(&[
        "remember",
        "--yes",
        "--name",
        "pytest-b",
        "--type",
        "feedback",
        "--description",
        "about pytest-b",
        "- Use pytest\n- run with  -x\n",
    ])
    .assert_code(4);

    let input: serde_json::Value =
        serde_json::from_str(fs::read_to_string(&copy).unwrap().lines().next().unwrap()).unwrap();
    assert!(
        input["instructions"][0]
            .as_str()
            .unwrap()
            .contains("never instructions")
    );
    assert_eq!(input["records"].as_array().unwrap().len(), 7);
}

#[test]
fn model_empty_plan_changes_nothing() {
    let env = model_env();
    let runner = fake_model(&env, "empty");
    let before = both_stores(&env);
    let run = env.run(&["dream", "--yes", "--llm-cmd", &runner]);
    run.assert_success();
    assert!(run.stdout.contains("Nothing to change"), "{}", run.render());
    assert_eq!(both_stores(&env), before);
}

#[test]
fn model_input_over_the_limit_is_refused_not_truncated() {
    let mut env = model_env();
    let runner = fake_model(&env, "good");
    record(
        &env,
        &env.store(),
        "huge",
        "project",
        "inferred",
        &"word ".repeat(2000),
    );
    env.set_var("MEMCTL_LLM_MAX_INPUT_CHARS", "9000");
    let before = both_stores(&env);
    let run = env.run(&["dream", "--yes", "--llm-cmd", &runner]);
    run.assert_code(2);
    assert!(
        run.stderr.contains("workspace:huge") && run.stderr.contains("not truncated"),
        "{}",
        run.render()
    );
    assert_eq!(both_stores(&env), before);
}

#[test]
fn model_store_too_large_for_one_call_is_sent_in_batches() {
    let mut env = model_env();
    let runner = fake_model(&env, "empty");
    let copy = env.root().join("input.json");
    env.set_var("FAKE_MODEL_INPUT_COPY", copy.display().to_string());
    env.run(&["dream", "--yes", "--llm-cmd", &runner])
        .assert_success();
    let whole = fs::read_to_string(&copy).unwrap();
    fs::remove_file(&copy).unwrap();
    // Room for all but about two records.
    let limit = whole.trim_end().chars().count() - 300;
    env.set_var("MEMCTL_LLM_MAX_INPUT_CHARS", limit.to_string());
    let run = env.run(&["dream", "--yes", "--llm-cmd", &runner]);
    run.assert_success();
    let calls: Vec<serde_json::Value> = fs::read_to_string(&copy)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        calls.len() > 1,
        "one call for a store over the limit\n{}",
        run.render()
    );
    let sent: usize = calls
        .iter()
        .map(|c| c["records"].as_array().unwrap().len())
        .sum();
    assert_eq!(sent, 7, "every record is sent once");
}

#[test]
fn dream_without_terminal_or_yes_writes_nothing() {
    let env = TestEnv::new();
    env.remember("a", "user", "same", "one fact");
    record(&env, &env.store(), "b", "user", "user", "one fact\n");
    let before = env.store_bytes();
    let run = env.run(&["dream"]);
    assert!(
        run.code == 3 || run.stdout.contains("Nothing to change"),
        "{}",
        run.render()
    );
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn terminal_escapes_in_records_and_model_text_are_shown_escaped_in_the_plan() {
    let env = model_env();
    let runner = fake_model(&env, "escape-reason");
    env.write_store_file(
        "weird.md",
        "---\nname: weird\ndescription: about \u{1b}[2J weird\ntype: project\nsource: inferred\n---\nbody \u{1b}]0;title\u{7}\n",
    );
    // A reason holding a control character is rejected (a dry run's
    // finding: exit 1), and the rejected plan is still shown, escaped.
    let run = env.run(&["dream", "--dry-run", "--llm-cmd", &runner]);
    run.assert_code(1);
    assert!(run.stderr.contains("invalid reason"), "{}", run.render());
    let shown = run.all_output();
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{9b}') && !shown.contains('\u{7}'),
        "{}",
        run.render()
    );
    assert!(
        run.stdout.contains("pytest \\x1b[2J\\x9b31m"),
        "{}",
        run.render()
    );
    let json = env.run(&["dream", "--dry-run", "--json", "--llm-cmd", &runner]);
    assert!(!json.stdout.contains('\u{1b}') && !json.stdout.contains('\u{9b}'));
}

#[test]
fn dry_run_json_prints_the_plan_and_writes_nothing() {
    let env = model_env();
    let runner = fake_model(&env, "good");
    let before = both_stores(&env);
    let run = env.run(&["dream", "--dry-run", "--json", "--llm-cmd", &runner]);
    run.assert_success();
    let plan = run.json();
    assert_eq!(plan["origin"], "model");
    assert_eq!(plan["operations"][0]["op"], "merge");
    assert_eq!(both_stores(&env), before);
}

#[test]
fn claude_code_memory_folder_dreams_without_losing_a_record_or_the_hand_made_index() {
    let env = TestEnv::new();
    let hand_made =
        "# Memory index\n\n- [feedback x](feedback_x.md) - keep it\n- [project y](project_y.md)\n";
    env.write_store_file("MEMORY.md", hand_made);
    let feedback = "---\nname: feedback_x\ndescription: Use tabs in Makefiles\ntype: feedback\n---\nMakefiles need tabs.\n**Why:** make rejects spaces.\n";
    env.write_store_file("feedback_x.md", feedback);
    env.write_store_file(
        "feedback_x_again.md",
        &feedback.replace("name: feedback_x", "name: feedback_x_again"),
    );
    env.write_store_file("project_y.md", "---\nname: project_y\ndescription: Release train\ntype: project\n---\nReleases ship every other Tuesday.\n");
    let run = env.run(&["dream", "--yes"]);
    run.assert_success();
    assert_eq!(env.read_store_file("MEMORY.md.before-memctl"), hand_made);
    let after = env.store_bytes();
    let bodies: String = after
        .iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "md") && !p.ends_with("MEMORY.md"))
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .collect();
    for fact in [
        "Makefiles need tabs.",
        "make rejects spaces",
        "Releases ship every other Tuesday.",
    ] {
        assert!(bodies.contains(fact), "lost {fact:?}\n{}", run.render());
    }
    assert!(env.store().join("project_y.md").exists());
    assert_run_snapshot!("claude_code_folder", env, run);
}

#[test]
fn secret_in_a_model_plan_is_never_printed_and_never_written() {
    let env = model_env();
    let runner = fake_model(&env, "secret");
    let before = both_stores(&env);
    let dry = env.run(&["dream", "--dry-run", "--llm-cmd", &runner]);
    let json = env.run(&["dream", "--dry-run", "--json", "--llm-cmd", &runner]);
    let run = env.run(&["dream", "--yes", "--llm-cmd", &runner]);
    for shown in [&dry, &json, &run] {
        assert!(
            !shown.all_output().contains("AKIAIOSFODNN7EXAMPLF"),
            "{}",
            shown.render()
        );
    }
    assert!(dry.stdout.contains("<a line hidden"), "{}", dry.render());
    run.assert_code(2);
    assert_eq!(both_stores(&env), before);
    assert_run_snapshot!("secret_refused", env, run);
}

#[test]
fn json_report_lists_what_was_merged() {
    let env = model_env();
    let runner = fake_model(&env, "good");
    let run = env.run(&["dream", "--yes", "--json", "--llm-cmd", &runner]);
    run.assert_success();
    let report = run.json();
    assert_eq!(
        report["merged"][0]["into"]["id"],
        "pytest-a",
        "{}",
        run.render()
    );
    assert_eq!(report["merged"][0]["from"].as_array().unwrap().len(), 2);
    assert_eq!(report["plan"]["origin"], "model");
    assert!(report["retired"].as_array().unwrap().is_empty());
}

#[test]
fn plan_declined_at_the_prompt_writes_nothing() {
    let env = model_env();
    let runner = fake_model(&env, "good");
    let before = both_stores(&env);
    let run = env.run_in_terminal(&["dream", "--llm-cmd", &runner], "n\n");
    assert!(run.stdout.contains("Apply this plan?"), "{}", run.render());
    run.assert_code(3);
    assert_eq!(both_stores(&env), before);
    let run = env.run_in_terminal(&["dream", "--llm-cmd", &runner], "y\n");
    run.assert_success();
    assert!(
        !env.store().join("pytest-b.md").exists(),
        "{}",
        run.render()
    );
}

#[test]
fn broken_files_are_reported_and_left_alone_byte_for_byte() {
    let env = TestEnv::new();
    let ws = env.store();
    record(&env, &ws, "pytest", "feedback", "user", "- use pytest\n");
    let text = fs::read_to_string(ws.join("pytest.md")).unwrap();
    fs::write(
        ws.join("pytest-again.md"),
        text.replace("name: pytest", "name: pytest-again"),
    )
    .unwrap();
    for (id, body) in [
        ("tea", "Green tea."),
        ("vim", "Edits in vim."),
        ("ci", "CI caches cargo."),
    ] {
        record(&env, &ws, id, "user", "user", &format!("{body}\n"));
    }
    let broken = "---\nname: half\ndescription: [unclosed\ntype: user\n---\n- use pytest\n";
    let conflict = "---\nname: merged\ndescription: d\ntype: user\n---\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n";
    env.write_store_file("half.md", broken);
    env.write_store_file("merged.md", conflict);
    let run = env.run(&["dream", "--yes"]);
    run.assert_success();
    assert!(
        run.stdout.contains("Not read (left alone as they are):"),
        "{}",
        run.render()
    );
    assert!(run.stdout.contains("workspace:half.md"), "{}", run.render());
    assert_eq!(env.read_store_file("half.md"), broken);
    assert_eq!(env.read_store_file("merged.md"), conflict);
    assert!(
        run.stdout.contains("Merged workspace:pytest"),
        "{}",
        run.render()
    );
}

/// A model runner's own standard error reached the terminal raw, so a
/// runner could retitle or clear the user's terminal.
#[test]
fn model_runner_stderr_escapes_reach_the_user_escaped() {
    let env = model_env();
    let runner = r#"sh -c 'printf "\033]0;owned\007 runner says hi\n" >&2; exit 3'"#;
    let run = env.run(&["dream", "--dry-run", "--llm-cmd", runner]);
    run.assert_code(5);
    assert!(
        !run.stderr.contains('\u{1b}') && !run.stderr.contains('\u{7}'),
        "{}",
        run.render()
    );
    assert!(run.stderr.contains("\\x1b]0;owned"), "{}", run.render());
}
