//! The watcher: bursts of changes, its death, its index replaced under it,
//! a watcher that does not answer, and only one at a time.

use std::fs::{self, File};

use mdindex::{CompareReason, Error, IndexPaths, SyncMode, Watcher, WatcherState};
use pretty_assertions::assert_eq;

use crate::child::ChildWatcher;
use crate::common::{Env, Keeper, assert_kept_by, ids_of, overwrite_in_place, record_text};

fn status(env: &Env) -> mdindex::IndexStatus {
    mdindex::Index::open_existing(&env.store, &env.cache)
        .unwrap()
        .status()
        .unwrap()
}

#[test]
fn a_burst_of_a_thousand_changes_ends_equal_to_a_rebuild() {
    let env = Env::new();
    for i in 0..500 {
        env.write(&format!("note-{i:04}"), "quokka");
    }
    env.search("quokka");
    let _watcher = env.start_watcher();
    // 500 rewritten, 250 deleted, 250 created: 1,000 changes, no pause.
    for i in 0..500 {
        overwrite_in_place(
            &env.path(&format!("note-{i:04}")),
            &record_text(&format!("note-{i:04}"), "wombat"),
        );
    }
    for i in 0..250 {
        fs::remove_file(env.path(&format!("note-{i:04}"))).unwrap();
    }
    for i in 0..250 {
        env.write(&format!("new-{i:04}"), "wombat numbat");
    }
    let outcome = env.search("wombat");
    assert_kept_by(Keeper::WatcherThread, &outcome, false);
    assert_eq!(outcome.hits.len(), 500);
    let report = env.check();
    assert!(report.is_clean(), "{:?}", report.differences);
    assert_eq!(report.records, 500);
    assert_eq!(env.ids("numbat").len(), 250);
    assert_eq!(env.ids("quokka"), Vec::<String>::new());
}

#[test]
fn a_stopped_watcher_leaves_searches_fresh() {
    let env = Env::new();
    env.write("deploy", "quokka");
    let watcher = env.start_watcher();
    assert_eq!(status(&env).watcher, WatcherState::Ready);
    overwrite_in_place(&env.path("deploy"), &record_text("deploy", "wombat"));
    assert_eq!(env.ids("wombat"), vec!["deploy".to_string()]);
    watcher.stop().unwrap();

    assert_eq!(status(&env).watcher, WatcherState::Absent);
    overwrite_in_place(&env.path("deploy"), &record_text("deploy", "numbat"));
    let outcome = env.search("numbat");
    assert_eq!(
        outcome.sync.mode,
        SyncMode::Compared(CompareReason::NoWatcher)
    );
    assert_eq!(ids_of(&outcome), vec!["deploy".to_string()]);
}

#[test]
fn a_killed_watcher_process_leaves_searches_fresh() {
    let env = Env::new();
    env.write("deploy", "quokka");
    env.search("quokka");
    let watcher = ChildWatcher::start(&env);
    assert_eq!(status(&env).watcher, WatcherState::Ready);
    overwrite_in_place(&env.path("deploy"), &record_text("deploy", "wombat"));
    let outcome = env.search("wombat");
    assert_kept_by(Keeper::WatcherProcess, &outcome, false);
    assert_eq!(ids_of(&outcome), vec!["deploy".to_string()]);

    watcher.kill();
    // Edits the dead watcher never saw, including one with a pending mark.
    overwrite_in_place(&env.path("deploy"), &record_text("deploy", "numbat"));
    env.write("added", "numbat");
    let outcome = env.search("numbat");
    assert_eq!(
        outcome.sync.mode,
        SyncMode::Compared(CompareReason::NoWatcher)
    );
    assert_eq!(
        ids_of(&outcome),
        vec!["added".to_string(), "deploy".to_string()]
    );
}

#[test]
fn a_watcher_that_does_not_answer_is_not_trusted() {
    let env = Env::new();
    env.write("deploy", "quokka");
    env.search("quokka");
    // Hold the locks a ready watcher holds, without watching anything.
    let paths = IndexPaths::new(&env.cache, &env.store);
    let locks: Vec<File> = [&paths.watch_lock, &paths.ready_lock]
        .into_iter()
        .map(|path| {
            let file = File::create(path).unwrap();
            file.lock().unwrap();
            file
        })
        .collect();
    overwrite_in_place(&env.path("deploy"), &record_text("deploy", "wombat"));
    let outcome = env.search("wombat");
    assert!(matches!(
        outcome.sync.mode,
        SyncMode::Compared(CompareReason::WatcherSilent(_))
    ));
    assert!(outcome.sync.notice().is_some());
    assert_eq!(ids_of(&outcome), vec!["deploy".to_string()]);
    // Its cookie is cleaned up.
    let leftovers: Vec<_> = fs::read_dir(env.root())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with('.'))
        .collect();
    assert_eq!(leftovers, Vec::<std::ffi::OsString>::new());
    drop(locks);
}

#[test]
fn only_one_watcher_runs_per_store() {
    let env = Env::new();
    let _first = env.start_watcher();
    match Watcher::start(&env.store, &env.cache, |_| {}) {
        Err(Error::WatcherRunning { .. }) => {}
        Err(other) => panic!("unexpected error: {other}"),
        Ok(_) => panic!("a second watcher started"),
    }
}

#[test]
fn a_watcher_follows_its_index_deleted_under_it() {
    let env = Env::new();
    env.write("deploy", "quokka");
    let _watcher = env.start_watcher();
    let path = env.index_path();
    fs::remove_file(&path).unwrap();
    // The next search rebuilds; the watcher must mark the new file.
    assert_eq!(env.ids("quokka"), vec!["deploy".to_string()]);
    overwrite_in_place(&env.path("deploy"), &record_text("deploy", "wombat"));
    assert_eq!(env.ids("wombat"), vec!["deploy".to_string()]);
    env.write("added", "numbat");
    assert_eq!(env.ids("numbat"), vec!["added".to_string()]);
}

#[test]
fn new_folders_of_records_are_found() {
    let env = Env::new();
    let _watcher = env.start_watcher();
    fs::create_dir_all(env.root().join("team/deep")).unwrap();
    fs::write(
        env.root().join("team/deep/ci.md"),
        record_text("ci", "wombat"),
    )
    .unwrap();
    let outcome = env.search("wombat");
    assert_kept_by(Keeper::WatcherThread, &outcome, true);
    assert_eq!(ids_of(&outcome), vec!["team/deep/ci".to_string()]);
    fs::rename(env.root().join("team"), env.root().join("crew")).unwrap();
    assert_eq!(env.ids("wombat"), vec!["crew/deep/ci".to_string()]);
    fs::remove_dir_all(env.root().join("crew")).unwrap();
    assert_eq!(env.ids("wombat"), Vec::<String>::new());
}
