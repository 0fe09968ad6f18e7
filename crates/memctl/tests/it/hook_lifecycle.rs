//! `memctl hook claude-code|codex` (SPEC §8, issue 17): every event of the
//! recorded fixtures answered in its agent's format, the background jobs a
//! session start begins (one watcher a store, gone with its store; one
//! `dream --auto` when its gates open, its outcome said at the next
//! session start, once), and the settings that turn them off.

use std::fs::{self, File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::env::{Run, TestEnv};

/// Far longer than any background job here needs, even on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(90);

/// A project with two records, and no background job unless a test asks.
fn project() -> TestEnv {
    let mut env = TestEnv::new();
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests in this project use pytest, never unittest",
        "New tests use pytest functions and fixtures.",
    );
    env.remember(
        "invoice-rounding",
        "project",
        "Invoice totals are rounded once, at the end, with Decimal",
        "Sum the lines as Decimal, then round the total half-even.",
    );
    env.set_var("MEMCTL_AUTO_WATCH", "off");
    env.set_var("MEMCTL_AUTO_DREAM", "off");
    env
}

/// The recorded event `agent/name`, its `cwd` the test's project folder.
pub fn event(env: &TestEnv, agent: &str, name: &str, edit: impl FnOnce(&mut Value)) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/hooks")
        .join(agent)
        .join(name);
    let mut value: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    value["cwd"] = Value::from(env.work().display().to_string());
    edit(&mut value);
    value.to_string()
}

fn hook(env: &TestEnv, agent: &str, stdin: &str) -> Run {
    let run = env.run_stdin(&["hook", agent], stdin);
    run.assert_success();
    run
}

/// The answer's `additionalContext`, its `hookEventName` checked.
#[track_caller]
fn added(run: &Run, event_name: &str) -> String {
    let answer = run.json();
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"],
        event_name,
        "{}",
        run.render()
    );
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Polls `done` until it holds, failing after [`PATIENCE`].
#[track_caller]
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < PATIENCE, "never: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn cache_files(env: &TestEnv, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(env.root().join("cache"))
        .map(|entries| entries.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.to_string_lossy().ends_with(suffix));
    files.sort();
    files
}

fn is_locked(path: &Path) -> bool {
    File::open(path).is_ok_and(|f| matches!(f.try_lock(), Err(TryLockError::WouldBlock)))
}

/// How many watchers hold their `.watch` lock in the test's cache folder.
fn live_watchers(env: &TestEnv) -> usize {
    cache_files(env, ".sqlite.watch")
        .iter()
        .filter(|p| is_locked(p))
        .count()
}

/// Removes the stores, so that every watcher started for them leaves, and
/// waits until none is left: no test leaves a process behind.
struct StoresRemoved<'a>(&'a TestEnv);

impl Drop for StoresRemoved<'_> {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(self.0.store());
        let _ = fs::remove_dir_all(self.0.global_store());
        let start = Instant::now();
        while live_watchers(self.0) > 0 && start.elapsed() < PATIENCE {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[test]
fn every_claude_code_event_is_answered_in_its_format() {
    let env = project();
    let start = hook(
        &env,
        "claude-code",
        &event(&env, "claude-code", "session-start.json", |_| {}),
    );
    let catalogue = added(&start, "SessionStart");
    assert!(
        catalogue.contains("- [prefer-pytest](prefer-pytest.md)"),
        "{catalogue}"
    );
    assert_eq!(start.json().get("systemMessage"), None, "nothing to report");
    assert_eq!(start.stderr, "");

    let prompt = hook(
        &env,
        "claude-code",
        &event(&env, "claude-code", "user-prompt-submit.json", |_| {}),
    );
    assert!(added(&prompt, "UserPromptSubmit").contains("id=\"prefer-pytest\""));

    let transcript = env.root().join("session.jsonl");
    fs::write(&transcript, "{}\n").unwrap();
    for (name, edit) in [
        ("session-end.json", Some(&transcript)),
        ("pre-compact.json", None),
    ] {
        let run = hook(
            &env,
            "claude-code",
            &event(&env, "claude-code", name, |e| {
                if let Some(path) = edit {
                    e["transcript_path"] = Value::from(path.display().to_string());
                }
            }),
        );
        assert_eq!(
            (run.stdout.as_str(), run.stderr.as_str()),
            ("", ""),
            "{name}"
        );
    }
    // A session end naming no real transcript is said on stderr, never more.
    let gone = hook(
        &env,
        "claude-code",
        &event(&env, "claude-code", "session-end.json", |_| {}),
    );
    assert_eq!(gone.stdout, "");
    assert!(
        gone.stderr.contains("transcript") && gone.stderr.contains("no such file"),
        "{}",
        gone.stderr
    );
    // It says what a session end costs, not what a prompt would (issue 27).
    assert!(
        gone.stderr.contains("no after-session job was started") && !gone.stderr.contains("prompt"),
        "{}",
        gone.stderr
    );

    let unknown = hook(
        &env,
        "claude-code",
        r#"{"hook_event_name":"PreToolUse","session_id":"s"}"#,
    );
    assert_eq!(unknown.stdout, "");
    assert_eq!(unknown.stderr.lines().count(), 1, "{}", unknown.stderr);
    assert!(unknown.stderr.contains("PreToolUse"), "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains("the event was ignored"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn every_codex_event_is_answered_in_its_format() {
    let env = project();
    let start = hook(
        &env,
        "codex",
        &event(&env, "codex", "session-start.json", |_| {}),
    );
    assert!(added(&start, "SessionStart").contains("<memory-catalogue scope=\"workspace\">"));
    let prompt = hook(
        &env,
        "codex",
        &event(&env, "codex", "user-prompt-submit.json", |_| {}),
    );
    assert!(added(&prompt, "UserPromptSubmit").contains("id=\"prefer-pytest\""));
    // Codex's answers may hold only the keys its output schemas name.
    for run in [&start, &prompt] {
        let answer = run.json();
        let keys: Vec<&String> = answer.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["hookSpecificOutput"], "{}", run.render());
        let mut inner: Vec<&String> = answer["hookSpecificOutput"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        inner.sort();
        assert_eq!(inner, ["additionalContext", "hookEventName"]);
    }
    let stop = hook(&env, "codex", &event(&env, "codex", "stop.json", |_| {}));
    assert_eq!((stop.stdout.as_str(), stop.stderr.as_str()), ("", ""));
    // Codex 0.169 sends SessionEnd too (its transcript is a rollout file):
    // answered as Claude Code's, with nothing on standard output.
    let transcript = env.root().join("rollout.jsonl");
    fs::write(&transcript, "{}\n").unwrap();
    let end = hook(
        &env,
        "codex",
        &event(&env, "codex", "session-end.json", |e| {
            e["transcript_path"] = Value::from(transcript.display().to_string());
        }),
    );
    assert_eq!((end.stdout.as_str(), end.stderr.as_str()), ("", ""));
    // An event Codex does not send is one line on standard error.
    let unknown = hook(
        &env,
        "codex",
        r#"{"hook_event_name":"Notification","session_id":"s"}"#,
    );
    assert_eq!(unknown.stdout, "");
    assert!(
        unknown.stderr.contains("Notification"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn context_hook_still_answers_and_starts_nothing() {
    let mut env = project();
    env.set_var("MEMCTL_AUTO_WATCH", "on");
    let run = env.run_stdin(
        &["context", "--hook", "claude-code"],
        &event(&env, "claude-code", "session-start.json", |_| {}),
    );
    run.assert_success();
    assert!(added(&run, "SessionStart").contains("memory-catalogue"));
    assert!(
        cache_files(&env, ".watch.log").is_empty(),
        "context --hook started a job"
    );
    let end = env.run_stdin(
        &["context", "--hook", "claude-code"],
        &event(&env, "claude-code", "session-end.json", |_| {}),
    );
    assert_eq!((end.code, end.stdout.as_str()), (0, ""));
    assert!(
        end.stderr.contains("memctl hook claude-code"),
        "{}",
        end.stderr
    );
}

#[test]
fn session_start_starts_one_watcher_that_leaves_with_its_store() {
    let mut env = project();
    env.set_var("MEMCTL_AUTO_WATCH", "on");
    let _cleanup = StoresRemoved(&env);
    let start = event(&env, "claude-code", "session-start.json", |_| {});
    hook(&env, "claude-code", &start);
    wait_until("a watcher keeps the store", || live_watchers(&env) == 1);
    wait_until("status says the watcher runs", || {
        env.run(&["status"]).stdout.contains("watcher: running")
    });
    // Another session starting meanwhile starts no second one, and a
    // second watcher started by hand for the same store leaves at once.
    hook(&env, "claude-code", &start);
    let second = env.run(&["watch", "--background", "--idle-exit", "1"]);
    second.assert_success();
    assert!(
        second.stderr.contains("already keeps"),
        "{}",
        second.render()
    );
    assert_eq!(live_watchers(&env), 1);
    // Prompts are answered as before, through the watcher.
    let prompt = hook(
        &env,
        "claude-code",
        &event(&env, "claude-code", "user-prompt-submit.json", |_| {}),
    );
    assert!(added(&prompt, "UserPromptSubmit").contains("prefer-pytest"));
    // The store goes away: so does its watcher, and it reports nothing.
    fs::remove_dir_all(env.store()).unwrap();
    wait_until("the watcher left with its store", || {
        live_watchers(&env) == 0
    });
    assert!(
        !env.root().join("cache/job-reports").exists()
            || fs::read_dir(env.root().join("cache/job-reports"))
                .unwrap()
                .count()
                == 0
    );
}

#[test]
fn settings_turn_the_watcher_off() {
    let cases: [(&str, Option<&str>, &str); 3] = [
        ("MEMCTL_AUTO_WATCH=off", None, ""),
        (
            "[hooks] watch = false",
            Some("[hooks]\nwatch = false\n"),
            "",
        ),
        ("MEMCTL_AUTO_WATCH=maybe", None, "neither on nor off"),
    ];
    for (what, settings, warning) in cases {
        let mut env = project();
        if what.starts_with("MEMCTL_AUTO_WATCH=") {
            env.set_var(
                "MEMCTL_AUTO_WATCH",
                what.trim_start_matches("MEMCTL_AUTO_WATCH="),
            );
        } else {
            env.set_var("MEMCTL_AUTO_WATCH", "");
        }
        if let Some(text) = settings {
            fs::write(env.store().join(".memctl.toml"), text).unwrap();
        }
        let run = hook(
            &env,
            "claude-code",
            &event(&env, "claude-code", "session-start.json", |_| {}),
        );
        assert!(
            added(&run, "SessionStart").contains("memory-catalogue"),
            "{what}"
        );
        if warning.is_empty() {
            assert_eq!(run.stderr, "", "{what}");
        } else {
            assert!(run.stderr.contains(warning), "{what}: {}", run.stderr);
        }
        assert!(
            cache_files(&env, ".watch.log").is_empty(),
            "{what}: a watcher was started"
        );
    }
}

/// A client starts its MCP servers before its first hook (Codex 0.169 was
/// seen to): the server starts the detached watcher the hook would, which
/// outlives it, and the session's hook then finds it and starts no other.
/// Before, the server kept its own watcher, gone with the session, and
/// the hook, finding it alive, started none (issue 27).
#[test]
fn an_mcp_server_before_the_hook_leaves_the_watcher_that_stays() {
    let mut env = project();
    env.set_var("MEMCTL_AUTO_WATCH", "on");
    let _cleanup = StoresRemoved(&env);
    let server = crate::mcp::RawSession::start(&env);
    wait_until("the server's watcher job keeps the store", || {
        live_watchers(&env) == 1 && !cache_files(&env, ".watch.log").is_empty()
    });
    hook(
        &env,
        "codex",
        &event(&env, "codex", "session-start.json", |_| {}),
    );
    assert!(server.close().success());
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(live_watchers(&env), 1, "the watcher outlives the server");
    // With the watcher job off, the server watches its stores itself while
    // it lives, as it always did, and leaves nothing behind.
    let mut off = project();
    off.set_var("MEMCTL_AUTO_WATCH", "off");
    let server = crate::mcp::RawSession::start(&off);
    wait_until("the server's own watcher", || live_watchers(&off) == 1);
    assert!(server.close().success());
    wait_until("its watcher went with it", || live_watchers(&off) == 0);
    assert!(cache_files(&off, ".watch.log").is_empty());
}

/// A project whose store holds an exact duplicate and an expired record,
/// with dream's gates open after one write.
fn store_to_consolidate() -> TestEnv {
    let mut env = project();
    let body = "---\nname: NAME\ndescription: Tests use pytest\ntype: feedback\nsource: user\n---\n- use pytest\n";
    env.write_store_file("pytest.md", &body.replace("NAME", "pytest"));
    env.write_store_file("pytest-again.md", &body.replace("NAME", "pytest-again"));
    env.write_store_file(
        "freeze.md",
        "---\nname: freeze\ndescription: Deploy freeze\ntype: project\nexpires: 2020-01-01\n---\nNo deploys.\n",
    );
    // Enough other records that retiring one and merging two stays within
    // `--auto`'s 25 % removal cap (2 of 9).
    for (name, description) in [
        (
            "ci-runner",
            "CI runs on the self-hosted runner named ledger-ci",
        ),
        (
            "db-migrations",
            "Migrations are written with alembic, one per change",
        ),
        (
            "release-day",
            "Releases go out on Tuesdays after the standup",
        ),
        (
            "style-black",
            "Python code is formatted with black at 100 columns",
        ),
    ] {
        env.write_store_file(
            &format!("{name}.md"),
            &format!("---\nname: {name}\ndescription: {description}\ntype: project\n---\n{description}.\n"),
        );
    }
    env.set_var("MEMCTL_AUTO_DREAM", "on");
    env.set_var("MEMCTL_DREAM_MIN_WRITES", "1");
    env.set_var("MEMCTL_DREAM_SCAN_MINUTES", "0");
    env
}

fn report_files(env: &TestEnv) -> usize {
    fs::read_dir(env.root().join("cache/job-reports")).map_or(0, |d| d.count())
}

#[test]
fn session_start_runs_dream_auto_and_the_next_one_says_what_it_did_once() {
    let env = store_to_consolidate();
    let start = event(&env, "claude-code", "session-start.json", |_| {});
    let first = hook(&env, "claude-code", &start);
    assert_eq!(first.json().get("systemMessage"), None);
    wait_until("the background dream reported", || report_files(&env) == 1);
    assert!(
        !env.store().join("freeze.md").exists(),
        "the expired record was not retired"
    );
    let second = hook(&env, "claude-code", &start);
    let told = second.json()["systemMessage"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        told.starts_with("memctl (workspace store, background dream): workspace store: ")
            && told.contains("retire freeze (expired)")
            && told.contains("merge "),
        "{told}"
    );
    assert!(added(&second, "SessionStart").contains("memory-catalogue"));
    // Said once; and the gates, closed for a day now, start no other dream.
    let third = hook(&env, "claude-code", &start);
    assert_eq!(
        third.json().get("systemMessage"),
        None,
        "{}",
        third.render()
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(report_files(&env), 0);
}

#[test]
fn no_dream_is_started_while_another_holds_the_lock() {
    let env = store_to_consolidate();
    // The dream lock of the workspace store (beside its index, named from
    // the same hash), held here as a running dream would hold it.
    env.run(&["search", "pytest"]).assert_success();
    let index = env
        .index_files()
        .into_iter()
        .next()
        .expect("the index was built");
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(index.with_extension("dream-lock"))
        .unwrap();
    lock.try_lock().unwrap();
    hook(
        &env,
        "claude-code",
        &event(&env, "claude-code", "session-start.json", |_| {}),
    );
    assert!(
        cache_files(&env, ".dream.log").is_empty(),
        "a second dream was started"
    );
    drop(lock);
    // Free again, the next session start does run it.
    hook(
        &env,
        "claude-code",
        &event(&env, "claude-code", "session-start.json", |_| {}),
    );
    wait_until("the dream ran once the lock was free", || {
        report_files(&env) == 1
    });
}

/// Twelve sessions starting at once on one store (a load issue 25 tried
/// black-box): one watcher keeps the store, and one dream is applied, once:
/// the expired record retired and the two copies merged, not twice over.
#[test]
fn twelve_session_starts_at_once_leave_one_watcher_and_apply_one_dream() {
    let mut env = store_to_consolidate();
    env.set_var("MEMCTL_AUTO_WATCH", "on");
    let _cleanup = StoresRemoved(&env);
    let records = |env: &TestEnv| {
        let listed = env.run(&["list", "--json"]);
        listed.assert_success();
        listed.json().as_array().map_or(0, Vec::len)
    };
    let before = records(&env);
    let start = event(&env, "claude-code", "session-start.json", |_| {});
    std::thread::scope(|threads| {
        for _ in 0..12 {
            threads.spawn(|| hook(&env, "claude-code", &start));
        }
    });
    wait_until("the background dream reported", || report_files(&env) >= 1);
    wait_until("one watcher keeps the store", || live_watchers(&env) == 1);
    let dream_locks = cache_files(&env, ".dream-lock");
    wait_until("no dream runs any more", || {
        !dream_locks.iter().any(|lock| is_locked(lock))
    });
    assert_eq!(report_files(&env), 1, "more than one dream was applied");
    assert_eq!(live_watchers(&env), 1);
    assert!(!env.store().join("freeze.md").exists());
    let copies = ["pytest.md", "pytest-again.md"]
        .iter()
        .filter(|name| env.store().join(name).exists())
        .count();
    assert_eq!(copies, 1, "the two copies were not merged into one");
    // One retired, two merged into one: nothing else removed.
    assert_eq!(records(&env), before - 2);
}
