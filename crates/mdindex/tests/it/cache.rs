//! The cache folder: a search answers even when it cannot be used, and
//! leaves nothing in it but the index.

use std::fs;

use mdindex::query::{self, QueryError};
use pretty_assertions::assert_eq;

use crate::common::Env;

#[test]
fn unwritable_cache_folder_still_searches() {
    let mut env = Env::new();
    env.write("deploy", "quokka");
    // A file where the cache folder should be: nothing can be created in it
    // (a read-only folder would do the same, but not for root).
    let file = env.root().parent().unwrap().join("cache-file");
    fs::write(&file, "not a folder").unwrap();
    env.cache = file.clone();

    let outcome = env.search("quokka");
    assert_eq!(outcome.hits.len(), 1);
    let why = outcome
        .temporary_index
        .expect("says it used a temporary index");
    assert!(why.to_string().contains("cache-file"), "{why}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "not a folder");
}

#[test]
fn unopenable_index_file_still_searches() {
    let env = Env::new();
    env.write("deploy", "quokka");
    // A folder where the index file should be: SQLite cannot open it.
    fs::create_dir_all(env.index_path()).unwrap();

    let outcome = env.search("quokka");
    assert_eq!(outcome.hits.len(), 1);
    assert!(outcome.temporary_index.is_some());
    assert!(env.index_path().is_dir());
}

#[test]
fn no_build_files_left_in_cache() {
    let env = Env::new();
    env.write("deploy", "quokka");
    env.search("quokka");
    // A rebuild of an index that exists, then an index deleted and built again.
    let mut index = mdindex::Index::open_existing(&env.store, &env.cache).unwrap();
    index
        .rebuild(mdindex::RebuildCause::Requested, &mut |_| {})
        .unwrap();
    drop(index);
    fs::remove_file(env.index_path()).unwrap();
    assert!(env.search("quokka").rebuilt.is_some());

    let mut names: Vec<String> = fs::read_dir(&env.cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with("-wal") && !name.ends_with("-shm"))
        .collect();
    names.sort();
    let index_name = env
        .index_path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert_eq!(names, vec![index_name]);
}

#[test]
fn query_with_nothing_to_search_is_refused_before_the_index_is_built() {
    let env = Env::new();
    env.write("deploy", "quokka");
    for text in ["(", "*", "\"", "", "-"] {
        let err = mdindex::search_store(
            &env.store,
            &env.cache,
            &query::parse(text).unwrap(),
            10,
            &[],
            &mut |_| {},
        )
        .unwrap_err();
        assert!(
            matches!(err, mdindex::Error::Query(QueryError::NothingToSearch)),
            "{text:?}: {err}"
        );
    }
    assert!(!env.index_path().exists());
    // Filters alone list what they select.
    assert_eq!(env.search("type:project").hits.len(), 1);
}
