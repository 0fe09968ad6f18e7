//! `memctl forget`: the record goes, a tombstone stays, MEMORY.md follows,
//! and nothing returns the text afterwards (SPEC §6).

use std::fs::{self, File};
use std::path::PathBuf;

use pretty_assertions::assert_eq;

use crate::env::TestEnv;

const BODY: &str = "The staging database lives at db.staging.internal.";
const DESCRIPTION: &str = "Where the staging database is";

fn tombstones(env: &TestEnv) -> Vec<PathBuf> {
    env.store_bytes()
        .into_keys()
        .filter(|p| p.starts_with(".tombstones"))
        .collect()
}

#[test]
fn forget_removes_the_record_and_leaves_a_tombstone_without_the_content() {
    let env = TestEnv::new();
    env.remember("staging-db", "reference", DESCRIPTION, BODY);
    env.remember(
        "ci-cache",
        "project",
        "CI caches cargo",
        "Keyed on Cargo.lock.",
    );
    let run = env.run(&[
        "forget",
        "--yes",
        "--reason",
        "staging was shut down",
        "staging-db",
    ]);
    run.assert_success();
    assert_run_snapshot!(env, run);

    assert!(!env.store().join("staging-db.md").exists());
    let tombs = tombstones(&env);
    assert_eq!(tombs.len(), 1, "{tombs:?}");
    let tomb = env.read_store_file(&tombs[0].display().to_string());
    assert!(tomb.contains("staging-db"), "the id: {tomb}");
    assert!(tomb.contains("staging was shut down"), "the reason: {tomb}");
    assert!(
        !tomb.contains("db.staging.internal") && !tomb.contains(DESCRIPTION),
        "no content: {tomb}"
    );

    let catalog = env.read_store_file("MEMORY.md");
    assert!(!catalog.contains("staging-db"), "{catalog}");
    assert!(catalog.contains("[ci-cache](ci-cache.md)"), "{catalog}");

    for args in [
        &["show", "staging-db"][..],
        &["show", "--json", "staging-db"],
        &["list", "--json"],
    ] {
        let after = env.run(args);
        assert!(
            !after.all_output().contains("db.staging.internal"),
            "{}",
            after.render()
        );
    }
    env.run(&["show", "staging-db"]).assert_code(2);
}

#[test]
fn forgetting_several_ids_at_once() {
    let env = TestEnv::new();
    env.remember("a", "project", "Fact a", "A.");
    env.remember("b", "project", "Fact b", "B.");
    env.remember("c", "project", "Fact c", "C.");
    env.run(&["forget", "--yes", "a", "C"]).assert_success();
    let names: Vec<PathBuf> = env
        .store_bytes()
        .into_keys()
        .filter(|p| !p.starts_with(".tombstones"))
        .collect();
    assert_eq!(names, [PathBuf::from("MEMORY.md"), "b.md".into()]);
    assert_eq!(tombstones(&env).len(), 2);
    assert_eq!(env.read_store_file("MEMORY.md").lines().count(), 2);
}

#[test]
fn without_a_terminal_and_without_yes_nothing_is_forgotten() {
    let env = TestEnv::new();
    env.remember("staging-db", "reference", DESCRIPTION, BODY);
    let before = env.store_bytes();
    let run = env.run(&["forget", "staging-db"]);
    run.assert_code(3);
    assert_run_snapshot!(env, run);
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn an_unknown_id_is_bad_input_and_nothing_changes() {
    let env = TestEnv::new();
    env.remember("staging-db", "reference", DESCRIPTION, BODY);
    let before = env.store_bytes();
    let run = env.run(&["forget", "--yes", "staging-db", "no-such-record"]);
    run.assert_code(2);
    assert_run_snapshot!(env, run);
    assert_eq!(
        env.store_bytes(),
        before,
        "one unknown id forgets none of them"
    );
}

#[test]
fn forgetting_twice_says_when_it_was_forgotten() {
    let env = TestEnv::new();
    env.remember("staging-db", "reference", DESCRIPTION, BODY);
    env.run(&["forget", "--yes", "staging-db"]).assert_success();
    let run = env.run(&["forget", "--yes", "staging-db"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains("already forgotten on "),
        "{}",
        run.render()
    );
}

#[test]
fn a_held_lock_times_out_with_exit_4_and_nothing_is_forgotten() {
    let mut env = TestEnv::new();
    env.remember("staging-db", "reference", DESCRIPTION, BODY);
    env.set_var("MEMCTL_LOCK_TIMEOUT_MS", "200");
    let before = env.store_bytes();
    let folder = File::open(env.store()).expect("the store folder");
    folder.lock().expect("the test takes the lock");
    let run = env.run(&["forget", "--yes", "staging-db"]);
    run.assert_code(4);
    assert_run_snapshot!(env, run);
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn a_hand_made_record_in_a_subfolder_can_be_forgotten() {
    let env = TestEnv::new();
    env.write_record(
        "team/ci-cache",
        "project",
        "CI caches cargo",
        "Keyed on Cargo.lock.",
    );
    env.run(&["forget", "--yes", "team/ci-cache"])
        .assert_success();
    assert!(!env.store().join("team/ci-cache.md").exists());
    assert_eq!(tombstones(&env).len(), 1);
    let run = env
        .remembering("ci-cache")
        .kind("project")
        .description("CI caches cargo")
        .body("Keyed on Cargo.lock.")
        .run();
    run.assert_code(4);
    assert!(
        run.stderr.contains("team/ci-cache was forgotten"),
        "{}",
        run.render()
    );
}

#[test]
fn forget_in_the_global_store() {
    let env = TestEnv::new();
    env.remembering_unnamed()
        .global()
        .name("editor")
        .kind("user")
        .description("Uses helix")
        .body("Helix.")
        .ok();
    env.run(&["forget", "--yes", "editor"]).assert_code(2);
    env.run(&["forget", "--global", "--yes", "editor"])
        .assert_success();
    assert!(!env.global_store().join("editor.md").exists());
    let catalog =
        fs::read_to_string(env.global_store().join("MEMORY.md")).expect("global MEMORY.md");
    assert_eq!(catalog.lines().count(), 1, "{catalog}");
}
