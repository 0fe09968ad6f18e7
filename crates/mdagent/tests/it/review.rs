//! `mdagent::lifecycle::review`: waiting candidates read again, accepted
//! through `remember`'s batch with every guard, or discarded; what is
//! decided stops waiting and is not proposed again for its session.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;

use mdagent::face::{Ask, Batches, Tell};
use mdagent::lifecycle::pending::{self, Waiting};
use mdagent::lifecycle::review;
use mdagent::remember::{self, Batch, Done, Item, Parsed};
use mdagent::stores::Scope;
use mdagent::write_failure::WriteFailure;
use mdstore::Source;
use mdstore::write::candidate_from_json;
use serde_json::json;

use crate::support::Stores;

struct Face<'a> {
    config: &'a mdagent::Config,
    batches: RefCell<Vec<(bool, bool, Option<Scope>)>>,
}

impl Tell for Face<'_> {
    fn note(&self, _text: &str) {}
    fn warn(&self, _text: &str) {}
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
        let options = (batch.yes, batch.dry_run, batch.scope);
        self.batches.borrow_mut().push(options);
        remember::run_batch(self.config, self, batch, parsed)
    }
}

/// `names` waiting for the workspace store, found in session `session`;
/// the file says each is `verified`, which a review does not believe.
fn waiting(stores: &Stores, names: &[&str], session: &str) {
    let config = stores.config(false);
    let candidates: Vec<Waiting> = names
        .iter()
        .map(|name| {
            let value = json!({"name": name, "type": "project", "source": "verified",
                "description": format!("About {name}"), "body": format!("The {name} rule holds.")});
            Waiting {
                candidate: candidate_from_json(&value).unwrap(),
                origin: None,
                repeats: None,
            }
        })
        .collect();
    pending::add(
        &config,
        &stores.workspace(),
        &candidates,
        "s.jsonl",
        session,
    )
    .unwrap();
}

#[test]
fn review_accepts_every_waiting_candidate_as_inferred_and_none_waits_after() {
    let stores = Stores::new();
    waiting(&stores, &["use-pnpm", "run-tests"], "one");
    let config = stores.config(false);
    let face = Face {
        config: &config,
        batches: RefCell::default(),
    };

    let review = review::open(&config, &face).unwrap();
    assert_eq!(review.entries.len(), 2);
    assert_eq!(review.scope, Scope::Workspace);
    let done = review.accept_all(&config, &face, false).unwrap();

    assert_eq!(done.statuses(), ["saved", "saved"]);
    assert_eq!(
        *face.batches.borrow(),
        [(true, false, Some(Scope::Workspace))]
    );
    let text = std::fs::read_to_string(stores.workspace().join("use-pnpm.md")).unwrap();
    assert!(text.contains("source: inferred"), "{text}");
    assert_eq!(review.left(&config).unwrap(), 0);
    // Decided: the same session does not bring them back.
    waiting(&stores, &["use-pnpm"], "one");
    assert_eq!(review.left(&config).unwrap(), 0);
}

#[test]
fn review_discards_one_for_good_and_an_unsettled_accept_leaves_it_waiting() {
    let stores = Stores::new();
    waiting(&stores, &["use-pnpm", "run-tests"], "one");
    let config = stores.config(false);
    let face = Face {
        config: &config,
        batches: RefCell::default(),
    };
    let review = review::open(&config, &face).unwrap();
    let named = |wanted: &str| {
        review
            .entries
            .iter()
            .find(|e| e.candidate["name"] == wanted)
            .unwrap()
    };
    let (first, second) = (named("use-pnpm"), named("run-tests"));

    let (parsed, retargeted) = review.parse_all(&config, &review.entries);
    assert_eq!(parsed.len(), 2);
    assert!(
        parsed
            .iter()
            .all(|p| p.as_ref().unwrap().source == Some(Source::Inferred))
    );
    assert!(retargeted.iter().all(Option::is_none));

    review.discard(&config, first).unwrap();
    review.accepted(&config, second, "conflict").unwrap();
    assert_eq!(
        review.left(&config).unwrap(),
        1,
        "a conflict leaves it waiting"
    );
    review.accepted(&config, second, "refused").unwrap();
    assert_eq!(review.left(&config).unwrap(), 0);
    // The discarded one is not proposed again for its session.
    waiting(&stores, &["use-pnpm"], "one");
    let name = |e: &pending::Entry| e.candidate["name"].as_str().map(str::to_string);
    let left: Vec<_> = pending::load(&config, &stores.workspace())
        .unwrap()
        .iter()
        .filter_map(name)
        .collect();
    assert!(!left.contains(&"use-pnpm".to_string()), "{left:?}");
}
