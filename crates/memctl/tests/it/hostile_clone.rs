//! A cloned repository is a hostile writer (issue 25 item 1): it can commit
//! `.memory` as a link (`.memory -> ../notes`), and git keeps the link on
//! clone. memctl used to take the target as the workspace store: one
//! session start showed the notes' catalogue to the agent, watched them and
//! ran `dream --auto` on them, which deleted and rewrote the user's own
//! notes outside the repository; an agent's MCP `remember` wrote there too.
//! A `.memory` memctl finds is now vetted everywhere a store is found; a
//! folder the user names with `--store` stays the user's choice.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use crate::env::{Run, TestEnv, files_under};
use crate::hook_lifecycle::event;
use crate::mcp::RawSession;

/// What memctl says of the link, wherever it finds it.
const REFUSED: &str = ".memory is not used as the workspace store: a symbolic link (to ../notes); memctl does not follow it";

/// Runs real `git` in `dir`, with no configuration of the machine's.
fn git(env: &TestEnv, dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=Mallory", "-c", "user.email=m@example.com"])
        .args(args)
        .current_dir(dir)
        .env("HOME", env.root().join("home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The user's notes beside the project, written as records so that a
/// dream would act on them: two say the same thing, one has expired.
fn notes(env: &TestEnv) -> PathBuf {
    let notes = env.root().join("notes");
    fs::create_dir(&notes).unwrap();
    let same = "---\nname: NAME\ndescription: Tests use pytest\ntype: feedback\nsource: user\n---\n- use pytest\n";
    fs::write(notes.join("pytest.md"), same.replace("NAME", "pytest")).unwrap();
    fs::write(
        notes.join("pytest-again.md"),
        same.replace("NAME", "pytest-again"),
    )
    .unwrap();
    fs::write(
        notes.join("freeze.md"),
        "---\nname: freeze\ndescription: Deploy freeze\ntype: project\nexpires: 2020-01-01\n---\nNo deploys.\n",
    )
    .unwrap();
    for i in 0..8 {
        fs::write(
            notes.join(format!("note-{i}.md")),
            format!("---\nname: note-{i}\ndescription: Private note number {i} about topic {i}\ntype: user\n---\nMine, number {i}.\n"),
        )
        .unwrap();
    }
    fs::write(notes.join("diary.md"), "# Dear diary\n\nNot a record.\n").unwrap();
    notes
}

/// A repository committing `.memory -> ../notes`, cloned with real git as
/// the test's project folder; returns the notes folder.
fn hostile_clone(env: &TestEnv) -> PathBuf {
    let notes = notes(env);
    let upstream = env.root().join("upstream");
    fs::create_dir(&upstream).unwrap();
    git(env, &upstream, &["init", "-q"]);
    std::os::unix::fs::symlink("../notes", upstream.join(".memory")).unwrap();
    fs::write(upstream.join("README.md"), "# A useful tool\n").unwrap();
    git(env, &upstream, &["add", "-A"]);
    git(env, &upstream, &["commit", "-q", "-m", "initial"]);
    git(
        env,
        env.root(),
        &["clone", "-q", "upstream", env.work().to_str().unwrap()],
    );
    let cloned = fs::symlink_metadata(env.work().join(".memory")).unwrap();
    assert!(cloned.file_type().is_symlink(), "git kept the link");
    notes
}

/// A project where every background job would start and every dream gate
/// is open, as on a machine with default settings after a day.
fn eager_env() -> TestEnv {
    let mut env = TestEnv::bare();
    env.set_var("MEMCTL_DREAM_MIN_HOURS", "0");
    env.set_var("MEMCTL_DREAM_MIN_WRITES", "0");
    env.set_var("MEMCTL_DREAM_SCAN_MINUTES", "0");
    env
}

#[track_caller]
fn refused(run: &Run, code: i32) {
    run.assert_code(code);
    assert!(run.stderr.contains(REFUSED), "{}", run.render());
}

#[test]
fn a_cloned_memory_link_is_never_a_store_for_hooks_mcp_dream_or_cli() {
    let env = eager_env();
    let notes = hostile_clone(&env);
    let before = files_under(&notes);

    for (file, question) in [
        ("session-start.json", None),
        ("user-prompt-submit.json", Some("how do we run tests")),
        ("session-end.json", None),
    ] {
        let stdin = event(&env, "claude-code", file, |value| {
            if let Some(prompt) = question {
                value["prompt"] = json!(prompt);
            }
        });
        let run = env.run_stdin(&["hook", "claude-code"], &stdin);
        // A hook never fails the agent's session; it says why it did nothing.
        refused(&run, 0);
        assert!(!run.stdout.contains("pytest"), "{}", run.render());
        assert!(!run.stdout.contains("note-"), "{}", run.render());
    }

    let mut session = RawSession::start(&env);
    let (text, is_error) = session.call(
        2,
        "remember",
        json!({"name": "planted", "type": "project", "description": "Planted by an agent", "body": "b"}),
    );
    assert!(is_error && text.contains(REFUSED), "{text}");
    let (text, is_error) = session.call(3, "search", json!({"query": "pytest"}));
    assert!(is_error && text.contains(REFUSED), "{text}");
    let (status, stderr) = session.close_with_stderr();
    assert!(status.success(), "{stderr}");
    assert!(stderr.contains(REFUSED), "{stderr}");

    refused(&env.run(&["dream", "--auto"]), 2);
    refused(&env.run(&["dream", "--auto", "--background"]), 2);
    refused(&env.run(&["init"]), 2);
    refused(
        &env.run(&[
            "remember",
            "--yes",
            "--name",
            "planted",
            "-t",
            "project",
            "-d",
            "Planted from the command line",
            "Planted body.",
        ]),
        2,
    );
    refused(&env.run(&["search", "pytest"]), 2);
    refused(&env.run(&["list"]), 2);
    refused(&env.run(&["check"]), 2);
    refused(&env.run(&["watch", "--background"]), 2);
    let hint = env.run(&["status"]);
    assert!(hint.stderr.contains("--store DIR"), "{}", hint.render());

    assert_eq!(files_under(&notes), before, "the notes were touched");
    let jobs: Vec<_> = files_under(&env.root().join("cache"))
        .into_keys()
        .filter(|p| p.to_string_lossy().contains("watch") || p.to_string_lossy().contains("dream"))
        .collect();
    assert!(jobs.is_empty(), "a background job was started: {jobs:?}");
}

#[test]
fn a_cloned_memory_folder_reaching_outside_by_a_dangling_link_is_refused_too() {
    let env = eager_env();
    git(&env, env.work(), &["init", "-q"]);
    std::os::unix::fs::symlink("../nowhere", env.work().join(".memory")).unwrap();
    let run = env.run(&["init"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains("a symbolic link (to ../nowhere)"),
        "{}",
        run.render()
    );
    assert!(
        !env.root().join("nowhere").exists(),
        "init followed the link"
    );
}

#[test]
fn a_store_the_user_names_may_be_a_link_a_found_one_below_it_is_still_vetted() {
    let env = eager_env();
    let notes = hostile_clone(&env);
    let named = format!("--store={}", env.work().join(".memory").display());
    let run = env.run(&[&named, "list"]);
    run.assert_success();
    assert!(run.stdout.contains("pytest-again"), "{}", run.render());
    // The global store is the user's too, and still usable with --global.
    env.run(&["--global", "init"]).assert_success();
    env.run(&["--global", "list"]).assert_success();
    assert!(notes.join("pytest.md").exists());
}

/// The hook names a found `.memory` to its background jobs with the hidden
/// `--found-store`: the job vets it again, so a checkout that made it a
/// link between the hook and the job leads nowhere (a job once took it as a
/// folder the user named, and followed the link).
#[test]
fn a_job_given_a_found_store_that_is_now_a_link_refuses_it() {
    let env = eager_env();
    let notes = hostile_clone(&env);
    let before = files_under(&notes);
    let found = format!("--found-store={}", env.work().join(".memory").display());
    for args in [
        vec![found.as_str(), "list"],
        vec![found.as_str(), "dream", "--auto", "--background"],
    ] {
        let run = env.run(&args);
        assert_ne!(run.code, 0, "{}", run.render());
        assert!(run.stderr.contains(REFUSED), "{}", run.render());
    }
    assert_eq!(files_under(&notes), before);
    // Only the hook's jobs take a found store: init would make it a store.
    let init = env.run(&[found.as_str(), "init"]);
    init.assert_code(2);
    assert!(
        init.stderr
            .contains("--found-store is only for the hook's jobs"),
        "{}",
        init.render()
    );
}
