//! `memctl watch` (SPEC §4): while it runs, searches re-read only what it
//! marked dirty, and must still answer from the files as they are at once
//! after any change; when it dies, later searches compare the whole store
//! again; one watcher per store.

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use memctl_testkit::RecordFile;
use pretty_assertions::assert_eq;

use crate::env::{TestEnv, wait_within};
use crate::freshness::{assert_exit_matches_hits, set};

/// Not a timing assertion: only how long a broken watcher may hang the test
/// before it fails with what the watcher said.
const PATIENCE: Duration = Duration::from_secs(120);

/// A running `memctl watch` child; killed when dropped.
struct Watch {
    child: Child,
    stderr: Receiver<String>,
    /// What it said before "Watching…", and that line.
    said: Vec<String>,
}

impl Watch {
    /// Starts `memctl ARGS…` (a watch) and waits for its "Watching" line.
    fn start(env: &TestEnv, args: &[&str]) -> Watch {
        let mut cmd = env.std_command();
        cmd.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("memctl watch starts");
        let pipe = child.stderr.take().expect("a stderr pipe");
        let (send, stderr) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut watch = Watch {
            child,
            stderr,
            said: Vec::new(),
        };
        loop {
            match watch.stderr.recv_timeout(PATIENCE) {
                Ok(line) => {
                    let ready = line.starts_with("Watching");
                    watch.said.push(line);
                    if ready {
                        return watch;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no \"Watching\" line; it said: {:?}", watch.said)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = wait_within(&mut watch.child, "the watcher");
                    panic!("memctl watch ended ({status}); it said: {:?}", watch.said)
                }
            }
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL: no destructor, no cleanup runs in the watcher.
    fn kill(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("the killed watcher is reaped");
    }

    /// Stops it as `kill` does (SIGTERM) and waits, at most a deadline,
    /// for it to end; returns what it said after its "Watching" line. Not
    /// SIGINT: a test run as a background job (`nohup`, `&` in a script,
    /// some CI runners) starts its children with SIGINT ignored, and the
    /// watcher never stopped.
    fn terminate(mut self) -> Vec<String> {
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "kill -TERM failed");
        wait_within(&mut self.child, "the terminated watcher");
        self.stderr.try_iter().collect()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `search --json QUERY…` while a watcher may run: the ids found. A search
/// whose cookie the watcher did not answer in time compares the whole store
/// instead and says so on stderr; nothing else may be said.
#[track_caller]
fn found(env: &TestEnv, query: &[&str]) -> BTreeSet<String> {
    let mut args = vec!["search", "--json", "--limit", "1000"];
    args.extend_from_slice(query);
    let run = env.run(&args);
    assert_exit_matches_hits(&run);
    SEARCHED.fetch_add(1, Ordering::Relaxed);
    for line in run.stderr.lines() {
        assert!(
            line.starts_with("warning: the watcher did not answer within"),
            "{}",
            run.render()
        );
        FELL_BACK.fetch_add(1, Ordering::Relaxed);
    }
    run.hit_ids().into_iter().collect()
}

/// Searches that found the watcher too slow (on a loaded machine) and
/// compared the whole store. A few are tolerated; all of them would mean the
/// watcher never answered, and the test would prove nothing about it.
static FELL_BACK: AtomicUsize = AtomicUsize::new(0);
/// Searches made through `found`.
static SEARCHED: AtomicUsize = AtomicUsize::new(0);

/// Fails when no search so far was answered by the watcher.
#[track_caller]
fn assert_the_watcher_answered() {
    let (fell_back, searched) = (
        FELL_BACK.load(Ordering::Relaxed),
        SEARCHED.load(Ordering::Relaxed),
    );
    println!(
        "{fell_back} of {searched} searches found the watcher too slow and compared the store"
    );
    assert!(
        fell_back < searched,
        "the watcher answered none of {searched} searches"
    );
}

fn record(id: &str, description: &str, body: &str) -> String {
    RecordFile::new(id)
        .description(description)
        .body(&format!("{body}\n"))
        .verbatim()
        .text()
}

/// A store with two records; no index yet.
fn store() -> TestEnv {
    let env = TestEnv::new();
    env.write_record(
        "deploy-freeze",
        "project",
        "No deploys on Fridays",
        "The freeze starts at noon.",
    );
    env.write_record(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "Never unittest.",
    );
    env
}

#[test]
fn searches_stay_fresh_while_a_watcher_runs_and_after_it_is_killed() {
    let env = store();
    let watch = Watch::start(&env, &["watch"]);
    assert_eq!(
        watch.said.last().map(String::as_str),
        Some(
            format!(
                "Watching {} for changes; searches now re-read only what changed. Ctrl-C stops.",
                env.store().display()
            )
            .as_str()
        )
    );
    assert!(
        watch.said[0].starts_with("index rebuilt (workspace store): there was no index file;"),
        "the watcher built the missing index: {:?}",
        watch.said
    );
    let status = env.run(&["status"]);
    status.assert_success();
    assert!(
        status.stdout.contains("  watcher: running ("),
        "{}",
        status.render()
    );

    // Each change, then a search at once.
    env.replace_store_file(
        "deploy-freeze.md",
        &record(
            "deploy-freeze",
            "No deploys on Fridays",
            "The embargo starts at noon.",
        ),
    );
    assert_eq!(found(&env, &["embargo"]), set(&["deploy-freeze"]));
    assert_eq!(
        found(&env, &["freeze"]),
        set(&["deploy-freeze"]),
        "in its id only now"
    );
    assert_eq!(
        found(&env, &["\"freeze starts\""]),
        set(&[]),
        "the old text is gone"
    );

    fs::write(
        env.store().join("prefer-pytest.md"),
        record(
            "prefer-pytest",
            "Tests use pytest",
            "Always pytest fixtures.",
        ),
    )
    .expect("an in-place edit");
    assert_eq!(found(&env, &["fixtures"]), set(&["prefer-pytest"]));
    assert_eq!(found(&env, &["unittest"]), set(&[]));

    env.write_store_file(
        "ci-cache.md",
        &record("ci-cache", "CI caches cargo", "Lockfile."),
    );
    assert_eq!(found(&env, &["lockfile"]), set(&["ci-cache"]));
    fs::rename(
        env.store().join("ci-cache.md"),
        env.store().join("build-cache.md"),
    )
    .expect("renamed by hand");
    assert_eq!(found(&env, &["lockfile"]), set(&["build-cache"]));
    fs::remove_file(env.store().join("build-cache.md")).expect("deleted by hand");
    assert_eq!(found(&env, &["lockfile"]), set(&[]));

    // A folder made after the watcher started, and one moved in from outside.
    env.write_store_file(
        "team/owners.md",
        &record("owners", "Who owns what", "Platform team."),
    );
    assert_eq!(found(&env, &["platform"]), set(&["team/owners"]));
    let outside = env.root().join("tmp/imported");
    fs::create_dir_all(&outside).expect("a folder outside the store");
    fs::write(
        outside.join("a.md"),
        record("a", "Imported", "Platform notes."),
    )
    .expect("a file");
    fs::rename(&outside, env.store().join("imported")).expect("moved into the store");
    assert_eq!(
        found(&env, &["platform"]),
        set(&["team/owners", "imported/a"])
    );
    fs::rename(env.store().join("team"), env.store().join("squad")).expect("folder renamed");
    assert_eq!(
        found(&env, &["platform"]),
        set(&["squad/owners", "imported/a"])
    );
    fs::remove_dir_all(env.store().join("imported")).expect("folder deleted");
    assert_eq!(found(&env, &["platform"]), set(&["squad/owners"]));

    // A burst of changes, then one search.
    for n in 0..200 {
        env.write_store_file(
            &format!("burst/r{n:03}.md"),
            &record(&format!("r{n:03}"), "Burst", "Avalanche."),
        );
    }
    assert_eq!(found(&env, &["avalanche"]).len(), 200);

    // A full rebuild replaces the index file under the watcher.
    env.run(&["reindex"]).assert_success();
    env.replace_store_file(
        "deploy-freeze.md",
        &record(
            "deploy-freeze",
            "No deploys on Fridays",
            "The standstill starts at noon.",
        ),
    );
    assert_eq!(found(&env, &["standstill"]), set(&["deploy-freeze"]));
    assert_eq!(found(&env, &["embargo"]), set(&[]));

    // memctl's own writes.
    env.remember("who", "user", "A Rust developer", "Ten years of Rust.");
    assert_eq!(found(&env, &["rust"]), set(&["who"]));
    env.run(&["forget", "--yes", "who"]).assert_success();
    assert_eq!(found(&env, &["rust"]), set(&[]));

    assert_the_watcher_answered();

    // Changes the watcher may not have seen when it dies.
    env.replace_store_file(
        "deploy-freeze.md",
        &record(
            "deploy-freeze",
            "No deploys on Fridays",
            "The moratorium starts at noon.",
        ),
    );
    fs::remove_dir_all(env.store().join("burst")).expect("burst removed");
    watch.kill();
    let status = env.run(&["status"]);
    assert!(
        status.stdout.contains("  watcher: none"),
        "{}",
        status.render()
    );
    assert_eq!(found(&env, &["moratorium"]), set(&["deploy-freeze"]));
    assert_eq!(found(&env, &["avalanche"]), set(&[]));
    // And changes made after it died.
    env.replace_store_file(
        "deploy-freeze.md",
        &record(
            "deploy-freeze",
            "No deploys on Fridays",
            "The blackout starts at noon.",
        ),
    );
    assert_eq!(found(&env, &["blackout"]), set(&["deploy-freeze"]));
    assert_eq!(found(&env, &["moratorium"]), set(&[]));
    env.run(&["reindex", "--check"]).assert_success();
}

#[test]
fn a_second_watcher_on_the_same_store_exits_4_while_the_first_runs() {
    let env = store();
    env.run(&["reindex"]).assert_success();
    let first = Watch::start(&env, &["watch"]);
    assert_eq!(
        first.said.len(),
        1,
        "an index that exists is not rebuilt: {:?}",
        first.said
    );

    let second = env.run(&["watch"]);
    second.assert_code(4);
    assert_run_snapshot!(env, second);
    let global_option_after = env.run(&["watch", "-q"]);
    global_option_after.assert_code(4);

    // `kill` stops the first; then a watcher can start again.
    let after = first.terminate();
    assert!(
        after.iter().all(|l| !l.contains("error")),
        "the terminated watcher said {after:?}"
    );
    let status = env.run(&["status"]);
    assert!(
        status.stdout.contains("  watcher: none"),
        "{}",
        status.render()
    );
    // Changes made while no watcher ran are caught by the next one's
    // start-up, before its searches trust its marks alone.
    env.replace_store_file(
        "deploy-freeze.md",
        &record(
            "deploy-freeze",
            "No deploys on Fridays",
            "The embargo starts at noon.",
        ),
    );
    let third = Watch::start(&env, &["watch"]);
    assert_eq!(found(&env, &["embargo"]), set(&["deploy-freeze"]));
    assert_eq!(found(&env, &["\"freeze starts\""]), set(&[]));
    env.write_record("who", "user", "A Rust developer", "Ten years of Rust.");
    assert_eq!(found(&env, &["rust"]), set(&["who"]));
    third.kill();
}

#[test]
fn watch_without_a_store_is_bad_input() {
    let env = TestEnv::bare();
    let run = env.run(&["watch"]);
    run.assert_code(2);
    assert_run_snapshot!(env, run);
}

#[test]
fn watcher_exit_message_says_why_once() {
    let env = store();
    let mut watch = Watch::start(&env, &["watch"]);
    let moved = env.work().join(".memory-moved");
    fs::rename(env.store(), &moved).expect("the store moved away");
    let mut said = Vec::new();
    loop {
        match watch.stderr.recv_timeout(PATIENCE) {
            Ok(line) => said.push(line),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => panic!("the watcher went on; it said: {said:?}"),
        }
    }
    let status = wait_within(&mut watch.child, "the watcher");
    assert_eq!(status.code(), Some(5), "{said:?}");
    let text = said.join("\n");
    assert_eq!(text.matches("stopped").count(), 1, "{text}");
    assert_eq!(text.matches("was moved or deleted").count(), 1, "{text}");
}
