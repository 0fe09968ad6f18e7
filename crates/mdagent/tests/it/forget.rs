//! `mdagent::forget`: a person's forget of records they named and
//! confirmed, and an agent's, only of a record as it read it and never of
//! the user's; each leaves a tombstone.

use std::cell::RefCell;

use mdagent::face::Tell;
use mdagent::forget::{self, AgentForget, ReadAs};
use mdagent::stores::read_stores;
use mdagent::write_failure::WriteFailure;
use mdagent::{Kind, explain};
use memctl_testkit::RecordFile;

use crate::support::{Stores, write};

#[derive(Default)]
struct Told {
    notes: RefCell<Vec<String>>,
}

impl Tell for Told {
    fn note(&self, text: &str) {
        self.notes.borrow_mut().push(text.to_string());
    }
    fn warn(&self, text: &str) {
        self.notes.borrow_mut().push(format!("warning: {text}"));
    }
}

fn ids(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|id| (*id).to_string()).collect()
}

/// The ids of the store's tombstones.
fn tombstones(root: &std::path::Path) -> Vec<String> {
    let (tombstones, problems) = mdstore::tombstone::load_all(root);
    assert!(problems.is_empty(), "{problems:?}");
    tombstones.into_iter().map(|t| t.id).collect()
}

#[test]
fn forgotten_records_are_gone_behind_tombstones_and_said_so() {
    let stores = Stores::new();
    for id in ["deploys", "ci", "kept"] {
        write(&stores.workspace(), RecordFile::written(id).body("Text.\n"));
    }
    let config = stores.config(false);
    let scoped = forget::target_store(&config, &ids(&["deploys", "ci"])).unwrap();
    let targets = forget::find_targets(&config, &scoped, &ids(&["deploys", "ci"])).unwrap();
    assert_eq!(targets.len(), 2);
    let told = Told::default();
    forget::forget_confirmed(
        &config,
        &told,
        &scoped.store,
        &targets,
        Some("moved to the wiki"),
        false,
    )
    .unwrap();

    assert!(!stores.workspace().join("deploys.md").exists());
    assert!(!stores.workspace().join("ci.md").exists());
    assert!(stores.workspace().join("kept.md").exists());
    let mut forgotten = tombstones(&stores.workspace());
    forgotten.sort();
    assert_eq!(forgotten, ["ci", "deploys"]);
    assert_eq!(
        *told.notes.borrow(),
        [
            "Forgot deploys; a tombstone keeps it from coming back.",
            "Forgot ci; a tombstone keeps it from coming back."
        ]
    );
    let memory = std::fs::read_to_string(stores.workspace().join("MEMORY.md")).unwrap();
    assert!(
        !memory.contains("deploys") && memory.contains("kept"),
        "{memory}"
    );
}

#[test]
fn an_unknown_or_already_forgotten_id_stops_the_forget_with_a_hint() {
    let stores = Stores::new();
    write(&stores.workspace(), RecordFile::written("deploys"));
    let config = stores.config(false);
    let scoped = read_stores(&config).unwrap().remove(0);
    let err = forget::find_targets(&config, &scoped, &ids(&["deploy"])).unwrap_err();
    let explained = explain(&err).unwrap();
    assert_eq!(explained.kind, Kind::BadInput);
    assert!(explained.message.starts_with("no record \"deploy\""));
    assert!(
        explained
            .hint
            .as_deref()
            .unwrap()
            .contains("did you mean deploys?"),
        "{explained:?}"
    );

    let targets = forget::find_targets(&config, &scoped, &ids(&["deploys"])).unwrap();
    forget::forget_confirmed(
        &config,
        &Told::default(),
        &scoped.store,
        &targets,
        None,
        false,
    )
    .unwrap();
    let err = forget::find_targets(&config, &scoped, &ids(&["deploys"])).unwrap_err();
    let hint = explain(&err).unwrap().hint.unwrap();
    assert!(hint.starts_with("it was already forgotten on "), "{hint}");
}

#[test]
fn a_reason_that_holds_a_secret_is_refused_before_anything_is_asked() {
    let err =
        forget::refuse_secret_reason(Some("key AKIAQWERTYUIOPASDFGH"), "--reason").unwrap_err();
    let WriteFailure::Stopped {
        kind,
        message,
        hint,
    } = err
    else {
        panic!("{err:?}");
    };
    assert_eq!(kind, Kind::BadInput);
    assert!(message.starts_with("--reason looks like it holds a secret"));
    assert!(!message.contains("AKIA"), "{message}");
    assert_eq!(
        hint.as_deref(),
        Some("say why without the secret; nothing was forgotten")
    );
    assert!(forget::refuse_secret_reason(Some("moved to the wiki"), "--reason").is_ok());
    assert!(forget::refuse_secret_reason(None, "--reason").is_ok());
}

#[test]
fn a_store_that_does_not_exist_has_nothing_to_forget_and_is_not_created() {
    let stores = Stores::new();
    let config = stores.config(true);
    std::fs::remove_dir(stores.global()).unwrap();
    let err = forget::target_store(&config, &ids(&["deploys"])).unwrap_err();
    let explained = explain(&err).unwrap();
    assert_eq!(explained.kind, Kind::BadInput);
    assert!(
        explained.message.contains("there is no global store at"),
        "{}",
        explained.message
    );
    assert!(!stores.global().exists());
}

#[test]
fn an_agent_forgets_only_what_it_read_and_never_the_user_s_record() {
    let stores = Stores::new();
    write(
        &stores.workspace(),
        RecordFile::written("mine").source("user"),
    );
    write(
        &stores.workspace(),
        RecordFile::written("guess").source("inferred"),
    );
    let config = stores.config(false);
    let store = read_stores(&config).unwrap().remove(0).store;
    let told = Told::default();
    let record = |id: &str| {
        let entry = store.find(id).unwrap();
        store.read_record(&entry.rel_path).unwrap()
    };
    let as_read = |id: &str| ReadAs {
        revision: 1,
        read_hash: mdstore::hash::read_hash(&record(id)),
    };

    let mine = forget::forget_as_read(&config, &told, &store, "mine", None, &as_read("mine"));
    assert!(
        matches!(&mine, Ok(AgentForget::NotToForget { reason, .. }) if reason.contains("the user's record")),
        "{mine:?}"
    );
    let stale = ReadAs {
        revision: 2,
        ..as_read("guess")
    };
    let guess = forget::forget_as_read(&config, &told, &store, "guess", None, &stale);
    assert!(
        matches!(&guess, Ok(AgentForget::NotToForget { reason, .. }) if reason.contains("not 2")),
        "{guess:?}"
    );
    let changed = ReadAs {
        read_hash: "0".repeat(16),
        ..as_read("guess")
    };
    let guess = forget::forget_as_read(&config, &told, &store, "guess", None, &changed);
    assert!(
        matches!(&guess, Ok(AgentForget::NotToForget { reason, .. }) if reason.contains("changed since you read it")),
        "{guess:?}"
    );
    assert!(tombstones(&stores.workspace()).is_empty());

    let read = as_read("guess");
    let guess = forget::forget_as_read(&config, &told, &store, "guess", None, &read).unwrap();
    assert!(
        matches!(&guess, AgentForget::Forgotten { id, .. } if id == "guess"),
        "{guess:?}"
    );
    assert_eq!(tombstones(&stores.workspace()), ["guess"]);
    assert!(stores.workspace().join("mine.md").exists());
    let again = forget::forget_as_read(&config, &told, &store, "guess", None, &read).unwrap();
    assert!(matches!(again, AgentForget::NoRecord), "{again:?}");
}
