//! `mdagent::extract::run`: `memctl extract` as a face runs it: the
//! proposals saved through `remember`'s batch, or kept for review with
//! `--pending`; nothing asked of the model without one to ask or anyone
//! to confirm.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mdagent::Kind;
use mdagent::extract::run::{self as extract, ExtractError, ExtractRequest};
use mdagent::face::{Ask, Batches, Tell};
use mdagent::lifecycle::after_session::Outcome;
use mdagent::lifecycle::pending;
use mdagent::remember::{self, Batch, Done, Item, Parsed};
use mdagent::stores::Scope;
use mdagent::write_failure::WriteFailure;
use serde_json::json;

use crate::support::Stores;

/// A face that confirms nothing (a batch is run with `yes` or as a dry
/// run) and keeps what it was told and each batch's options.
struct Face<'a> {
    config: &'a mdagent::Config,
    notes: RefCell<Vec<String>>,
    batches: RefCell<Vec<(bool, bool)>>,
}

impl Tell for Face<'_> {
    fn note(&self, text: &str) {
        self.notes.borrow_mut().push(text.to_string());
    }
    fn warn(&self, text: &str) {
        self.notes.borrow_mut().push(format!("warning: {text}"));
    }
}

impl Ask for Face<'_> {
    fn confirm(&self, _question: &str) -> std::io::Result<bool> {
        Ok(false)
    }
}

impl remember::Face for Face<'_> {
    fn show_plans(&self, _items: &[Item], _roots: &BTreeMap<Scope, PathBuf>) {}
    fn report(&self, _done: &Done) -> std::io::Result<()> {
        Ok(())
    }
}

impl Batches for Face<'_> {
    fn batch(&self, batch: &Batch, parsed: Vec<Parsed>) -> Result<Done, WriteFailure> {
        self.batches.borrow_mut().push((batch.yes, batch.dry_run));
        remember::run_batch(self.config, self, batch, parsed)
    }
}

fn face(config: &mdagent::Config) -> Face<'_> {
    Face {
        config,
        notes: RefCell::default(),
        batches: RefCell::default(),
    }
}

/// A session in which the user states a rule, and a model command that
/// answers with a lasting candidate and one for the current task only.
fn session_and_model(dir: &Path) -> (PathBuf, String) {
    let session = dir.join("session.json");
    let messages = json!([
        {"role": "user", "text": "Our staging database is db-staging.internal; production is never touched from laptops."},
        {"role": "assistant", "text": "Understood."},
    ]);
    std::fs::write(&session, messages.to_string()).unwrap();
    let answer = json!({"candidates": [
        {"name": "staging-db", "type": "project", "description": "The staging database is db-staging.internal",
         "body": "Production is never touched from laptops.", "scope": "persistent"},
        {"name": "todays-task", "type": "project", "description": "Fix the flaky test",
         "body": "Only for this session.", "scope": "current_task"},
    ]});
    let file = dir.join("answer.json");
    std::fs::write(&file, answer.to_string()).unwrap();
    let line = format!(
        "sh -c 'touch {}; cat >/dev/null; cat {}'",
        dir.join("asked").display(),
        file.display()
    );
    (session, line)
}

fn request<'a>(session: &'a Path, line: &'a str) -> ExtractRequest<'a> {
    ExtractRequest {
        transcript: session,
        llm_cmd: Some(line),
        yes: true,
        dry_run: false,
        pending: false,
        commit: false,
        can_confirm: false,
    }
}

#[test]
fn extract_run_saves_the_lasting_proposal_through_remembers_batch() {
    let stores = Stores::new();
    let (session, line) = session_and_model(stores.dir.path());
    let config = stores.config(false);
    let face = face(&config);

    let extracted = extract::run(&config, &face, &request(&session, &line)).unwrap();

    assert_eq!(extracted.statuses, ["saved", "dropped"]);
    assert_eq!(extracted.kind, None);
    assert!(
        matches!(extracted.outcome, Outcome::Saved { saved: 1, .. }),
        "{:?}",
        extracted.outcome
    );
    assert!(stores.workspace().join("staging-db.md").is_file());
    assert!(!stores.workspace().join("todays-task.md").exists());
    assert_eq!(*face.batches.borrow(), [(true, false)]);
}

#[test]
fn extract_run_pending_keeps_what_passes_for_review_and_writes_no_record() {
    let stores = Stores::new();
    let (session, line) = session_and_model(stores.dir.path());
    let config = stores.config(false);
    let face = face(&config);
    let asked = ExtractRequest {
        pending: true,
        yes: false,
        ..request(&session, &line)
    };

    let extracted = extract::run(&config, &face, &asked).unwrap();

    assert!(
        matches!(
            extracted.outcome,
            Outcome::Waiting {
                new: 1,
                waiting: 1,
                saved: 0,
                ..
            }
        ),
        "{:?}",
        extracted.outcome
    );
    assert!(!stores.workspace().join("staging-db.md").exists());
    let waiting = pending::load(&config, &stores.workspace()).unwrap();
    assert_eq!(waiting.len(), 1);
    assert_eq!(
        *face.batches.borrow(),
        [(false, true)],
        "planned, not written"
    );
    let notes = face.notes.borrow();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("1 candidate from") && n.contains("now wait for `memctl review`")),
        "{notes:?}"
    );
}

#[test]
fn extract_run_asks_no_model_without_one_or_without_anyone_to_confirm() {
    let stores = Stores::new();
    let (session, line) = session_and_model(stores.dir.path());
    let config = stores.config(false);
    let face = face(&config);

    let no_model = ExtractRequest {
        llm_cmd: None,
        ..request(&session, &line)
    };
    let error = extract::run(&config, &face, &no_model).err().unwrap();
    assert!(matches!(error, ExtractError::NoModel { .. }), "{error}");
    let explained = mdagent::explain(&error).unwrap();
    assert_eq!(explained.kind, Kind::BadInput);
    assert!(explained.hint.unwrap().contains("--llm-cmd"));

    let unconfirmed = ExtractRequest {
        yes: false,
        ..request(&session, &line)
    };
    let error = extract::run(&config, &face, &unconfirmed).err().unwrap();
    assert!(matches!(error, ExtractError::NoTerminal), "{error}");
    assert_eq!(mdagent::explain(&error).unwrap().kind, Kind::NotConfirmed);
    assert!(
        !stores.dir.path().join("asked").exists(),
        "the model command was never run"
    );
    assert!(face.batches.borrow().is_empty());
}
