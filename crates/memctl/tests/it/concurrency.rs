//! Many `memctl` processes writing one store at once (issue 2, "How it is
//! tested"): nothing lost, nothing torn, exactly one winner per revision.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Barrier;

use pretty_assertions::assert_eq;

use crate::catalog::{HEADER, expected_lines};
use crate::env::{TestEnv, temp_files};

const WORKERS: usize = 8;
const RECORDS_PER_WORKER: usize = 50;

/// The relative paths of the record files in `store` (no dotfiles, no MEMORY.md).
pub fn record_paths(store: &Path) -> Vec<PathBuf> {
    crate::env::files_under(store)
        .into_keys()
        .filter(|p| {
            p.extension().is_some_and(|e| e.eq_ignore_ascii_case("md"))
                && !p
                    .components()
                    .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
                && !p.as_os_str().eq_ignore_ascii_case("MEMORY.md")
        })
        .collect()
}

/// Reads a record with mdstore and insists it is whole: strict YAML, no problems.
pub fn read_whole(store: &mdstore::Store, rel: &Path) -> mdstore::Record {
    let record = store
        .read_record(rel)
        .unwrap_or_else(|s| panic!("{}: {}", s.rel_path.display(), s.reason));
    assert!(
        record.is_strict(),
        "{} is not strict YAML: {:?}",
        rel.display(),
        record.problems
    );
    assert!(
        record.problems.is_empty(),
        "{}: {:?}",
        rel.display(),
        record.problems
    );
    record
}

fn description(worker: usize, n: usize) -> String {
    format!("Worker {worker} fact {n}")
}

#[test]
fn eight_processes_remembering_fifty_records_each_lose_nothing() {
    let mut env = TestEnv::new();
    // Waiting is the point here; the default 10 s could run out on a loaded machine.
    env.set_var("MEMCTL_LOCK_TIMEOUT_MS", "300000");
    let barrier = Barrier::new(WORKERS);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..WORKERS)
            .map(|worker| {
                let env = &env;
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    let mut failures = Vec::new();
                    for n in 0..RECORDS_PER_WORKER {
                        let name = format!("w{worker}-r{n:02}");
                        let run = env
                            .remembering(&name)
                            .kind("project")
                            .description(&description(worker, n))
                            .body(&format!(
                                "Body of worker {worker}, record {n}.\nSecond line."
                            ))
                            .run();
                        if run.code != 0 {
                            failures.push(run.render());
                        }
                    }
                    failures
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a worker thread"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} writes failed:\n{}",
        failures.len(),
        failures.join("\n")
    );

    let store = mdstore::Store::open(&env.store()).expect("the store");
    let mut expected = Vec::new();
    for worker in 0..WORKERS {
        for n in 0..RECORDS_PER_WORKER {
            let id = format!("w{worker}-r{n:02}");
            let record = read_whole(&store, Path::new(&format!("{id}.md")));
            assert_eq!(
                record.meta.description.as_deref(),
                Some(description(worker, n).as_str())
            );
            assert_eq!(
                record.body,
                format!("Body of worker {worker}, record {n}.\nSecond line.\n")
            );
            assert_eq!(record.meta.revision, Some(1));
            expected.push((id, Some("project".to_string()), description(worker, n)));
        }
    }
    assert_eq!(
        record_paths(&env.store()).len(),
        WORKERS * RECORDS_PER_WORKER,
        "no extra files"
    );

    let listed = env.run(&["list", "--json"]);
    listed.assert_success();
    let rows: Vec<serde_json::Value> = serde_json::from_str(&listed.stdout).expect("list --json");
    assert_eq!(rows.len(), WORKERS * RECORDS_PER_WORKER);

    // MEMORY.md holds 200 lines: what fits, in order, then the exact count of the rest.
    let catalog = env.read_store_file("MEMORY.md");
    let lines: Vec<&str> = catalog.lines().collect();
    assert_eq!(lines.len(), 200);
    assert_eq!(lines[0], HEADER);
    let entries = &lines[1..lines.len() - 1];
    assert_eq!(entries, &expected_lines(&expected)[..entries.len()]);
    assert_eq!(
        lines[lines.len() - 1],
        format!(
            "- … {} more records not listed: MEMORY.md is limited to 200 lines and 25000 bytes; run `memctl list` to see them all.",
            WORKERS * RECORDS_PER_WORKER - entries.len()
        )
    );
    assert_eq!(
        temp_files(&env.store()),
        Vec::<PathBuf>::new(),
        "temporary files left behind"
    );
}

/// Spawns one `remember` that updates `counter` if it is at `revision`.
fn spawn_update(env: &TestEnv, revision: u64, round: u64, attempt: usize) -> Child {
    let mut cmd = env.std_command();
    cmd.args([
        "remember",
        "--yes",
        "--name",
        "counter",
        "--expect-revision",
        &revision.to_string(),
        "--description",
        &format!("Round {round} attempt {attempt}"),
        &format!("Written by attempt {attempt} of round {round}."),
    ]);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().expect("memctl starts")
}

#[test]
fn eight_processes_racing_on_one_revision_leave_exactly_one_winner() {
    const ROUNDS: u64 = 4;
    let mut env = TestEnv::new();
    env.set_var("MEMCTL_LOCK_TIMEOUT_MS", "300000");
    env.remember("counter", "project", "Round 0", "The first version.");
    let store = mdstore::Store::open(&env.store()).expect("the store");
    for round in 1..=ROUNDS {
        let revision = round;
        let children: Vec<Child> = (0..WORKERS)
            .map(|k| spawn_update(&env, revision, round, k))
            .collect();
        let outcomes: Vec<(usize, i32, String)> = children
            .into_iter()
            .enumerate()
            .map(|(k, child)| {
                let output = crate::env::output_within(child, "memctl remember");
                let said = String::from_utf8_lossy(&output.stderr).into_owned();
                (k, output.status.code().unwrap_or(-1), said)
            })
            .collect();
        let winners: Vec<usize> = outcomes
            .iter()
            .filter(|(_, code, _)| *code == 0)
            .map(|(k, _, _)| *k)
            .collect();
        let losers: BTreeSet<i32> = outcomes
            .iter()
            .filter(|(_, code, _)| *code != 0)
            .map(|(_, c, _)| *c)
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {outcomes:#?}");
        assert_eq!(
            losers,
            BTreeSet::from([4]),
            "round {round}: every loser exits 4: {outcomes:#?}"
        );

        let record = read_whole(&store, Path::new("counter.md"));
        let winner = winners[0];
        assert_eq!(record.meta.revision, Some(revision + 1), "round {round}");
        assert_eq!(
            record.meta.description,
            Some(format!("Round {round} attempt {winner}"))
        );
        assert_eq!(
            record.body,
            format!("Written by attempt {winner} of round {round}.\n")
        );
    }
    let record = read_whole(&store, Path::new("counter.md"));
    assert_eq!(record.meta.revision, Some(1 + ROUNDS));
    assert_eq!(record_paths(&env.store()), [PathBuf::from("counter.md")]);
    assert_eq!(temp_files(&env.store()), Vec::<PathBuf>::new());
    assert!(
        env.read_store_file("MEMORY.md")
            .contains(&format!("— Round {ROUNDS} attempt "))
    );
}
