//! Issue 25 item 7, small things an attacker's week found: files in the
//! cache folder readable by others, a quiet dream that was not quiet,
//! `context --max 0` saying nothing, and nanoseconds in `created`.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::env::TestEnv;

fn mode(path: &Path) -> u32 {
    fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .expect("the cache folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Two copies of one record, written by hand: a dream merges them.
fn remember_two(env: &TestEnv) {
    for id in ["prefer-pytest", "prefer-pytest-copy"] {
        env.write_record(
            id,
            "feedback",
            "Tests in this project use pytest, never unittest",
            "New tests use pytest functions and fixtures.",
        );
    }
}

/// The index (and its WAL and shared memory), `.dream-lock`,
/// `.pending.lock` and the watcher's locks were created 0644 inside the
/// 0700 cache folder; one left 0644 by an earlier version is made private.
#[test]
fn index_dream_lock_and_pending_lock_were_created_0644() {
    let mut env = TestEnv::new();
    let cache = env.root().join("fresh-cache");
    env.set_var("MEMCTL_CACHE_DIR", cache.display().to_string());
    remember_two(&env);
    env.run(&["search", "pytest"]).assert_success();
    env.run(&["dream", "--yes"]).assert_success();
    let answer = env.root().join("answer.json");
    fs::write(
        &answer,
        json!({"candidates": [{"name": "ci-uses-pnpm", "type": "project",
            "description": "CI installs with pnpm", "body": "CI installs with pnpm.",
            "scope": "persistent"}]})
        .to_string(),
    )
    .expect("the answer");
    let transcript = env.root().join("session.json");
    fs::write(
        &transcript,
        r#"[{"role":"user","text":"CI installs with pnpm."}]"#,
    )
    .expect("the session");
    let llm_cmd = format!("cat {}", answer.display());
    let transcript = transcript.display().to_string();
    env.run(&[
        "extract",
        "--transcript",
        &transcript,
        "--llm-cmd",
        &llm_cmd,
        "--pending",
    ])
    .assert_success();
    let files = files_in(&cache);
    for suffix in [".sqlite", ".dream-lock", ".pending.lock", ".pending.json"] {
        assert!(
            files.iter().any(|f| f.to_string_lossy().ends_with(suffix)),
            "no {suffix} among {files:?}"
        );
    }
    for file in &files {
        assert_eq!(mode(file), 0o600, "{}", file.display());
    }
    // Files an earlier version left readable by others become private.
    for file in &files {
        fs::set_permissions(file, fs::Permissions::from_mode(0o644)).expect("chmod");
    }
    env.run(&["search", "pytest"]).assert_success();
    env.run(&["dream", "--yes"]).assert_success();
    env.run(&[
        "extract",
        "--transcript",
        &transcript,
        "--llm-cmd",
        &llm_cmd,
        "--pending",
    ])
    .assert_success();
    // (Files written whole are made private when next written: the
    // pending candidate waits once, so that file is not written again.)
    for file in files_in(&cache) {
        let name = file.to_string_lossy();
        if [".sqlite", "-wal", "-shm", "lock", ".watch", ".ready"]
            .iter()
            .any(|s| name.ends_with(s))
        {
            assert_eq!(mode(&file), 0o600, "{}", file.display());
        }
    }
}

/// `dream --yes -q` printed the whole plan; as `remember --yes -q`, only
/// warnings and errors are said. A dry run still shows its plan.
#[test]
fn dream_yes_quiet_printed_the_whole_plan() {
    let env = TestEnv::new();
    remember_two(&env);
    let run = env.run(&["dream", "--dry-run", "-q"]);
    run.assert_success();
    assert!(run.stdout.contains("MERGE"), "{}", run.render());
    let run = env.run(&["dream", "--yes", "-q"]);
    run.assert_success();
    assert_eq!(run.stdout, "", "{}", run.render());
    assert_eq!(run.stderr, "", "{}", run.render());
    let left: Vec<_> = ["prefer-pytest.md", "prefer-pytest-copy.md"]
        .into_iter()
        .filter(|f| env.store().join(f).exists())
        .collect();
    assert_eq!(left.len(), 1, "the copies were merged: {left:?}");
}

/// `context --max 0` printed nothing and exited 0, as if nothing were
/// relevant; it is bad usage (exit 2) naming the option.
#[test]
fn context_max_0_printed_nothing_without_an_error() {
    let env = TestEnv::new();
    remember_two(&env);
    let run = env.run(&[
        "context",
        "--max",
        "0",
        "--query",
        "should tests use pytest?",
    ]);
    run.assert_code(2);
    assert!(run.stderr.contains("--max"), "{}", run.render());
    let run = env.run(&[
        "context",
        "--max",
        "1",
        "--query",
        "should tests use pytest?",
    ]);
    run.assert_success();
    assert!(run.stdout.contains("pytest"), "{}", run.render());
}

/// Updating a hand-written record without `created` wrote the file's
/// mtime with its nanoseconds (`2026-…:05.123456789Z`); memctl writes
/// whole seconds. A `created` written by hand is kept as written.
#[test]
fn updating_a_hand_written_record_wrote_created_with_nanoseconds() {
    let env = TestEnv::new();
    env.write_store_file(
        "deploy.md",
        "---\nname: deploy\ndescription: Deploys go through the pipeline\ntype: project\n---\nDeploys go through the pipeline.\n",
    );
    env.run(&[
        "remember",
        "--yes",
        "--name",
        "deploy",
        "--type",
        "project",
        "--description",
        "Deploys go through the pipeline",
        "Deploys go through the pipeline, never by hand.",
    ])
    .assert_success();
    let text = env.read_store_file("deploy.md");
    let created = text
        .lines()
        .find_map(|l| l.strip_prefix("created: "))
        .unwrap_or_else(|| panic!("no created: {text}"));
    assert!(
        created.len() == "2026-01-01T00:00:00Z".len() && !created.contains('.'),
        "{created}"
    );
    env.write_store_file(
        "kept.md",
        "---\nname: kept\ndescription: Kept as written\ntype: project\ncreated: 2026-01-02T03:04:05.5Z\n---\nKept.\n",
    );
    env.run(&[
        "remember",
        "--yes",
        "--name",
        "kept",
        "--type",
        "project",
        "--description",
        "Kept as written",
        "Kept, and more.",
    ])
    .assert_success();
    let text = env.read_store_file("kept.md");
    assert!(text.contains("created: 2026-01-02T03:04:05.5Z"), "{text}");
}
