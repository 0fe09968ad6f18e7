//! `mdagent::dream`: a rules' plan applied to the stores it was read from,
//! what it says it changed, and git left alone when nobody asked.

use std::cell::RefCell;
use std::time::Duration;

use mdagent::dream;
use mdagent::face::Tell;
use mdagent::stores::read_stores;
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

fn records_in(folder: &std::path::Path) -> usize {
    std::fs::read_dir(folder)
        .unwrap()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.ends_with(".md") && name != "MEMORY.md"
        })
        .count()
}

#[test]
fn exact_duplicates_are_applied_and_said_and_nothing_is_committed_unasked() {
    let stores = Stores::new();
    let body = "Run the tests with pytest -q before every push.\n";
    write(
        &stores.workspace(),
        RecordFile::written("pytest-a").body(body),
    );
    write(
        &stores.workspace(),
        RecordFile::written("pytest-b").body(body),
    );
    let config = stores.config(false);
    let scoped = read_stores(&config).unwrap();
    let now = mdstore::clock::now();

    let oriented = dream::orient(&scoped);
    assert_eq!(oriented.records.len(), 2, "{:?}", oriented.broken.len());
    let plan = mddream::gather::gather(&oriented.records, now);
    assert!(
        !plan.operations.is_empty(),
        "an exact duplicate is a finding"
    );
    let options = mddream::validate::ValidateOptions {
        max_delete_pct: 100.0,
    };
    mddream::validate::validate(&plan, &oriented.records, &options).unwrap();

    let applied = dream::apply_plan(
        &config,
        &plan,
        &oriented.records,
        &scoped,
        now,
        Duration::from_secs(5),
    )
    .unwrap();
    assert_eq!(records_in(&stores.workspace()), 1);

    let scope = scoped[0].scope;
    let parts = dream::changes(&plan, &applied, scope);
    assert!(!parts.is_empty());
    assert!(
        parts
            .iter()
            .any(|p| p.contains("pytest-a") || p.contains("pytest-b")),
        "{parts:?}"
    );
    let summary = dream::background_summary(&plan, Some(&applied), &scoped).unwrap();
    assert!(summary.starts_with("workspace store: "), "{summary}");

    let told = Told::default();
    dream::commit_to_git(
        &config,
        &told,
        false,
        &plan,
        &applied,
        &scoped,
        &oriented.records,
    );
    assert!(told.0.borrow().is_empty(), "{:?}", told.0.borrow());
}
