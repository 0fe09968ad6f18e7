//! memctl pointed at a Claude Code memory folder
//! (`~/.claude/projects/<project>/memory/`: one `.md` a memory, and a
//! `MEMORY.md` index its model wrote): the memories are records as they
//! are, and the model-written index is kept, never lost (SPEC §3,
//! docs/agents.md).

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use crate::env::TestEnv;

/// A copy of `tests/fixtures/claude-code-memory` laid out as Claude Code
/// lays it out, inside the test's home.
fn claude_memory_folder(env: &TestEnv) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code-memory");
    let folder = env
        .root()
        .join("home/.claude/projects/-home-dana-src-shopfront/memory");
    fs::create_dir_all(&folder).expect("the memory folder");
    for entry in fs::read_dir(&fixture).expect("the fixture") {
        let entry = entry.expect("a fixture file");
        fs::copy(entry.path(), folder.join(entry.file_name())).expect("a copy");
    }
    folder
}

fn original_index() -> String {
    fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code-memory/MEMORY.md"),
    )
    .expect("the fixture's MEMORY.md")
}

#[test]
fn claude_code_memory_folder_is_a_store_and_its_model_written_index_is_kept() {
    let env = TestEnv::bare();
    let folder = claude_memory_folder(&env);
    let store = folder.display().to_string();
    let list = env.run(&["--store", &store, "list", "--json"]);
    list.assert_success();
    let ids: Vec<String> = list
        .json()
        .as_array()
        .expect("an array")
        .iter()
        .map(|r| r["id"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        ids.len(),
        4,
        "every Claude Code memory is a record: {ids:?}"
    );
    let search = env.run(&["--store", &store, "search", "--json", "real database mocks"]);
    search.assert_success();
    assert_eq!(
        search.hit_ids().first().map(String::as_str),
        Some("feedback_testing")
    );

    let run = env.run(&[
        "--store",
        &store,
        "remember",
        "--yes",
        "--name",
        "prefer-pnpm",
        "--type",
        "feedback",
        "--description",
        "This repository uses pnpm, never npm",
        "npm rewrites pnpm-lock.yaml.",
    ]);
    run.assert_success();
    assert!(
        run.stderr.contains("MEMORY.md.before-memctl"),
        "the user is told where the index went\n{}",
        run.render()
    );
    assert_eq!(
        fs::read_to_string(folder.join("MEMORY.md.before-memctl")).expect("the kept index"),
        original_index()
    );
    let index = fs::read_to_string(folder.join("MEMORY.md")).expect("the new index");
    for line in [
        "(feedback_testing.md)",
        "(user_role.md)",
        "(project_merge_freeze.md)",
        "(reference_linear.md)",
        "(prefer-pnpm.md)",
    ] {
        assert!(index.contains(line), "{line} missing from\n{index}");
    }
    // The memories Claude Code wrote are read, never rewritten.
    assert_eq!(
        fs::read_to_string(folder.join("feedback_testing.md")).expect("a memory"),
        fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/claude-code-memory/feedback_testing.md")
        )
        .expect("the fixture")
    );
}

#[test]
fn index_rewritten_by_claude_code_after_memctl_took_over_is_kept_too() {
    let mut env = TestEnv::bare();
    let folder = claude_memory_folder(&env);
    env.set_var("MEMCTL_STORE", folder.display().to_string());
    env.remember("prefer-pnpm", "feedback", "Use pnpm", "Never npm.");
    // Claude Code's model edits the index again, as it does when auto memory is on.
    let edited = format!(
        "{}- [Deploys](project_deploys.md) — Fridays only\n",
        original_index()
    );
    fs::write(folder.join("MEMORY.md"), &edited).expect("the model's edit");
    env.remember(
        "deploy-day",
        "project",
        "Deploys happen on Fridays",
        "Fridays only.",
    );
    assert_eq!(
        fs::read_to_string(folder.join("MEMORY.md.before-memctl")).expect("the first copy"),
        original_index()
    );
    assert_eq!(
        fs::read_to_string(folder.join("MEMORY.md.before-memctl-2")).expect("the second copy"),
        edited
    );
}
