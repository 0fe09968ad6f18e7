//! `mdagent::extract::propose`: a session sent to a model command, its
//! answer read into candidates, each judged for whose words it is and
//! whether it repeats a record, as `memctl extract` (with or without
//! `--pending`) takes them.

use std::path::Path;
use std::time::Duration;

use mdagent::extract::origin::Origin;
use mdagent::extract::propose::{ProposeError, Proposed, propose};
use mdagent::extract::{request, transcript};
use mdagent::model::cmd::ModelCmdError;
use mdagent::model::source::{ModelCommand, Origin as CommandOrigin};
use memctl_testkit::RecordFile;
use serde_json::json;

use crate::support::{Stores, write};

const TOOL_TEXT: &str =
    "psql connected to the staging replica at port 5433 with read only rights granted";

/// A session: the user's rule, the assistant's answer, a tool's output.
fn session(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("session.json");
    let messages = json!([
        {"role": "user", "text": "Our staging database is db-staging.internal; production is never touched from laptops."},
        {"role": "assistant", "text": "Understood: staging lives at db-staging.internal and production is off limits from laptops."},
        {"role": "tool", "text": TOOL_TEXT},
    ]);
    std::fs::write(&path, messages.to_string()).unwrap();
    path
}

/// A model command that reads its request and prints `answer`.
fn model(dir: &Path, answer: &str) -> ModelCommand {
    let file = dir.join("answer.json");
    std::fs::write(&file, answer).unwrap();
    ModelCommand {
        line: format!("sh -c 'cat >/dev/null; cat {}'", file.display()),
        origin: CommandOrigin::Argument,
    }
}

fn candidate(name: &str, description: &str, body: &str, scope: &str) -> serde_json::Value {
    json!({"name": name, "type": "project", "description": description, "body": body, "scope": scope})
}

fn run(stores: &Stores, answer: &str) -> Result<Proposed, ProposeError> {
    let dir = stores.dir.path();
    let conversation = transcript::read(&session(dir)).unwrap();
    let request = request::request(&conversation);
    let model = model(dir, answer);
    let timeout = Duration::from_secs(60);
    propose(
        &stores.config(false),
        &conversation,
        &request,
        &model,
        timeout,
    )
}

#[test]
fn each_proposal_becomes_a_candidate_judged_for_whose_words_it_is() {
    let stores = Stores::new();
    let answer = json!({"candidates": [
        candidate("staging-db", "The staging database is db-staging.internal", "Production is never touched from laptops.", "persistent"),
        candidate("todays-task", "Fix the flaky test", "Only for this session.", "current_task"),
        candidate("replica", "The staging replica", TOOL_TEXT, "persistent"),
    ]});
    let proposed = run(&stores, &answer.to_string()).unwrap();
    assert_eq!(proposed.parsed.len(), 3);
    let first = proposed.parsed[0].as_ref().unwrap();
    assert_eq!(first.source, Some(mdstore::Source::Inferred));
    let origin = proposed.origins[0].as_ref().unwrap();
    assert_eq!(origin.origin, Origin::User, "{:?}", origin.words);
    let dropped = proposed.parsed[1].as_ref().unwrap_err();
    assert!(dropped.dropped, "{}", dropped.message);
    let copied = proposed.parsed[2].as_ref().unwrap_err();
    assert!(!copied.dropped);
    assert!(copied.message.contains("tool output"), "{}", copied.message);
    // Only a readable candidate is judged.
    assert!(proposed.origins[1].is_none() && proposed.origins[2].is_none());
    assert!(proposed.retargeted.iter().all(Option::is_none));
}

#[test]
fn a_candidate_that_repeats_a_record_is_proposed_under_its_name() {
    let stores = Stores::new();
    let description = "The staging database is db-staging.internal";
    let body = "Production is never touched from laptops.";
    write(
        &stores.workspace(),
        RecordFile::written("staging-database")
            .description(description)
            .body(&format!("{body}\n")),
    );
    let answer = json!([candidate("staging-db", description, body, "persistent")]);
    let proposed = run(&stores, &answer.to_string()).unwrap();
    let repeated = proposed.retargeted[0].as_ref().expect("a repeat");
    assert_eq!(repeated.record, "staging-database");
    assert_eq!(repeated.proposed, "staging-db");
    let renamed = proposed.parsed[0].as_ref().unwrap();
    assert_eq!(renamed.name, "staging-database");
}

#[test]
fn an_answer_that_cannot_be_read_or_a_failing_command_proposes_nothing() {
    let stores = Stores::new();
    match run(&stores, "Sure! Here are some memories.") {
        Err(ProposeError::Answer(reason)) => assert!(reason.contains("not JSON"), "{reason}"),
        other => panic!("{other:?}"),
    }
    let dir = stores.dir.path();
    let conversation = transcript::read(&session(dir)).unwrap();
    let failing = ModelCommand {
        line: "sh -c 'cat >/dev/null; exit 3'".to_string(),
        origin: CommandOrigin::Argument,
    };
    let result = propose(
        &stores.config(false),
        &conversation,
        &request::request(&conversation),
        &failing,
        Duration::from_secs(60),
    );
    assert!(
        matches!(result, Err(ProposeError::Model(ModelCmdError::Failed(_)))),
        "{result:?}"
    );
}
