//! `mdagent::remember`: a batch a face shows and confirms, written through
//! one transaction per store, and one candidate an agent gives, written
//! unconfirmed; the guards refuse the same in both.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;

use mdagent::face::{Ask, Tell};
use mdagent::forget;
use mdagent::remember::{self, Batch, Done, Item, Outcome, Parsed, input};
use mdagent::stores::{Scope, read_stores};
use mdagent::write_failure::WriteFailure;
use mdagent::{Kind, explain};
use mdstore::write::{Candidate, Refusal};
use memctl_testkit::RecordFile;

use crate::support::{Stores, write};

/// A face that answers every question with `answer` and keeps what it was
/// told, shown and asked.
#[derive(Default)]
struct Face {
    answer: bool,
    notes: RefCell<Vec<String>>,
    warnings: RefCell<Vec<String>>,
    questions: RefCell<Vec<String>>,
    /// Each `show_plans`: the ids planned.
    shown: RefCell<Vec<Vec<String>>>,
    /// Each `report`: the statuses.
    reported: RefCell<Vec<Vec<&'static str>>>,
}

impl Tell for Face {
    fn note(&self, text: &str) {
        self.notes.borrow_mut().push(text.to_string());
    }
    fn warn(&self, text: &str) {
        self.warnings.borrow_mut().push(text.to_string());
    }
}

impl Ask for Face {
    fn confirm(&self, question: &str) -> std::io::Result<bool> {
        self.questions.borrow_mut().push(question.to_string());
        Ok(self.answer)
    }
}

impl remember::Face for Face {
    fn show_plans(&self, items: &[Item], _roots: &BTreeMap<Scope, PathBuf>) {
        let ids = items
            .iter()
            .filter_map(|i| i.plan.as_ref().map(|p| p.id.clone()))
            .collect();
        self.shown.borrow_mut().push(ids);
    }
    fn report(&self, done: &Done) -> std::io::Result<()> {
        self.reported.borrow_mut().push(done.statuses());
        Ok(())
    }
}

fn candidates(json: &str) -> Vec<Parsed> {
    input::candidates_from_json("test", json).unwrap()
}

fn one(name: &str, body: &str) -> String {
    format!(
        r#"{{"name": "{name}", "type": "project", "description": "About {name}", "body": "{body}"}}"#
    )
}

fn outcomes(done: &Done) -> Vec<Option<Outcome>> {
    done.items.iter().map(|i| i.outcome.clone()).collect()
}

#[test]
fn a_confirmed_batch_is_shown_then_written_then_reported() {
    let stores = Stores::new();
    let config = stores.config(false);
    let face = Face {
        answer: true,
        ..Face::default()
    };
    let batch = Batch {
        from_json: true,
        ..Batch::default()
    };
    let parsed = candidates(&format!(
        "[{}, {}]",
        one("deploys", "Never on Fridays."),
        one("ci", "CI runs on every push.")
    ));
    let done = remember::run_batch(&config, &face, &batch, parsed).unwrap();

    assert_eq!(done.statuses(), ["saved", "saved"]);
    assert_eq!(done.kind(), None);
    assert_eq!(*face.questions.borrow(), ["Save?"]);
    assert_eq!(*face.shown.borrow(), [vec!["deploys", "ci"]]);
    assert_eq!(*face.reported.borrow(), [vec!["saved", "saved"]]);
    let text = std::fs::read_to_string(stores.workspace().join("deploys.md")).unwrap();
    assert!(text.contains("Never on Fridays."), "{text}");
    // A JSON candidate that does not say otherwise is a model's guess.
    assert!(text.contains("source: inferred"), "{text}");
    let memory = std::fs::read_to_string(stores.workspace().join("MEMORY.md")).unwrap();
    assert!(
        memory.contains("deploys") && memory.contains("ci"),
        "{memory}"
    );
}

#[test]
fn a_batch_nobody_confirms_or_only_shown_writes_nothing() {
    let stores = Stores::new();
    let config = stores.config(false);
    let declined = Face::default();
    let parsed = || candidates(&one("deploys", "Never on Fridays."));
    let done = remember::run_batch(&config, &declined, &Batch::default(), parsed()).unwrap();
    assert_eq!(outcomes(&done), [Some(Outcome::NotConfirmed)]);
    assert_eq!(done.kind(), Some(Kind::NotConfirmed));
    assert_eq!(*declined.questions.borrow(), ["Save?"]);
    assert!(!stores.workspace().join("deploys.md").exists());

    let shown = Face::default();
    let dry_run = Batch {
        dry_run: true,
        ..Batch::default()
    };
    let done = remember::run_batch(&config, &shown, &dry_run, parsed()).unwrap();
    assert_eq!(outcomes(&done), [Some(Outcome::DryRun)]);
    assert_eq!(done.kind(), None);
    assert!(shown.questions.borrow().is_empty());
    assert_eq!(*shown.shown.borrow(), [vec!["deploys"]]);
    assert!(!stores.workspace().join("deploys.md").exists());
}

#[test]
fn a_guard_refuses_one_candidate_of_a_json_batch_and_the_others_are_written() {
    let stores = Stores::new();
    let config = stores.config(false);
    let face = Face::default();
    let batch = Batch {
        yes: true,
        from_json: true,
        ..Batch::default()
    };
    let parsed = candidates(&format!(
        "[{}, {}, {}]",
        one("aws", "The key is AKIAQWERTYUIOPASDFGH."),
        one("standup", "For now the standup is at ten."),
        one("ci", "CI runs on every push.")
    ));
    let done = remember::run_batch(&config, &face, &batch, parsed).unwrap();

    let outcomes = outcomes(&done);
    assert!(
        matches!(outcomes[0], Some(Outcome::Refused(Refusal::Secret(_)))),
        "{outcomes:?}"
    );
    assert!(
        matches!(outcomes[1], Some(Outcome::Refused(Refusal::Temporary(_)))),
        "{outcomes:?}"
    );
    assert!(matches!(outcomes[2], Some(Outcome::Saved { revision: 1 })));
    // The first candidate that did not go well gives the batch its kind.
    assert_eq!(done.kind(), Some(Kind::BadInput));
    assert!(face.questions.borrow().is_empty(), "--yes asks nothing");
    assert!(!stores.workspace().join("aws.md").exists());
    assert!(!stores.workspace().join("standup.md").exists());
    assert!(stores.workspace().join("ci.md").exists());
}

#[test]
fn a_forgotten_record_is_refused_as_a_conflict_unless_forced() {
    let stores = Stores::new();
    write(
        &stores.workspace(),
        RecordFile::written("deploys").body("Fridays.\n"),
    );
    let config = stores.config(false);
    let scoped = read_stores(&config).unwrap().remove(0);
    let targets = forget::find_targets(&config, &scoped, &["deploys".to_string()]).unwrap();
    forget::forget_confirmed(
        &config,
        &Face::default(),
        &scoped.store,
        &targets,
        None,
        false,
    )
    .unwrap();

    let face = Face::default();
    let parsed = || candidates(&one("deploys", "Never on Fridays."));
    let yes = Batch {
        yes: true,
        ..Batch::default()
    };
    let done = remember::run_batch(&config, &face, &yes, parsed()).unwrap();
    assert!(
        matches!(
            outcomes(&done)[0],
            Some(Outcome::Refused(Refusal::Tombstone(_)))
        ),
        "{:?}",
        outcomes(&done)
    );
    assert_eq!(done.kind(), Some(Kind::Conflict));
    assert!(!stores.workspace().join("deploys.md").exists());

    let forced = Batch { force: true, ..yes };
    let done = remember::run_batch(&config, &face, &forced, parsed()).unwrap();
    assert_eq!(done.statuses(), ["saved"]);
    assert!(stores.workspace().join("deploys.md").exists());
}

#[test]
fn two_candidates_for_one_record_stop_the_batch_before_anything_is_planned() {
    let stores = Stores::new();
    let config = stores.config(false);
    let face = Face::default();
    let parsed = candidates(&format!(
        "[{}, {}]",
        one("deploys", "Fridays."),
        one("Deploys", "Never on Fridays.")
    ));
    let batch = Batch {
        yes: true,
        from_json: true,
        ..Batch::default()
    };
    let err = remember::run_batch(&config, &face, &batch, parsed).unwrap_err();
    let explained = explain(&err).unwrap();
    assert_eq!(explained.kind, Kind::BadInput);
    assert!(
        explained.message.contains("are the same record"),
        "{}",
        explained.message
    );
    assert!(face.shown.borrow().is_empty());
    assert!(!stores.workspace().join("deploys.md").exists());
}

#[test]
fn a_missing_workspace_store_is_created_only_when_the_face_confirms_it() {
    let stores = Stores::new();
    std::fs::remove_dir(stores.workspace()).unwrap();
    // A repository without a store: the workspace store would go at its root.
    std::fs::create_dir(stores.dir.path().join("project/.git")).unwrap();
    let config = stores.config(false);
    let face = Face::default();
    let batch = Batch {
        scope: Some(Scope::Workspace),
        ..Batch::default()
    };
    let parsed = candidates(&one("deploys", "Fridays."));
    let err = remember::run_batch(&config, &face, &batch, parsed).unwrap_err();
    assert!(
        matches!(
            err,
            WriteFailure::Stopped {
                kind: Kind::NotConfirmed,
                ..
            }
        ),
        "{err:?}"
    );
    let question = &face.questions.borrow()[0];
    assert!(
        question.starts_with("Create a workspace store at "),
        "{question}"
    );
    assert!(!stores.workspace().exists());

    // A dry run plans against a stand-in and creates nothing either.
    let dry_run = Batch {
        dry_run: true,
        ..batch
    };
    let parsed = candidates(&one("deploys", "Fridays."));
    let done = remember::run_batch(&config, &face, &dry_run, parsed).unwrap();
    assert_eq!(done.statuses(), ["dry-run"]);
    assert_eq!(done.roots[&Scope::Workspace], stores.workspace());
    assert!(!stores.workspace().exists());
}

#[test]
fn an_agent_s_unconfirmed_write_may_not_overwrite_the_user_s_record() {
    let stores = Stores::new();
    write(
        &stores.workspace(),
        RecordFile::written("deploys")
            .source("user")
            .body("Fridays.\n"),
    );
    let config = stores.config(false);
    let store = read_stores(&config).unwrap().remove(0).store;
    let face = Face::default();
    let guess = Candidate {
        name: "deploys".to_string(),
        body: Some("Never on Fridays.".to_string()),
        ..Candidate::default()
    };
    let written = remember::write_unconfirmed(&config, &face, &store, &guess, None).unwrap();
    assert!(
        matches!(
            written.outcome,
            Outcome::Refused(Refusal::LowerTrust { .. })
        ),
        "{:?}",
        written.outcome
    );
    assert_eq!(written.outcome.kind(), Some(Kind::Conflict));
    assert!(written.catalog.is_none(), "nothing changed");
    let text = std::fs::read_to_string(stores.workspace().join("deploys.md")).unwrap();
    assert!(!text.contains("Never"), "{text}");

    let new = Candidate {
        name: "ci".to_string(),
        record_type: Some(mdstore::RecordType::Project),
        description: Some("CI".to_string()),
        body: Some("CI runs on every push.".to_string()),
        ..Candidate::default()
    };
    let written = remember::write_unconfirmed(&config, &face, &store, &new, None).unwrap();
    assert_eq!(written.outcome, Outcome::Saved { revision: 1 });
    assert_eq!(written.catalog, Some(remember::CatalogNews::default()));
    let text = std::fs::read_to_string(stores.workspace().join("ci.md")).unwrap();
    assert!(text.contains("source: inferred"), "{text}");
}
