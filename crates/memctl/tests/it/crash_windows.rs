//! Issue 25 item 3: a kill at every window between two writes, made
//! deterministic with `strace -e inject=SYSCALL:signal=SIGKILL:when=N`
//! through the real binary. memctl's writes become visible only at a
//! rename or an unlink (every file is written to a temporary file first),
//! so killing the process just before the Nth `rename`, `renameat`,
//! `renameat2`, `unlink` or `unlinkat`, for every N a command makes, lands
//! in every window a crash can leave.
//!
//! After each kill, the next command must find a whole store: the first
//! reader (`search`, `list`) already repairs what the killed writer left
//! and never serves half of a change, the next write goes through, and
//! `check` passes. A forget is whole or not at all (the record is there
//! with no tombstone, or gone with one); a dream is undone whole from its
//! journal or was complete.
//!
//! strace must be installed and allowed to trace (ptrace); where it is not,
//! each test prints `SKIPPED` and why, and passes nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, SystemTime};

use crate::env::{Run, TestEnv, output_within};

/// The syscalls through which a write of memctl's becomes visible.
const VISIBLE: [&str; 5] = ["rename", "renameat", "renameat2", "unlink", "unlinkat"];

/// More kills than this at one syscall means the command loops: a bug.
const MAX_WINDOWS: usize = 200;

/// Whether strace can trace here; prints why not.
fn strace_works(test: &str) -> bool {
    let works = Command::new("strace")
        .args(["-qq", "-o", "/dev/null", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !works {
        eprintln!(
            "SKIPPED: {test}: strace is not installed or may not trace here (ptrace); the same states are tested in mdstore's recover tests"
        );
    }
    works
}

/// `memctl ARGS` under strace, killed just before the `nth` call of
/// `syscall` when there is one (`None`: traced only).
fn run_killed(env: &TestEnv, args: &[&str], kill: Option<(&str, usize)>) -> Run {
    let inner = env.std_command();
    let mut cmd = Command::new("strace");
    cmd.env_clear();
    for (name, value) in inner.get_envs() {
        if let Some(value) = value {
            cmd.env(name, value);
        }
    }
    if let Some(dir) = inner.get_current_dir() {
        cmd.current_dir(dir);
    }
    cmd.args(["-f", "-qq", "-o", "/dev/null"]);
    if let Some((syscall, nth)) = kill {
        cmd.arg("-e")
            .arg(format!("inject={syscall}:signal=SIGKILL:when={nth}"));
    }
    cmd.arg(inner.get_program()).args(args);
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().expect("strace starts");
    let output = output_within(child, "memctl under strace");
    Run {
        command_line: format!("memctl {}", args.join(" ")),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code().unwrap_or(-1),
    }
}

fn was_killed(run: &Run) -> bool {
    // strace dies of the signal that killed its tracee.
    run.code == -1 || run.code == 128 + 9
}

/// Runs `scenario` once for every window of `args`: killed before each
/// call of each visible syscall in turn, until the command makes no more
/// (the scenario returns whether its kill landed). Returns how many
/// windows were tried.
fn every_window(args: &[&str], mut scenario: impl FnMut(&str, usize) -> bool) -> usize {
    let mut windows = 0;
    for syscall in VISIBLE {
        for nth in 1..=MAX_WINDOWS {
            assert!(nth < MAX_WINDOWS, "{syscall}: {args:?} never ends");
            if !scenario(syscall, nth) {
                break;
            }
            windows += 1;
        }
    }
    windows
}

fn tombstoned(env: &TestEnv) -> BTreeSet<String> {
    let (tombstones, problems) = mdstore::tombstone::load_all(&env.store());
    assert!(problems.is_empty(), "a torn tombstone: {problems:?}");
    tombstones.into_iter().map(|t| t.id).collect()
}

fn record_ids(env: &TestEnv) -> BTreeSet<String> {
    fs::read_dir(env.store())
        .expect("the store")
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name.ends_with(".md") && name != "MEMORY.md" && !name.starts_with('.'))
                .then(|| name.trim_end_matches(".md").to_string())
        })
        .collect()
}

fn leftovers(env: &TestEnv) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if env.store().join(mdstore::txn::JOURNAL_FILE).exists() {
        found.push(PathBuf::from(mdstore::txn::JOURNAL_FILE));
    }
    found.extend(
        mdstore::tombstone::pending(&env.store())
            .into_iter()
            .map(|p| p.path),
    );
    found
}

fn listed(env: &TestEnv) -> BTreeSet<String> {
    let run = env.run(&["list", "--json"]);
    run.assert_success();
    run.json()
        .as_array()
        .expect("a list")
        .iter()
        .map(|r| r["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The next write, then `check`: both must pass on whatever the kill left.
fn next_write_and_check(env: &TestEnv, window: &str) {
    let run = env.run(&[
        "remember",
        "--yes",
        "-q",
        "--name",
        "after-the-crash",
        "--type",
        "project",
        "--description",
        "Written after the crash",
        "The store takes writes again.",
    ]);
    assert_eq!(run.code, 0, "{window}: {}", run.render());
    let run = env.run(&["check", "-q"]);
    assert_eq!(run.code, 0, "{window}: {}", run.render());
    assert!(leftovers(env).is_empty(), "{window}: {:?}", leftovers(env));
}

fn forget_world() -> TestEnv {
    let env = TestEnv::new();
    env.remember(
        "keep",
        "project",
        "Deploys go through the pipeline",
        "Deploys go through the pipeline, never by hand.",
    );
    env.remember(
        "drop",
        "project",
        "The staging database is zanzibar",
        "Staging runs on the zanzibar host.",
    );
    // The index exists, as in use.
    env.run(&["search", "pipeline"]).assert_success();
    env
}

/// A kill between `forget`'s tombstone and its unlink left the record
/// beside its tombstone: searched and recalled, and `check` blamed a merge
/// from then on. Now at every window the forget is whole or not at all.
#[test]
fn a_kill_between_a_tombstone_and_an_unlink_was_never_repaired() {
    if !strace_works("a_kill_between_a_tombstone_and_an_unlink_was_never_repaired") {
        return;
    }
    let args = ["forget", "--yes", "drop"];
    let mut outcomes = BTreeMap::new();
    let windows = every_window(&args, |syscall, nth| {
        let env = forget_world();
        let run = run_killed(&env, &args, Some((syscall, nth)));
        let window = format!("killed before {syscall} #{nth}");
        if !was_killed(&run) {
            run.assert_success();
            return false;
        }
        // The first reader sees a whole forget, or none.
        let search = env.run(&["search", "--json", "zanzibar"]);
        let served = search.code == 0;
        let present = env.store().join("drop.md").exists();
        let gone = tombstoned(&env).contains("drop");
        assert!(
            leftovers(&env).is_empty(),
            "{window}: the reader left {:?}",
            leftovers(&env)
        );
        assert_eq!(served, present, "{window}: {}", search.render());
        assert!(
            present != gone,
            "{window}: record there: {present}, tombstone: {gone}"
        );
        let context = env.run(&[
            "context",
            "--query",
            "which host runs the zanzibar staging database?",
        ]);
        assert_eq!(
            context.stdout.contains("zanzibar"),
            present,
            "{window}: {}",
            context.render()
        );
        *outcomes
            .entry(if present { "undone" } else { "finished" })
            .or_insert(0) += 1;
        next_write_and_check(&env, &window);
        // A forgotten record stays refused.
        if gone {
            let again = env.run(&[
                "remember",
                "--yes",
                "--name",
                "drop",
                "--type",
                "project",
                "--description",
                "The staging database is zanzibar",
                "Staging runs on the zanzibar host.",
            ]);
            assert_eq!(again.code, 4, "{window}: {}", again.render());
        }
        true
    });
    assert!(windows >= 3, "only {windows} windows: {outcomes:?}");
    eprintln!("forget: {windows} windows killed, outcomes {outcomes:?}");
}

/// A record beside its own tombstone, as memctl before this fix left it
/// when killed between the two: `check` names it as an interrupted forget
/// (not a merge), the next reader finishes it and serves it no more.
#[test]
fn a_record_left_beside_its_own_tombstone_was_blamed_on_a_merge() {
    let env = forget_world();
    let bytes = fs::read(env.store().join("drop.md")).expect("drop.md");
    env.run(&["forget", "--yes", "drop"]).assert_success();
    let path = env.store().join("drop.md");
    fs::write(&path, &bytes).expect("the record back");
    fs::File::options()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_modified(SystemTime::now() - Duration::from_secs(3600)))
        .expect("an older mtime");
    let check = env.run(&["check"]);
    assert_eq!(check.code, 1, "{}", check.render());
    assert!(
        check.stdout.contains("a forget was interrupted") && !check.stdout.contains("merge"),
        "{}",
        check.render()
    );
    let search = env.run(&["search", "zanzibar"]);
    assert_eq!(search.code, 1, "served: {}", search.render());
    assert!(search.stderr.contains("repaired"), "{}", search.render());
    assert!(!path.exists());
    env.run(&["check", "-q"]).assert_success();
    // Brought back later (newer than its tombstone), it is the user's: kept,
    // and `check` says so in other words.
    fs::write(&path, &bytes).expect("brought back");
    env.run(&["search", "zanzibar"]).assert_success();
    let check = env.run(&["check"]);
    assert!(check.stdout.contains("brought back"), "{}", check.render());
}

fn dream_world() -> TestEnv {
    let env = TestEnv::new();
    for id in ["pnpm", "pnpm-copy"] {
        env.write_record(
            id,
            "project",
            "CI installs with pnpm",
            "CI installs dependencies with pnpm, never npm.\n",
        );
    }
    env.write_store_file(
        "freeze.md",
        "---\nname: freeze\ndescription: Deploy freeze until the release\ntype: project\nexpires: 2020-01-01\n---\nNo deploys until the release.\n",
    );
    for id in ["keep-1", "keep-2", "keep-3", "keep-4", "keep-5"] {
        env.write_record(
            id,
            "project",
            &format!("Unrelated fact {id}"),
            &format!("Nothing to dream about in {id}.\n"),
        );
    }
    env.run(&[
        "remember",
        "--yes",
        "-q",
        "--name",
        "seed",
        "--type",
        "project",
        "--description",
        "A write so MEMORY.md is memctl's",
        "Seed.",
    ])
    .assert_success();
    env
}

fn record_bytes(env: &TestEnv) -> BTreeMap<String, Vec<u8>> {
    record_ids(env)
        .into_iter()
        .map(|id| {
            let bytes = fs::read(env.store().join(format!("{id}.md"))).expect("a record");
            (id, bytes)
        })
        .collect()
}

/// `dream` writes every record, then tombstones and unlinks what it
/// retires: a kill in between left a dream half applied. Now the next
/// command finds it whole, or undone whole from its journal.
#[test]
fn a_dream_killed_half_way_was_left_half_applied() {
    if !strace_works("a_dream_killed_half_way_was_left_half_applied") {
        return;
    }
    let args = ["dream", "--yes"];
    let finished = {
        let env = dream_world();
        run_killed(&env, &args, None).assert_success();
        (record_ids(&env), tombstoned(&env))
    };
    assert_eq!(
        finished.1.len(),
        2,
        "a merge and an expired record: {finished:?}"
    );
    let mut outcomes = BTreeMap::new();
    let windows = every_window(&args, |syscall, nth| {
        let env = dream_world();
        let before = record_bytes(&env);
        let run = run_killed(&env, &args, Some((syscall, nth)));
        let window = format!("killed before {syscall} #{nth}");
        if !was_killed(&run) {
            run.assert_success();
            return false;
        }
        // The first reader repairs: it lists a whole store.
        let ids = listed(&env);
        assert!(
            leftovers(&env).is_empty(),
            "{window}: {:?}",
            leftovers(&env)
        );
        let state = (record_ids(&env), tombstoned(&env));
        assert_eq!(ids, state.0, "{window}: list and the files differ");
        if state == finished {
            *outcomes.entry("finished").or_insert(0) += 1;
        } else {
            assert_eq!(
                record_bytes(&env),
                before,
                "{window}: neither undone nor whole"
            );
            assert!(
                state.1.is_empty(),
                "{window}: tombstones of an undone dream"
            );
            *outcomes.entry("undone").or_insert(0) += 1;
        }
        next_write_and_check(&env, &window);
        true
    });
    assert!(windows >= 8, "only {windows} windows: {outcomes:?}");
    assert!(outcomes.contains_key("undone"), "{outcomes:?}");
    eprintln!("dream: {windows} windows killed, outcomes {outcomes:?}");
}

/// An update killed between its record and `MEMORY.md`: the record is old
/// or new, whole; `check` names a stale `MEMORY.md` and says a write
/// regenerates it; the next write does.
#[test]
fn a_remember_killed_between_its_record_and_memory_md_is_repaired_by_the_next_write() {
    if !strace_works(
        "a_remember_killed_between_its_record_and_memory_md_is_repaired_by_the_next_write",
    ) {
        return;
    }
    let args = [
        "remember",
        "--yes",
        "--name",
        "keep",
        "--type",
        "project",
        "--description",
        "Deploys go through the release pipeline",
        "Deploys go through the release pipeline only.",
    ];
    let windows = every_window(&args, |syscall, nth| {
        let env = forget_world();
        let run = run_killed(&env, &args, Some((syscall, nth)));
        let window = format!("killed before {syscall} #{nth}");
        if !was_killed(&run) {
            run.assert_success();
            return false;
        }
        let text = env.read_store_file("keep.md");
        assert!(
            text.contains("revision: 1") || text.contains("revision: 2"),
            "{window}: {text}"
        );
        let check = env.run(&["check"]);
        if check.code != 0 {
            assert!(
                check.stdout.contains("MEMORY.md")
                    && check.stderr.contains("any write regenerates MEMORY.md"),
                "{window}: {}",
                check.render()
            );
        }
        next_write_and_check(&env, &window);
        true
    });
    assert!(windows >= 2, "only {windows} windows");
}
