//! `memctl status`: the stores, their record counts and the MEMORY.md budget.

use pretty_assertions::assert_eq;

use crate::env::{Run, TestEnv};

/// The store and budget lines of `status`, without the index lines that
/// belong to the search index's own tests.
fn store_lines(run: &Run) -> Run {
    let kept: String = run
        .stdout
        .lines()
        .filter(|l| {
            l.starts_with("workspace store")
                || l.starts_with("global store")
                || l.starts_with("  records")
                || l.starts_with("  MEMORY.md")
        })
        .map(|l| format!("{l}\n"))
        .collect();
    Run {
        stdout: kept,
        ..run.clone()
    }
}

#[test]
fn status_shows_both_stores_counts_and_budget() {
    let env = TestEnv::new();
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    env.remember(
        "ci-cache",
        "project",
        "CI caches cargo",
        "Keyed on Cargo.lock.",
    );
    std::fs::write(
        env.store().join("latin1.md"),
        b"---\ndescription: caf\xe9\n---\n",
    )
    .expect("file");
    let before = env.store_bytes();
    let run = env.run(&["status"]);
    run.assert_success();
    assert_run_snapshot!(env, store_lines(&run));
    assert_eq!(env.store_bytes(), before, "status changes nothing");
}

#[test]
fn status_with_a_global_store() {
    let env = TestEnv::new();
    env.run(&[
        "remember",
        "--yes",
        "--global",
        "--name",
        "editor",
        "--type",
        "user",
        "--description",
        "Uses helix",
        "Helix.",
    ])
    .assert_success();
    let run = env.run(&["status"]);
    run.assert_success();
    assert_run_snapshot!(env, store_lines(&run));
}

#[test]
fn status_without_any_store() {
    let env = TestEnv::bare();
    let run = env.run(&["status"]);
    run.assert_success();
    assert_run_snapshot!(env, store_lines(&run));
}

#[test]
fn status_shows_records_left_out_of_memory_md() {
    let env = TestEnv::new();
    for i in 0..205 {
        env.write_record(
            &format!("r{i:03}"),
            "project",
            &format!("Fact {i}"),
            "Body.",
        );
    }
    let run = env.run(&["status"]);
    run.assert_success();
    let budget = run
        .stdout
        .lines()
        .find(|l| l.starts_with("  MEMORY.md"))
        .expect("a budget line");
    assert!(
        budget.contains("200 of 200 lines") && budget.ends_with("; 7 records left out"),
        "{budget}"
    );
}
