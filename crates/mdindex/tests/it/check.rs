//! `reindex --check` finds every difference and changes nothing; `status`
//! describes the index; memctl's own writes are indexed at once.

use std::fs;
use std::path::PathBuf;

use mdindex::{Difference, Index, SyncMode, WatcherState};
use pretty_assertions::assert_eq;

use crate::common::{Env, overwrite_in_place, record_text};

#[test]
fn check_lists_missing_extra_and_stale_and_changes_nothing() {
    let env = Env::new();
    env.write("kept", "quokka");
    env.write("edited", "quokka");
    env.write("deleted", "quokka");
    env.search("quokka");
    assert!(env.check().is_clean());

    env.write("added", "quokka");
    fs::remove_file(env.path("deleted")).unwrap();
    overwrite_in_place(&env.path("edited"), &record_text("edited", "wombat"));
    let report = env.check();
    let mut found: Vec<String> = report.differences.iter().map(|d| d.to_string()).collect();
    found.sort();
    assert_eq!(report.differences.len(), 3, "{found:?}");
    assert!(report.differences.contains(&Difference::Missing {
        rel_path: PathBuf::from("added.md")
    }));
    assert!(report.differences.contains(&Difference::Extra {
        rel_path: PathBuf::from("deleted.md")
    }));
    assert!(report.differences.contains(&Difference::Stale {
        rel_path: PathBuf::from("edited.md")
    }));
    // Checking again finds the same: nothing was changed.
    assert_eq!(env.check(), report);
    env.search("quokka");
    assert!(env.check().is_clean());
}

#[test]
fn skipped_files_are_reported_with_their_reason() {
    let env = Env::new();
    env.write("good", "quokka");
    fs::write(
        env.root().join("binary.md"),
        b"---\nname: binary\n---\n\xff\xfe",
    )
    .unwrap();
    let outcome = env.search("quokka");
    let rebuilt = outcome.rebuilt.unwrap();
    assert_eq!(rebuilt.indexed, 1);
    assert_eq!(rebuilt.skipped.len(), 1);
    assert_eq!(rebuilt.skipped[0].rel_path, PathBuf::from("binary.md"));
    assert!(rebuilt.skipped[0].reason.to_string().contains("UTF-8"));
    assert!(env.check().is_clean());
}

#[test]
fn note_changed_indexes_one_path_now() {
    let env = Env::new();
    env.write("deploy", "quokka");
    let mut index = Index::open(&env.store, &env.cache, &mut |_| {})
        .unwrap()
        .index;
    env.write("added", "wombat");
    let report = index.note_changed("added.md".as_ref()).unwrap();
    assert_eq!((report.mode.clone(), report.added), (SyncMode::OnePath, 1));
    fs::remove_file(env.path("deploy")).unwrap();
    assert_eq!(index.note_changed("deploy.md".as_ref()).unwrap().removed, 1);
    let query = mdindex::query::parse("wombat").unwrap();
    let hits = index.search(&query, 10, &[]).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].path, env.path("added"));
    assert!(
        index
            .search(&mdindex::query::parse("quokka").unwrap(), 10, &[])
            .unwrap()
            .is_empty()
    );
}

#[test]
fn status_describes_the_index() {
    let env = Env::new();
    env.write("a", "quokka");
    env.write("b", "quokka");
    env.search("quokka");
    let index = Index::open_existing(&env.store, &env.cache).unwrap();
    let status = index.status().unwrap();
    assert_eq!(status.path, env.index_path());
    assert_eq!(status.records, 2);
    assert_eq!(status.watcher, WatcherState::Absent);
    assert_eq!(status.pending_marks, 0);
    assert_eq!(status.schema_version, mdindex::SCHEMA_VERSION);
    assert!(status.size_bytes > 0);
    assert!(status.built_at.is_some());
}

#[test]
fn open_existing_never_builds() {
    let env = Env::new();
    env.write("a", "quokka");
    assert!(matches!(
        Index::open_existing(&env.store, &env.cache),
        Err(mdindex::Error::Unusable {
            cause: mdindex::RebuildCause::Missing,
            ..
        })
    ));
    assert!(!env.index_path().exists());
}

#[test]
fn a_long_lived_index_follows_its_file_deleted_or_replaced() {
    let env = Env::new();
    env.write("deploy", "quokka");
    let mut index = Index::open(&env.store, &env.cache, &mut |_| {})
        .unwrap()
        .index;
    let found = |index: &Index, words: &str| -> Vec<String> {
        let hits = index
            .search(&mdindex::query::parse(words).unwrap(), 10, &[])
            .unwrap();
        hits.into_iter().map(|h| h.id).collect()
    };

    // Deleted, nobody rebuilt it: the next sync does.
    fs::remove_file(env.index_path()).unwrap();
    env.write("added", "wombat");
    let report = index.sync().unwrap();
    assert_eq!(
        report.rebuilt.map(|r| r.cause),
        Some(mdindex::RebuildCause::Missing)
    );
    assert_eq!(found(&index, "wombat"), vec!["added".to_string()]);

    // Deleted and rebuilt by someone else: the next sync reads the new file.
    fs::remove_file(env.index_path()).unwrap();
    env.search("quokka");
    env.write("later", "numbat");
    assert_eq!(index.sync().unwrap().rebuilt, None);
    assert_eq!(found(&index, "numbat"), vec!["later".to_string()]);
    env.search("numbat");
    assert_eq!(found(&index, "numbat"), vec!["later".to_string()]);
}
