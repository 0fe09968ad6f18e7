//! Issue 15, item 7: memory is private. The global store was created 0755;
//! it is created 0700, and so are the cache folder memctl creates and the
//! session, gate and stamp files in it (0600; the library move had made
//! session files 0644). The workspace store is shared with the project, so
//! it is made as the umask says.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::json;

use crate::env::TestEnv;

fn mode(path: &Path) -> u32 {
    fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn the_global_store_was_created_0755() {
    let env = TestEnv::new();
    env.run(&["init", "--global"]).assert_success();
    assert_eq!(mode(&env.global_store()), 0o700);
    // Created by the first write to it, too; its parents as well.
    let mut env = TestEnv::new();
    let nested = env.root().join("data/memctl/global");
    env.set_var("MEMCTL_GLOBAL_DIR", nested.display().to_string());
    env.run(&[
        "remember",
        "--global",
        "--yes",
        "--name",
        "editor",
        "--type",
        "user",
        "--description",
        "The user edits with Helix",
        "Helix, not Vim.",
    ])
    .assert_success();
    assert_eq!(mode(&nested), 0o700);
    assert_eq!(mode(&env.root().join("data/memctl")), 0o700);
    // A folder that exists keeps the mode its owner gave it.
    fs::set_permissions(&nested, fs::Permissions::from_mode(0o750)).expect("chmod");
    env.run(&["init", "--global"]).assert_success();
    assert_eq!(mode(&nested), 0o750);
    // The workspace store is the project's: the umask decides.
    assert_ne!(mode(&env.store()) & 0o055, 0, "{:o}", mode(&env.store()));
}

#[test]
fn session_and_gate_files_in_the_cache_were_readable_by_others() {
    let mut env = TestEnv::new();
    let cache = env.root().join("fresh-cache");
    env.set_var("MEMCTL_CACHE_DIR", cache.display().to_string());
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
        "Sum the invoice lines as Decimal, then round the total half-even.",
    );
    let event = json!({
        "session_id": "9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f",
        "cwd": env.work().display().to_string(),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "should the new test for this project use pytest or unittest?",
    });
    let run = env.run_stdin(&["context", "--hook", "claude-code"], &event.to_string());
    run.assert_success();
    assert!(run.stdout.contains("prefer-pytest"), "{}", run.render());
    assert_eq!(mode(&cache), 0o700);
    let sessions = cache.join("context-sessions");
    assert_eq!(mode(&sessions), 0o700);
    let files: Vec<_> = fs::read_dir(&sessions)
        .expect("the session folder")
        .map(|e| e.expect("an entry").path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(mode(&files[0]), 0o600);

    // A session file left 0644 by an earlier version becomes private again.
    fs::set_permissions(&files[0], fs::Permissions::from_mode(0o644)).expect("chmod");
    let event = json!({
        "session_id": "9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f",
        "cwd": env.work().display().to_string(),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "are invoice totals rounded with Decimal at the end?",
    });
    let run = env.run_stdin(&["context", "--hook", "claude-code"], &event.to_string());
    assert!(run.stdout.contains("invoice-rounding"), "{}", run.render());
    assert_eq!(mode(&files[0]), 0o600);

    // dream --auto's gate state.
    env.run(&["dream", "--auto"]).assert_success();
    let gates: Vec<_> = fs::read_dir(&cache)
        .expect("the cache")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".dream.json"))
        .collect();
    assert_eq!(
        gates.len(),
        1,
        "{:?}",
        fs::read_dir(&cache).map(|d| d.count())
    );
    assert_eq!(mode(&gates[0]), 0o600);
}
