//! `mdagent::maintain`: a store created with its `MEMORY.md`, checked, its
//! index rebuilt and compared with the files, the store a watcher keeps.

use std::cell::RefCell;

use mdagent::explain::{Kind, explain};
use mdagent::face::Tell;
use mdagent::maintain::reindex::{self, Compared};
use mdagent::maintain::{MaintainError, check, init, watch};
use mdstore::Scope;
use memctl_testkit::RecordFile;

use crate::support::{Stores, write};

#[derive(Default)]
struct Told(RefCell<Vec<String>>);

impl Tell for Told {
    fn note(&self, text: &str) {
        self.0.borrow_mut().push(format!("note: {text}"));
    }
    fn warn(&self, text: &str) {
        self.0.borrow_mut().push(format!("warning: {text}"));
    }
}

#[test]
fn init_creates_the_workspace_store_here_and_its_memory_md() {
    let stores = Stores::new();
    std::fs::remove_dir_all(stores.workspace()).unwrap();

    let done = init::run(&stores.config(false), &Told::default()).unwrap();

    assert_eq!(done.scope, Scope::Workspace);
    assert!(!done.existed);
    assert_eq!(done.records, 0);
    assert_eq!(done.root, stores.workspace());
    assert!(stores.workspace().is_dir());
    assert!(stores.workspace().join("MEMORY.md").is_file());
}

#[test]
fn init_on_a_store_with_records_lists_them_in_memory_md() {
    let stores = Stores::new();
    write(&stores.global(), RecordFile::written("use-pnpm"));
    write(&stores.global(), RecordFile::written("run-tests"));

    let done = init::run(&stores.config(true), &Told::default()).unwrap();

    assert_eq!(done.scope, Scope::Global);
    assert!(done.existed);
    assert_eq!(done.records, 2);
    let catalog = std::fs::read_to_string(stores.global().join("MEMORY.md")).unwrap();
    assert!(catalog.contains("use-pnpm") && catalog.contains("run-tests"));
    assert!(!stores.workspace().join("MEMORY.md").exists(), "one store");
}

#[test]
fn init_refuses_a_file_where_the_store_would_be_and_creates_nothing() {
    let stores = Stores::new();
    std::fs::remove_dir_all(stores.workspace()).unwrap();
    std::fs::write(stores.workspace(), "not a folder").unwrap();

    let err = init::run(&stores.config(false), &Told::default()).unwrap_err();

    assert_eq!(explain(&err).unwrap().kind, Kind::BadInput, "{err}");
    assert!(stores.workspace().is_file());
}

#[test]
fn check_reports_a_broken_record_and_a_bad_memctl_toml_by_file() {
    let stores = Stores::new();
    write(&stores.workspace(), RecordFile::written("use-pnpm"));
    std::fs::write(
        stores.workspace().join("broken.md"),
        "---\nname: broken\ntype: nonsense\n---\nbody\n",
    )
    .unwrap();
    std::fs::write(stores.workspace().join(".memctl.toml"), "[nope\n").unwrap();

    let checked = check::run(&stores.config(false), Some(Scope::Workspace)).unwrap();

    assert_eq!(checked.len(), 1, "the workspace store only");
    let paths: Vec<_> = checked[0]
        .findings
        .iter()
        .map(|f| f.rel_path.to_string_lossy().into_owned())
        .collect();
    assert!(paths.contains(&"broken.md".to_string()), "{paths:?}");
    assert!(paths.contains(&".memctl.toml".to_string()), "{paths:?}");
    assert!(checked[0].catalog_problem(), "no MEMORY.md yet");
}

#[test]
fn check_finds_memory_md_missing_until_init_writes_it_and_no_store_is_bad_input() {
    let stores = Stores::new();
    write(&stores.global(), RecordFile::written("use-pnpm"));
    let checked = check::run(&stores.config(false), Some(Scope::Global)).unwrap();
    assert!(checked[0].catalog_problem(), "{:?}", checked[0].findings);

    init::run(&stores.config(true), &Told::default()).unwrap();

    let checked = check::run(&stores.config(false), Some(Scope::Global)).unwrap();
    assert_eq!(checked[0].records, 1);
    assert!(checked[0].findings.is_empty(), "{:?}", checked[0].findings);

    std::fs::remove_dir_all(stores.global()).unwrap();
    let err = check::run(&stores.config(false), Some(Scope::Global)).unwrap_err();
    assert!(matches!(err, MaintainError::NoStore { .. }), "{err}");
    assert_eq!(err.to_string(), "no store to check here");
    assert_eq!(explain(&err).unwrap().kind, Kind::BadInput);
}

#[test]
fn reindex_rebuilds_the_index_that_then_agrees_with_the_files_until_one_changes() {
    let stores = Stores::new();
    write(&stores.workspace(), RecordFile::written("use-pnpm"));
    write(&stores.workspace(), RecordFile::written("run-tests"));
    let config = stores.config(false);
    let scoped = reindex::stores_to_index(&config)
        .unwrap()
        .into_iter()
        .find(|s| s.scope == Scope::Workspace)
        .unwrap();
    assert!(
        matches!(
            reindex::compare(&config, &scoped).unwrap(),
            Compared::Unusable(_)
        ),
        "no index yet"
    );

    let rebuilt = reindex::rebuild(&config, &scoped, &mut None, &mut |_| {}).unwrap();

    assert_eq!(rebuilt.report.indexed, 2);
    assert!(rebuilt.embedded.is_none() && rebuilt.semantic_off.is_none());
    assert!(reindex::compare(&config, &scoped).unwrap().is_clean());
    write(&stores.workspace(), RecordFile::written("new-one"));
    let Compared::Compared(report) = reindex::compare(&config, &scoped).unwrap() else {
        panic!("the index is usable");
    };
    assert_eq!(report.differences.len(), 1, "{:?}", report.differences);
    assert_eq!(
        reindex::rebuild(&config, &scoped, &mut None, &mut |_| {})
            .unwrap()
            .report
            .indexed,
        3
    );
}

#[test]
fn a_watcher_watches_the_default_scope_s_store_or_says_there_is_none() {
    let stores = Stores::new();
    assert_eq!(
        watch::store_to_watch(&stores.config(true)).unwrap().scope,
        Scope::Global
    );
    std::fs::remove_dir_all(stores.global()).unwrap();
    let err = watch::store_to_watch(&stores.config(true)).unwrap_err();
    assert_eq!(err.to_string(), "no global store to watch here");
    assert_eq!(explain(&err).unwrap().kind, Kind::BadInput);
}
