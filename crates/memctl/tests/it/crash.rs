//! Crash safety (SPEC §6): `memctl remember` and `memctl forget` killed with
//! SIGKILL at random moments, again and again. After every kill each record
//! file is whole (old or new), no record that was not being forgotten is
//! missing, MEMORY.md is whole, and leftover temporary files are ignored by
//! readers and removed by the next write.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::thread;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;

use crate::catalog::{HEADER, expected_lines};
use crate::concurrency::{read_whole, record_paths};
use crate::env::{TestEnv, files_under, temp_files};

const ITERATIONS: usize = 100;
const SEED: u64 = 0x6d65_6d63_746c;
const STABLE: usize = 5;

/// What one killed command was asked to do.
#[derive(Debug)]
enum Op {
    Add {
        id: String,
        description: String,
        body: String,
    },
    Update {
        old_revision: u64,
        description: String,
        body: String,
    },
    Forget {
        id: String,
    },
}

fn record_bytes(env: &TestEnv) -> BTreeMap<PathBuf, Vec<u8>> {
    let all = env.store_bytes();
    record_paths(&env.store())
        .into_iter()
        .map(|p| {
            let bytes = all[&p].clone();
            (p, bytes)
        })
        .collect()
}

/// The catalogue the records now on disk should produce (plain ids and
/// descriptions only, which is all this test writes).
fn fresh_catalog(store: &mdstore::Store, paths: &[PathBuf]) -> String {
    let records: Vec<(String, Option<String>, String)> = paths
        .iter()
        .map(|p| {
            let r = read_whole(store, p);
            (
                r.id,
                r.meta.record_type.map(|t| t.as_str().to_string()),
                r.meta.description.unwrap_or_default(),
            )
        })
        .collect();
    format!("{HEADER}\n{}\n", expected_lines(&records).join("\n"))
}

fn tombstoned_ids(store_root: &Path) -> Vec<String> {
    let (tombstones, problems) = mdstore::tombstone::load_all(store_root);
    assert!(problems.is_empty(), "a torn tombstone: {problems:?}");
    tombstones.into_iter().map(|t| t.id).collect()
}

#[test]
fn killing_remember_and_forget_at_random_moments_never_tears_or_loses_a_record() {
    let mut env = TestEnv::new();
    env.set_var("MEMCTL_LOCK_TIMEOUT_MS", "60000");
    // How long one uninterrupted write takes here sets the range of the kill
    // delays, so that kills land all through a run, the write phase included,
    // on a fast machine and a slow one (nothing is asserted about time).
    let started = Instant::now();
    for i in 0..STABLE {
        env.remember(
            &format!("keep-{i}"),
            "user",
            &format!("Stable fact {i}"),
            &format!("Never touched {i}."),
        );
    }
    env.remember(
        "churn",
        "project",
        "Churn version start",
        "Churn body start.",
    );
    let one_write = started.elapsed() / (STABLE as u32 + 1);
    let max_delay_us = u64::try_from((one_write * 5 / 4).as_micros())
        .unwrap_or(u64::MAX)
        .max(1_000);
    let store = mdstore::Store::open(&env.store()).expect("the store");
    let mut rng = fastrand::Rng::with_seed(SEED);
    let mut kills_mid_run = 0;
    let mut temp_seen = 0;
    let mut completed = 0;
    let mut target_changed = 0;

    for i in 0..ITERATIONS {
        let before = record_bytes(&env);
        let catalog_before = env.read_store_file("MEMORY.md");
        let forgettable: Vec<&PathBuf> = before.keys().filter(|p| p.starts_with("add-")).collect();
        let op = match rng.u8(0..3) {
            0 if !forgettable.is_empty() => Op::Forget {
                id: forgettable[rng.usize(0..forgettable.len())]
                    .with_extension("")
                    .display()
                    .to_string(),
            },
            1 => Op::Update {
                old_revision: read_whole(&store, Path::new("churn.md"))
                    .meta
                    .revision
                    .unwrap_or(1),
                description: format!("Churn version {i}"),
                body: format!("Churn body {i}."),
            },
            _ => Op::Add {
                id: format!("add-{i:03}"),
                description: format!("Added in iteration {i}"),
                body: format!("Body of iteration {i}."),
            },
        };
        let mut cmd = env.std_command();
        match &op {
            Op::Add {
                id,
                description,
                body,
            } => {
                cmd.args([
                    "remember",
                    "--yes",
                    "--name",
                    id,
                    "--type",
                    "project",
                    "--description",
                    description,
                    body,
                ]);
            }
            Op::Update {
                description, body, ..
            } => {
                cmd.args([
                    "remember",
                    "--yes",
                    "--name",
                    "churn",
                    "--description",
                    description,
                    body,
                ]);
            }
            Op::Forget { id } => {
                cmd.args(["forget", "--yes", "--reason", "crash test", id]);
            }
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().expect("memctl starts");
        thread::sleep(Duration::from_micros(rng.u64(0..max_delay_us)));
        match child.try_wait().expect("the child's state") {
            Some(status) => {
                assert!(
                    status.success(),
                    "iteration {i}: {op:?} failed on its own: {status}"
                );
                completed += 1;
            }
            None => {
                // On Unix `kill` is SIGKILL: no destructor, no cleanup runs.
                child.kill().expect("SIGKILL");
                kills_mid_run += 1;
                let status = child.wait().expect("the killed child is reaped");
                if status.success() {
                    completed += 1;
                }
            }
        }

        let after = record_bytes(&env);
        let tombstoned = tombstoned_ids(store.root());
        let target: PathBuf = match &op {
            Op::Add { id, .. } | Op::Forget { id } => PathBuf::from(format!("{id}.md")),
            Op::Update { .. } => PathBuf::from("churn.md"),
        };
        // Every record but the target is byte for byte what it was.
        for (path, bytes) in &before {
            if *path != target {
                assert_eq!(
                    after.get(path),
                    Some(bytes),
                    "iteration {i}: {} changed or vanished ({op:?})",
                    path.display()
                );
            }
        }
        for path in after.keys() {
            assert!(
                before.contains_key(path) || *path == target,
                "iteration {i}: {} appeared",
                path.display()
            );
            read_whole(&store, path);
        }
        match &op {
            Op::Add {
                description, body, ..
            } => {
                if after.contains_key(&target) {
                    let record = read_whole(&store, &target);
                    assert_eq!(
                        record.meta.description.as_ref(),
                        Some(description),
                        "iteration {i}"
                    );
                    assert_eq!(record.body, format!("{body}\n"), "iteration {i}");
                }
            }
            Op::Update {
                old_revision,
                description,
                body,
            } => {
                let now = after
                    .get(&target)
                    .unwrap_or_else(|| panic!("iteration {i}: churn.md is gone"));
                if now != &before[&target] {
                    let record = read_whole(&store, &target);
                    assert_eq!(
                        record.meta.revision,
                        Some(old_revision + 1),
                        "iteration {i}"
                    );
                    assert_eq!(
                        record.meta.description.as_ref(),
                        Some(description),
                        "iteration {i}"
                    );
                    assert_eq!(record.body, format!("{body}\n"), "iteration {i}");
                }
            }
            Op::Forget { id } => {
                if !after.contains_key(&target) {
                    assert!(
                        tombstoned.contains(id),
                        "iteration {i}: {id} vanished without a tombstone"
                    );
                }
            }
        }
        if before.get(&target) != after.get(&target) {
            target_changed += 1;
        }
        let catalog = env.read_store_file("MEMORY.md");
        let paths: Vec<PathBuf> = after.keys().cloned().collect();
        assert!(
            catalog == catalog_before || catalog == fresh_catalog(&store, &paths),
            "iteration {i}: MEMORY.md is neither the old nor the new catalogue:\n{catalog}"
        );
        if !temp_files(&env.store()).is_empty() {
            temp_seen += 1;
        }
    }
    println!(
        "crash test: seed {SEED:#x}, {ITERATIONS} runs, kills within {max_delay_us} µs: {kills_mid_run} killed mid-run, \
         {completed} completed, {target_changed} changed their record, {temp_seen} times temporary files were left"
    );
    // Kills that all land before memctl starts, or after it ends, would make
    // this a test of ordinary writes.
    assert!(
        kills_mid_run > 0 && target_changed > 0,
        "no kill landed while a write was under way ({kills_mid_run} mid-run, {target_changed} changed)"
    );
    for i in 0..STABLE {
        assert!(
            env.store().join(format!("keep-{i}.md")).is_file(),
            "keep-{i} was lost"
        );
    }

    // Plant leftovers a crash could leave, at the top and in the tombstones.
    env.write_store_file(".k1l2m3.memctl-tmp", "---\nname: torn\ndescrip");
    env.write_store_file(".tombstones/.n4o5p6.memctl-tmp", "{\"id\": \"tor");
    let before_reads = files_under(&env.store());
    let list = env.run(&["list", "--json"]);
    list.assert_success();
    assert!(
        !list.all_output().contains("memctl-tmp") && !list.stdout.contains("torn"),
        "{}",
        list.render()
    );
    let rows: Vec<serde_json::Value> = serde_json::from_str(&list.stdout).expect("list --json");
    assert_eq!(rows.len(), record_paths(&env.store()).len());
    let check = env.run(&["check"]);
    // A kill between a record's write and MEMORY.md's leaves MEMORY.md
    // behind, which check reports (SPEC §3); the records are clean.
    assert!(
        check
            .stdout
            .lines()
            .all(|l| l.starts_with(&format!("{}/MEMORY.md:", env.store().display()))),
        "{}",
        check.render()
    );
    assert!(
        !check.all_output().contains("memctl-tmp"),
        "{}",
        check.render()
    );
    assert_eq!(
        files_under(&env.store()),
        before_reads,
        "readers removed or changed something"
    );

    env.remember(
        "after-the-crashes",
        "project",
        "Written after the crash test",
        "All clean.",
    );
    assert_eq!(
        temp_files(&env.store()),
        Vec::<PathBuf>::new(),
        "the next write removes leftovers"
    );
    let paths = record_paths(&env.store());
    assert_eq!(
        env.read_store_file("MEMORY.md"),
        fresh_catalog(&store, &paths),
        "the next write regenerates MEMORY.md"
    );
    env.run(&["check"]).assert_success();
}
