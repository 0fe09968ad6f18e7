//! After a session (issue 17, items 2 and 3): `extract --pending` keeps the
//! candidates that pass every guard for `memctl review`, with the model
//! command taken from the user (`MEMCTL_LLM_CMD`, `~/.config/memctl/
//! config.toml`), never from a repository: a hostile clone whose committed
//! `.memory/.memctl.toml` names a command never gets it run.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use serde_json::Value;

use crate::env::TestEnv;
use crate::extract::{pairs, statuses};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/extract")
}

/// A world whose user config names the fake runner answering `answer`,
/// with the session transcript copied in.
fn world(answer: &str) -> (TestEnv, String) {
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
        fixtures()
            .join("answers")
            .join(answer)
            .display()
            .to_string(),
    );
    write_user_config(
        &env,
        &format!(
            "[model]\ncommand = [\"sh\", {:?}]\n",
            runner.display().to_string()
        ),
    );
    (env, transcript.display().to_string())
}

fn write_user_config(env: &TestEnv, text: &str) {
    let dir = env.root().join("xdg-config/memctl");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("config.toml"), text).unwrap();
}

fn pending_files(env: &TestEnv) -> Vec<PathBuf> {
    let Ok(dir) = fs::read_dir(env.root().join("cache")) else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".pending.json"))
        .collect()
}

#[test]
fn candidates_after_a_session_wait_for_review_then_are_saved_as_inferred() {
    let (env, transcript) = world("good.json");
    let before = env.store_bytes();
    let run = env.run(&["extract", "--transcript", &transcript, "--pending"]);
    run.assert_success();
    assert!(run.stderr.contains("2 candidates from"), "{}", run.render());
    assert!(run.stderr.contains("memctl review"), "{}", run.render());
    assert_eq!(
        env.store_bytes(),
        before,
        "nothing is written before review"
    );
    let files = pending_files(&env);
    assert_eq!(files.len(), 1, "one pending file in the cache folder");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&files[0]).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "machine-local and private");
    }
    // The same session ending twice keeps each candidate once.
    let again = env.run(&["extract", "--transcript", &transcript, "--pending"]);
    assert!(
        again.stderr.contains("0 candidates") && again.stderr.contains("2 already waited"),
        "{}",
        again.render()
    );

    let listed = env.run(&["review", "--json"]);
    listed.assert_success();
    assert_eq!(
        statuses(&listed),
        pairs(&[
            ("prefer-pnpm", "dry-run"),
            ("pr-descriptions-short", "dry-run")
        ])
    );
    assert_eq!(env.store_bytes(), before, "review --json decides nothing");

    let accepted = env.run(&["review", "--yes", "--json"]);
    accepted.assert_success();
    assert_eq!(
        statuses(&accepted),
        pairs(&[("prefer-pnpm", "saved"), ("pr-descriptions-short", "saved")])
    );
    assert!(
        env.read_store_file("prefer-pnpm.md")
            .contains("source: inferred")
    );
    assert!(
        pending_files(&env).is_empty(),
        "nothing waits once all are settled"
    );
    let none = env.run(&["review"]);
    none.assert_success();
    assert!(
        none.stderr.contains("No candidates wait"),
        "{}",
        none.render()
    );
}

#[test]
fn a_pending_candidate_is_judged_again_at_review_time() {
    let (env, transcript) = world("good.json");
    env.run(&["extract", "--transcript", &transcript, "--pending"])
        .assert_success();
    // Meanwhile the user forgets what the model would bring back.
    env.remember(
        "prefer-pnpm",
        "feedback",
        "This repository uses pnpm, never npm",
        "pnpm only.",
    );
    env.run(&[
        "forget",
        "prefer-pnpm",
        "--yes",
        "--reason",
        "we moved to bun",
    ])
    .assert_success();
    let run = env.run(&["review", "--yes", "--json"]);
    assert_eq!(
        statuses(&run),
        pairs(&[
            ("prefer-pnpm", "refused"),
            ("pr-descriptions-short", "saved")
        ]),
        "{}",
        run.render()
    );
    assert!(
        !env.store().join("prefer-pnpm.md").exists(),
        "the tombstone holds"
    );
    assert!(pending_files(&env).is_empty());
}

#[test]
fn review_without_a_terminal_or_yes_asks_for_one_and_keeps_the_candidates() {
    let (env, transcript) = world("good.json");
    env.run(&["extract", "--transcript", &transcript, "--pending"])
        .assert_success();
    let run = env.run(&["review"]);
    run.assert_code(3);
    assert!(run.stderr.contains("2 candidates wait"), "{}", run.render());
    assert_eq!(pending_files(&env).len(), 1);
}

#[test]
fn review_on_a_terminal_accepts_and_discards_one_by_one() {
    let (env, transcript) = world("good.json");
    env.run(&["extract", "--transcript", &transcript, "--pending"])
        .assert_success();
    // Enter accepts the first (the default); `j` then Enter picks "skip" for the second.
    let run = env.run_in_terminal(&["review"], "\nj\n");
    assert!(run.stdout.contains("prefer-pnpm"), "{}", run.render());
    assert!(
        env.store().join("prefer-pnpm.md").exists(),
        "{}",
        run.render()
    );
    assert!(
        !env.store().join("pr-descriptions-short.md").exists(),
        "{}",
        run.render()
    );
    assert!(pending_files(&env).is_empty(), "{}", run.render());
}

#[test]
fn auto_accept_in_the_user_config_saves_through_every_guard() {
    let (env, transcript) = world("secret.json");
    let runner = env.root().join("fake-model.sh");
    write_user_config(
        &env,
        &format!(
            "[model]\ncommand = [\"sh\", {:?}]\n[extract]\nauto_accept = true\n",
            runner.display().to_string()
        ),
    );
    let run = env.run(&[
        "extract",
        "--transcript",
        &transcript,
        "--pending",
        "--json",
    ]);
    let rows = statuses(&run);
    assert!(
        rows.iter().any(|(_, s)| s == "refused"),
        "the secret guard holds: {}",
        run.render()
    );
    assert!(
        pending_files(&env).is_empty(),
        "auto-accept keeps nothing waiting"
    );
}

#[test]
fn memctl_llm_cmd_comes_before_the_user_config() {
    let (mut env, transcript) = world("good.json");
    let marker = env.root().join("config-runner-ran");
    write_user_config(
        &env,
        &format!(
            "[model]\ncommand = [\"touch\", {:?}]\n",
            marker.display().to_string()
        ),
    );
    let runner = env.root().join("fake-model.sh");
    env.set_var("MEMCTL_LLM_CMD", format!("sh {}", runner.display()));
    env.run(&["extract", "--transcript", &transcript, "--pending"])
        .assert_success();
    assert!(!marker.exists());
    assert_eq!(pending_files(&env).len(), 1);
}

#[test]
fn a_user_config_with_an_unknown_key_or_a_shell_string_is_refused_naming_it() {
    let (env, transcript) = world("good.json");
    for text in [
        "[model]\ncmd = [\"x\"]\n",
        "[model]\ncommand = \"sh -c x\"\n",
        "[model]\ncommand = []\n",
    ] {
        write_user_config(&env, text);
        let run = env.run(&["extract", "--transcript", &transcript, "--pending"]);
        run.assert_code(2);
        assert!(run.stderr.contains("config.toml"), "{}", run.render());
    }
}

#[test]
fn json_mode_object_and_claude_wrapper_answers_are_read() {
    let (mut env, transcript) = world("good.json");
    let good: Value =
        serde_json::from_str(&fs::read_to_string(fixtures().join("answers/good.json")).unwrap())
            .unwrap();
    let object = serde_json::json!({"candidates": good}).to_string();
    let wrapper = serde_json::json!({"type": "result", "subtype": "success", "is_error": false,
        "result": format!("```json\n{object}\n```"), "session_id": "s", "total_cost_usd": 0.01})
    .to_string();
    for (name, answer) in [("object.json", object), ("wrapper.json", wrapper)] {
        let path = env.root().join(name);
        fs::write(&path, answer).unwrap();
        env.set_var("FAKE_MODEL_ANSWER", path.display().to_string());
        let run = env.run(&[
            "extract",
            "--transcript",
            &transcript,
            "--dry-run",
            "--json",
        ]);
        assert_eq!(
            statuses(&run),
            pairs(&[
                ("prefer-pnpm", "dry-run"),
                ("pr-descriptions-short", "dry-run"),
                ("skip-checkout-e2e", "dropped")
            ]),
            "{name}: {}",
            run.render()
        );
    }
    let request: Value =
        serde_json::from_str(&fs::read_to_string(env.root().join("model-stdin.json")).unwrap())
            .unwrap();
    assert_eq!(
        request["answer_schema"]["required"],
        serde_json::json!(["candidates"])
    );
    let failed = env.root().join("failed.json");
    fs::write(&failed, r#"{"type":"result","subtype":"error_max_turns","is_error":true,"result":"ran out of turns"}"#).unwrap();
    env.set_var("FAKE_MODEL_ANSWER", failed.display().to_string());
    let run = env.run(&["extract", "--transcript", &transcript, "--dry-run"]);
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("the runner reported an error: ran out of turns"),
        "{}",
        run.render()
    );
}

/// A repository, cloned: its committed `.memory/.memctl.toml` names a
/// command that would leave a marker file, and asks to accept candidates
/// unseen. memctl runs none of it, whichever command the user runs in it.
#[test]
fn hostile_clone_never_runs_the_command_its_settings_name() {
    let env = TestEnv::bare();
    let origin = env.root().join("origin");
    let marker = env.root().join("PWNED");
    fs::create_dir_all(origin.join(".memory")).unwrap();
    fs::write(
        origin.join(".memory/.memctl.toml"),
        format!(
            "[model]\ncommand = [\"sh\", \"-c\", \"touch {}\"]\n[extract]\nauto_accept = true\n",
            marker.display()
        ),
    )
    .unwrap();
    fs::write(origin.join(".memory/MEMORY.md"), "").unwrap();
    let git = |dir: &Path, args: &[&str]| {
        let out = StdCommand::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.com",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .env("HOME", env.root().join("home"))
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&origin, &["init", "-q"]);
    git(&origin, &["add", "-A"]);
    git(&origin, &["commit", "-qm", "a helpful memory setup"]);
    git(
        env.work(),
        &["clone", "-q", &origin.display().to_string(), "clone"],
    );
    let clone = env.work().join("clone");
    let transcript = env.root().join("session.jsonl");
    fs::copy(fixtures().join("session.jsonl"), &transcript).unwrap();
    let transcript = transcript.display().to_string();
    let in_clone = |args: &[&str]| {
        let mut cmd = env.command();
        cmd.current_dir(&clone);
        env.run_with(cmd, args)
    };
    let extract = in_clone(&["extract", "--transcript", &transcript, "--pending"]);
    extract.assert_code(2);
    assert!(
        extract.stderr.contains("needs a model command"),
        "{}",
        extract.render()
    );
    assert!(
        extract.stderr.contains(".memctl.toml: [model] is ignored")
            && extract.stderr.contains("[extract] is ignored"),
        "one warning naming the file and each key: {}",
        extract.render()
    );
    for args in [
        &["extract", "--transcript", &transcript, "--yes"][..],
        &["review", "--yes"],
        &["review", "--json"],
        &["dream", "--dry-run"],
        &["dream", "--yes"],
        &[
            "remember",
            "--yes",
            "--name",
            "a-note",
            "--type",
            "project",
            "--description",
            "A note",
            "x",
        ],
    ] {
        let run = in_clone(args);
        assert!(
            !marker.exists(),
            "memctl {args:?} ran the clone's command: {}",
            run.render()
        );
    }
    assert!(!marker.exists());
}
