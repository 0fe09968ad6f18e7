//! `memctl status`: the stores, their record counts and the MEMORY.md budget.

use pretty_assertions::assert_eq;

use crate::catalog::HEADER;
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
    env.remembering_unnamed()
        .global()
        .name("editor")
        .kind("user")
        .description("Uses helix")
        .body("Helix.")
        .ok();
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
    env.run(&["init"]).assert_success();
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

/// The `  MEMORY.md: …` line of `status`.
fn budget_line(run: &Run) -> String {
    run.stdout
        .lines()
        .find(|l| l.starts_with("  MEMORY.md"))
        .unwrap_or_else(|| panic!("a budget line: {}", run.render()))
        .to_string()
}

#[test]
fn status_measures_memory_md_on_disk() {
    let env = TestEnv::new();
    env.remember("a", "project", "Fact a", "A.");
    let path = env.store().join("MEMORY.md");
    let mut text = std::fs::read_to_string(&path).expect("MEMORY.md");
    for i in 0..248 {
        text += &format!("- a line added by hand, number {i}, long enough to weigh something\n");
    }
    std::fs::write(&path, &text).expect("MEMORY.md");
    let run = env.run(&["status"]);
    run.assert_success();
    assert_eq!(
        budget_line(&run),
        format!(
            "  MEMORY.md: 250 of 200 lines, {} of 25000 bytes (over the budget); out of date: 248 lines differ from what memctl would generate (`memctl check` lists them)",
            text.len()
        )
    );
}

#[test]
fn status_says_when_memory_md_is_missing_or_not_memctls() {
    let env = TestEnv::new();
    env.remember("a", "project", "Fact a", "A.");
    let path = env.store().join("MEMORY.md");
    std::fs::remove_file(&path).expect("removed");
    let run = env.run(&["status"]);
    let generated = format!("{HEADER}\n- [a](a.md) — Fact a\n");
    assert_eq!(
        budget_line(&run),
        format!(
            "  MEMORY.md: missing (any write, or `memctl init`, generates it: 2 of 200 lines, {} of 25000 bytes (1% of the budget))",
            generated.len()
        )
    );
    std::fs::write(&path, "# My notes\n\n## Feedback\n- [a](a.md)\n").expect("MEMORY.md");
    let run = env.run(&["status"]);
    assert_eq!(
        budget_line(&run),
        "  MEMORY.md: 4 of 200 lines, 36 of 25000 bytes (2% of the budget); not written by memctl: the next write keeps it as MEMORY.md.before-memctl and generates a new one"
    );
}
