//! `mdagent::dream`: a rules' plan applied to the stores it was read from,
//! what it says it changed, and git left alone when nobody asked; the whole
//! sequence ([`dream::run`]) as a face runs it: shown, then asked, applied;
//! a dry run, a refusal, a plan over the removal limit, no store, a lock held.

use std::cell::RefCell;
use std::time::Duration;

use mdagent::Kind;
use mdagent::dream::plan::{Origin, Plan};
use mdagent::dream::{self, DreamError, DreamFace, DreamRequest, Dreamt, Oriented};
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

/// A face that answers the confirmation as told and keeps what it was
/// shown, asked and told.
struct Face {
    yes: bool,
    said: RefCell<Vec<String>>,
}

impl Face {
    fn answering(yes: bool) -> Face {
        Face {
            yes,
            said: RefCell::default(),
        }
    }

    fn said(&self) -> Vec<String> {
        self.said.borrow().clone()
    }
}

impl Tell for Face {
    fn note(&self, text: &str) {
        self.said.borrow_mut().push(format!("note: {text}"));
    }
    fn warn(&self, text: &str) {
        self.said.borrow_mut().push(format!("warning: {text}"));
    }
}

impl DreamFace for Face {
    fn show(&self, plan: &Plan, oriented: &Oriented) -> std::io::Result<()> {
        let line = format!(
            "shown: {} operations on {} records",
            plan.operations.len(),
            oriented.records.len()
        );
        self.said.borrow_mut().push(line);
        Ok(())
    }
    fn confirm(&self, _plan: &Plan) -> std::io::Result<bool> {
        self.said.borrow_mut().push("asked".to_string());
        Ok(self.yes)
    }
    fn preserved(&self, kept: &std::path::Path) {
        let line = format!("preserved: {}", kept.display());
        self.said.borrow_mut().push(line);
    }
}

fn request(dry_run: bool, max_delete_pct: f64) -> DreamRequest<'static> {
    DreamRequest {
        llm_cmd: None,
        max_delete_pct,
        auto: false,
        dry_run,
        commit: false,
        background: false,
    }
}

/// Two records with the same body: the rules' plan merges them.
fn duplicates() -> Stores {
    let stores = Stores::new();
    let body = "Run the tests with pytest -q before every push.\n";
    for id in ["pytest-a", "pytest-b"] {
        write(&stores.workspace(), RecordFile::written(id).body(body));
    }
    stores
}

#[test]
fn dream_run_plans_validates_shows_asks_and_applies_the_rules_plan() {
    let stores = duplicates();
    let face = Face::answering(true);

    let dreamt = dream::run(&stores.config(false), &face, &request(false, 100.0)).unwrap();

    let Dreamt::Planned { plan, applied, .. } = dreamt else {
        panic!("not planned");
    };
    assert_eq!(plan.origin, Origin::Rules);
    assert!(applied.is_some(), "a confirmed plan is applied");
    assert_eq!(records_in(&stores.workspace()), 1);
    let said = face.said();
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].starts_with("shown: "), "{said:?}");
    assert_eq!(said[1], "asked", "shown before it is asked");
}

#[test]
fn dream_run_dry_run_shows_the_plan_asks_nothing_and_writes_nothing() {
    let stores = duplicates();
    let face = Face::answering(true);

    let dreamt = dream::run(&stores.config(false), &face, &request(true, 100.0)).unwrap();

    let Dreamt::Planned { plan, applied, .. } = dreamt else {
        panic!("not planned");
    };
    assert!(!plan.operations.is_empty());
    assert!(applied.is_none());
    assert_eq!(records_in(&stores.workspace()), 2);
    assert_eq!(face.said().len(), 1, "{:?}", face.said());
}

#[test]
fn dream_run_not_confirmed_writes_nothing() {
    let stores = duplicates();
    let face = Face::answering(false);

    let dreamt = dream::run(&stores.config(false), &face, &request(false, 100.0)).unwrap();

    assert!(matches!(dreamt, Dreamt::NotConfirmed));
    assert_eq!(records_in(&stores.workspace()), 2);
}

#[test]
fn dream_run_rejects_a_plan_over_the_removal_limit_after_showing_it() {
    let stores = duplicates();
    let face = Face::answering(true);

    let error = dream::run(&stores.config(false), &face, &request(false, 0.0))
        .err()
        .expect("over the limit");

    assert!(matches!(error, DreamError::Rejected { .. }), "{error:?}");
    let explained = mdagent::explain(&error).unwrap();
    assert_eq!(explained.kind, Kind::BadInput);
    assert!(
        explained
            .message
            .starts_with("the rules' plan was rejected: operation "),
        "{}",
        explained.message
    );
    assert!(explained.message.ends_with("; nothing was written"));
    let hint = explained.hint.unwrap();
    assert!(hint.contains("--max-delete-pct above 0"), "{hint}");
    assert_eq!(records_in(&stores.workspace()), 2);
    assert_eq!(
        face.said().len(),
        1,
        "shown, never asked: {:?}",
        face.said()
    );

    // A dry run found what it checks for: problems, not bad input.
    let error = dream::run(&stores.config(false), &face, &request(true, 0.0))
        .err()
        .expect("over the limit");
    let explained = mdagent::explain(&error).unwrap();
    assert_eq!(explained.kind, Kind::Problems);
    assert!(explained.message.contains("would be rejected"));
    assert!(explained.message.ends_with("; this was a dry run"));
}

#[test]
fn dream_run_with_no_store_is_bad_input_and_unattended_it_skips_saying_so() {
    let stores = Stores::new();
    std::fs::remove_dir_all(stores.workspace()).unwrap();
    std::fs::remove_dir_all(stores.global()).unwrap();
    let face = Face::answering(true);

    let error = dream::run(&stores.config(false), &face, &request(false, 100.0))
        .err()
        .expect("no store");
    assert!(matches!(error, DreamError::NoStore));
    let explained = mdagent::explain(&error).unwrap();
    assert_eq!(explained.kind, Kind::BadInput);
    assert!(explained.hint.unwrap().contains("memctl init"));

    let unattended = DreamRequest {
        auto: true,
        ..request(false, 100.0)
    };
    let dreamt = dream::run(&stores.config(false), &face, &unattended).unwrap();
    assert!(matches!(dreamt, Dreamt::Skipped));
    assert_eq!(face.said(), ["note: Skipped: there is no store here."]);
}

#[test]
fn dream_run_while_another_dream_holds_the_lock_is_a_conflict() {
    let stores = duplicates();
    let config = stores.config(false);
    let held = dream::auto::DreamLock::take(&config, &read_stores(&config).unwrap())
        .unwrap()
        .expect("free");
    let face = Face::answering(true);

    let error = dream::run(&config, &face, &request(false, 100.0))
        .err()
        .expect("busy");

    assert!(matches!(error, DreamError::Busy));
    assert_eq!(mdagent::explain(&error).unwrap().kind, Kind::Conflict);
    assert!(face.said().is_empty(), "{:?}", face.said());
    assert_eq!(records_in(&stores.workspace()), 2);
    drop(held);
}
