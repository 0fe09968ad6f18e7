//! `mdagent::context::gather` on stores the caller found once: what a
//! prompt recalls (typed, current, not shown twice) and what a session
//! start shows.

use std::collections::HashSet;

use mdagent::context::{self, Ask, Context};
use mdagent::stores::read_stores;
use memctl_testkit::RecordFile;

use crate::support::{Stores, write};

const PROMPT: &str = "add a pytest test for the invoice rounding";

fn pytest(id: &str) -> RecordFile {
    RecordFile::written(id)
        .source("user")
        .description("Tests in this project use pytest, never unittest")
        .body("New tests use pytest functions and fixtures.\n")
}

fn gather(stores: &Stores, ask: &Ask<'_>) -> Context {
    let config = stores.config(false);
    let found = read_stores(&config).unwrap();
    context::gather(&config, &found, ask).unwrap()
}

fn prompt<'a>(already_shown: &[&str]) -> Ask<'a> {
    Ask {
        prompt: Some(PROMPT),
        session_start: false,
        max: context::DEFAULT_MAX,
        already_shown: already_shown.iter().map(|k| k.to_string()).collect(),
        background_budget: None,
    }
}

fn ids(context: &Context) -> Vec<(&str, &str)> {
    context
        .records
        .iter()
        .map(|r| (r.scope, r.id.as_str()))
        .collect()
}

#[test]
fn a_prompt_recalls_the_relevant_record_with_its_type_and_source() {
    let stores = Stores::new();
    write(
        &stores.workspace(),
        pytest("prefer-pytest").kind("feedback"),
    );
    write(&stores.workspace(), RecordFile::written("unrelated"));
    let context = gather(&stores, &prompt(&[]));
    assert_eq!(ids(&context), [("workspace", "prefer-pytest")]);
    let record = &context.records[0];
    assert_eq!(record.record_type.as_deref(), Some("feedback"));
    assert_eq!(record.source, "user");
    assert!(
        record
            .content
            .starts_with("Tests in this project use pytest")
    );
    assert!(record.content.contains("pytest functions and fixtures"));
    assert!(context.catalogues.is_empty());
}

#[test]
fn an_expired_record_is_not_recalled_by_the_expires_the_index_holds() {
    let stores = Stores::new();
    write(
        &stores.workspace(),
        pytest("prefer-pytest").expires("2020-01-01"),
    );
    write(&stores.global(), pytest("global-pytest"));
    let context = gather(&stores, &prompt(&[]));
    assert_eq!(ids(&context), [("global", "global-pytest")]);
}

#[test]
fn a_record_already_shown_in_the_session_is_not_shown_again() {
    let stores = Stores::new();
    write(&stores.workspace(), pytest("prefer-pytest"));
    write(&stores.global(), pytest("global-pytest"));
    let key = context::key("workspace", "prefer-pytest");
    let context = gather(&stores, &prompt(&[&key]));
    assert_eq!(ids(&context), [("global", "global-pytest")]);
}

#[test]
fn a_session_start_shows_each_stores_catalogue_without_expired_lines() {
    let stores = Stores::new();
    write(&stores.workspace(), pytest("prefer-pytest"));
    write(
        &stores.workspace(),
        pytest("old-pytest").expires("2020-01-01"),
    );
    let ask = Ask {
        session_start: true,
        max: context::DEFAULT_MAX,
        already_shown: HashSet::new(),
        background_budget: None,
        ..Ask::default()
    };
    let context = gather(&stores, &ask);
    assert!(context.records.is_empty());
    // No MEMORY.md: one rendered from the current records.
    assert_eq!(context.catalogues.len(), 1, "{:?}", context.catalogues);
    let catalogue = &context.catalogues[0];
    assert_eq!(catalogue.scope, "workspace");
    assert!(
        catalogue.text.contains("[prefer-pytest](prefer-pytest.md)"),
        "{}",
        catalogue.text
    );
    assert!(!catalogue.text.contains("old-pytest"), "{}", catalogue.text);
}

/// Issue 24: without an encoder memctl still runs and says what it lacks,
/// once; a user who turned it off is not told.
#[test]
fn without_an_encoder_context_says_what_it_lacks_once() {
    let stores = Stores::new();
    write(&stores.workspace(), pytest("prefer-pytest"));
    let lacks = |context: &Context| {
        context
            .warnings
            .iter()
            .filter(|w| w.as_str() == mdagent::semantic::NO_ENCODER)
            .count()
    };
    assert_eq!(lacks(&gather(&stores, &prompt(&[]))), 1);
    assert_eq!(lacks(&gather(&stores, &prompt(&[]))), 0);

    let off = Stores::new();
    write(&off.workspace(), pytest("prefer-pytest"));
    let settings = off.dir.path().join("home/.config/memctl");
    std::fs::create_dir_all(&settings).unwrap();
    std::fs::write(
        settings.join("config.toml"),
        "[semantic]\nmodel = \"off\"\n",
    )
    .unwrap();
    assert_eq!(lacks(&gather(&off, &prompt(&[]))), 0);
}
