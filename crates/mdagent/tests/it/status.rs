//! `mdagent::status`: the stores in the order status lists them, why one
//! is not there, and what is in one, without writing or building anything.

use mdagent::status::{self, Absence, IndexState, Place};
use mdstore::Scope;
use mdstore::catalog::disk;
use memctl_testkit::RecordFile;

use crate::support::{Stores, write};

#[test]
fn status_lists_the_workspace_store_then_the_global_one_not_created_yet() {
    let stores = Stores::new();
    std::fs::remove_dir_all(stores.global()).unwrap();
    write(&stores.workspace(), RecordFile::written("use-pnpm"));
    write(&stores.workspace(), RecordFile::written("run-tests"));
    // Not UTF-8: not read as a record, and counted as skipped.
    std::fs::write(stores.workspace().join("broken.md"), b"---\xff\n").unwrap();

    let places = status::places(&stores.config(false)).unwrap();

    assert_eq!(places.len(), 2);
    let Place::Store(workspace) = &places[0] else {
        panic!("the workspace store first");
    };
    assert_eq!(workspace.scope, Scope::Workspace);
    assert_eq!(workspace.records, 2);
    assert_eq!(workspace.skipped, 1);
    let on_disk = workspace.catalog.as_ref().unwrap();
    assert_eq!(on_disk.state, disk::State::Missing, "nothing was written");
    assert!(!stores.workspace().join("MEMORY.md").exists());
    assert_eq!(workspace.expected.listed, 2);
    assert!(
        matches!(workspace.index, IndexState::NotYet { .. }),
        "no index is built to say so"
    );
    let Place::Absent { scope, dir, why } = &places[1] else {
        panic!("the global store is absent");
    };
    assert_eq!(*scope, Scope::Global);
    assert_eq!(dir.as_deref(), Some(stores.global().as_path()));
    assert_eq!(*why, Absence::NotCreated);
    assert_eq!(why.state(), "not created");
}

#[test]
fn status_with_global_lists_only_the_global_store() {
    let stores = Stores::new();
    write(&stores.global(), RecordFile::written("prefers-tabs"));

    let places = status::places(&stores.config(true)).unwrap();

    assert_eq!(places.len(), 1);
    let Place::Store(global) = &places[0] else {
        panic!("the global store is there");
    };
    assert_eq!(global.scope, Scope::Global);
    assert_eq!(global.records, 1);
}

#[test]
fn status_says_a_missing_workspace_store_is_missing() {
    let stores = Stores::new();
    std::fs::remove_dir_all(stores.workspace()).unwrap();

    let places = status::places(&stores.config(false)).unwrap();

    let Place::Absent { scope, why, .. } = &places[0] else {
        panic!("absent");
    };
    assert_eq!(*scope, Scope::Workspace);
    assert!(
        matches!(why, Absence::NoWorkspace | Absence::Missing),
        "{why:?}"
    );
}
