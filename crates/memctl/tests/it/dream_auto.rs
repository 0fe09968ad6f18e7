//! `dream --auto`: its gates, the dream lock (one runs, one skips; a killed
//! dream's lock is gone with it), and what an unattended dream applies.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::dream::{both_stores, fake_model, model_env, record};
use crate::env::TestEnv;

/// The dream lock files in the cache folder (one per store dreamt on).
fn dream_locks(env: &TestEnv) -> Vec<PathBuf> {
    let mut locks: Vec<PathBuf> = fs::read_dir(env.root().join("cache"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dream-lock"))
        .collect();
    locks.sort();
    locks
}

fn gates_open(env: &mut TestEnv) {
    env.set_var("MEMCTL_DREAM_MIN_HOURS", "0");
    env.set_var("MEMCTL_DREAM_MIN_WRITES", "0");
    env.set_var("MEMCTL_DREAM_SCAN_MINUTES", "0");
}

#[test]
fn auto_skips_until_enough_writes_and_scans_at_most_every_ten_minutes() {
    let env = TestEnv::new();
    env.remember("a", "user", "one", "first fact");
    env.remember("b", "user", "two", "second fact");
    let before = env.store_bytes();
    let first = env.run(&["dream", "--auto"]);
    first.assert_success();
    assert_run_snapshot!("auto_too_few_writes", env, first);
    let second = env.run(&["dream", "--auto"]);
    second.assert_success();
    assert_run_snapshot!("auto_scan_throttled", env, second);
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn auto_runs_once_gates_pass_then_waits_a_day() {
    let mut env = TestEnv::new();
    for n in 0..5 {
        env.remember(
            &format!("fact-{n}"),
            "user",
            &format!("fact {n}"),
            &format!("distinct fact number {n}"),
        );
    }
    env.set_var("MEMCTL_DREAM_SCAN_MINUTES", "0");
    let run = env.run(&["dream", "--auto"]);
    run.assert_success();
    assert!(!run.stderr.contains("Skipped"), "{}", run.render());
    let again = env.run(&["dream", "--auto"]);
    again.assert_success();
    assert!(
        again.stderr.contains("Skipped: the last dream was 0 h ago"),
        "{}",
        again.render()
    );
}

#[test]
fn auto_dream_skips_while_another_dream_holds_the_lock() {
    let mut env = TestEnv::new();
    env.remember("a", "user", "one", "first fact");
    gates_open(&mut env);
    env.run(&["dream", "--auto"]).assert_success();
    let locks = dream_locks(&env);
    assert_eq!(locks.len(), 1, "{locks:?}");
    let held = fs::OpenOptions::new().write(true).open(&locks[0]).unwrap();
    held.try_lock().unwrap();
    let skipped = env.run(&["dream", "--auto"]);
    skipped.assert_success();
    assert!(
        skipped.stderr.contains("Skipped: another dream is running"),
        "{}",
        skipped.render()
    );
    env.run(&["dream", "--yes"]).assert_code(4);
    drop(held);
    let run = env.run(&["dream", "--auto"]);
    run.assert_success();
    assert!(!run.stderr.contains("Skipped"), "{}", run.render());
}

#[test]
fn killed_dream_leaves_no_lock_that_blocks_the_next() {
    let mut env = model_env();
    let runner = fake_model(&env, "hang");
    gates_open(&mut env);
    let before = both_stores(&env);
    let mut child = env
        .std_command()
        .args(["dream", "--yes", "--llm-cmd", &runner])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the dream holds its lock.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let held = dream_locks(&env).iter().any(|lock| {
            let file = fs::OpenOptions::new().write(true).open(lock).unwrap();
            matches!(file.try_lock(), Err(fs::TryLockError::WouldBlock))
        });
        if held {
            break;
        }
        assert!(Instant::now() < deadline, "the dream never took its lock");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap(); // SIGKILL: no destructor, no cleanup
    child.wait().unwrap();
    let run = env.run(&["dream", "--auto"]);
    run.assert_success();
    assert!(!run.stderr.contains("another dream"), "{}", run.render());
    assert_eq!(both_stores(&env), before, "a killed dream left a change");
}

#[test]
fn auto_applies_only_exact_duplicates_and_expired_records() {
    let mut env = TestEnv::new();
    env.set_var("MEMCTL_DREAM_SCAN_MINUTES", "0");
    let ws = env.store();
    record(&env, &ws, "pytest", "feedback", "user", "- use pytest\n");
    // The same text in other case and spacing, and the same description.
    let again = fs::read_to_string(ws.join("pytest.md")).unwrap();
    fs::write(
        ws.join("pytest-again.md"),
        again
            .replace("- use pytest", "- Use  pytest")
            .replace("name: pytest", "name: pytest-again"),
    )
    .unwrap();
    env.remembering("freeze")
        .kind("project")
        .description("Deploy freeze")
        .expires("2020-01-01")
        .body("Deploy freeze until the release.")
        .ok();
    record(
        &env,
        &ws,
        "node-18",
        "project",
        "user",
        "We use Node 18 for the build.\n",
    );
    std::thread::sleep(Duration::from_millis(1100));
    record(
        &env,
        &ws,
        "node-22",
        "project",
        "user",
        "We use Node 22 for the build.\n",
    );
    record(
        &env,
        &ws,
        "tea",
        "user",
        "user",
        "The user drinks green tea.\n",
    );
    record(
        &env,
        &ws,
        "editor",
        "user",
        "user",
        "Edits in vim with tabs shown.\n",
    );
    record(
        &env,
        &ws,
        "ci",
        "project",
        "user",
        "CI caches the cargo registry.\n",
    );
    let run = env.run(&["dream", "--auto"]);
    run.assert_success();
    assert!(!ws.join("freeze.md").exists(), "{}", run.render());
    assert!(
        ws.join("pytest.md").exists() != ws.join("pytest-again.md").exists(),
        "{}",
        run.render()
    );
    assert!(
        ws.join("node-18.md").exists() && ws.join("node-22.md").exists(),
        "{}",
        run.render()
    );
    assert_run_snapshot!("auto_applied", env, run);
}

#[test]
fn auto_without_any_store_skips_quietly() {
    let env = TestEnv::bare();
    let run = env.run(&["dream", "--auto"]);
    run.assert_success();
    assert!(
        run.stderr.contains("Skipped: there is no store here"),
        "{}",
        run.render()
    );
    env.run(&["dream"]).assert_code(2);
}

#[test]
fn dream_waiting_for_a_held_store_lock_exits_4_and_writes_nothing() {
    let mut env = TestEnv::new();
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
    env.set_var("MEMCTL_LOCK_TIMEOUT_MS", "200");
    let before = env.store_bytes();
    // The store's write lock is an OS lock on the store folder itself.
    let held = fs::File::open(&ws).unwrap();
    held.try_lock().unwrap();
    let run = env.run(&["dream", "--yes"]);
    run.assert_code(4);
    assert!(
        run.stderr.contains("nothing was written"),
        "{}",
        run.render()
    );
    assert_eq!(env.store_bytes(), before);
    drop(held);
    env.run(&["dream", "--yes"]).assert_success();
    assert_ne!(
        env.store_bytes(),
        before,
        "the exact duplicate was not merged once the lock was free"
    );
}
