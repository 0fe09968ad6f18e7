//! What context shows is current (issue 14 item 5): a record whose
//! `expires` has passed is never shown by `memctl context` or the hook,
//! neither recalled for a prompt nor listed at session start, until dream
//! retires it; and a store without `MEMORY.md` still gets a catalogue at
//! session start, rendered from its records.

use std::fs;

use crate::env::TestEnv;
use crate::hook_lifecycle::event;

const FREEZE: &str = "---\nname: deploy-freeze\ndescription: Deploy freeze on the ledger service until the audit ends\ntype: project\nexpires: 2020-01-01\n---\nNo deploys of the ledger service during the audit freeze.\n";

/// Two current records and an expired one, listed in `MEMORY.md` as a
/// hand edit or an older memctl would have left it.
fn store_with_an_expired_record() -> TestEnv {
    let mut env = TestEnv::new();
    env.remember(
        "ledger-deploys",
        "project",
        "Ledger service deploys go through the deploy pipeline",
        "Deploys of the ledger service run from the deploy pipeline, never by hand.",
    )
    .assert_success();
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests in this project use pytest, never unittest",
        "New tests use pytest functions and fixtures.",
    )
    .assert_success();
    env.write_store_file("deploy-freeze.md", FREEZE);
    let catalogue = env.read_store_file("MEMORY.md")
        + "- [deploy-freeze](deploy-freeze.md) — Deploy freeze on the ledger service until the audit ends\n";
    env.replace_store_file("MEMORY.md", &catalogue);
    env.set_var("MEMCTL_AUTO_WATCH", "off");
    env.set_var("MEMCTL_AUTO_DREAM", "off");
    env
}

fn session_start(env: &TestEnv) -> String {
    let run = env.run_stdin(
        &["hook", "claude-code"],
        &event(env, "claude-code", "session-start.json", |_| {}),
    );
    run.assert_success();
    run.json()["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn an_expired_record_is_never_recalled_by_context_or_the_hook() {
    let env = store_with_an_expired_record();
    let prompt = "can we deploy the ledger service during the audit freeze?";
    let context = env.run(&["context", "--query", prompt]);
    context.assert_success();
    assert!(
        context.stdout.contains("ledger-deploys"),
        "{}",
        context.render()
    );
    assert!(
        !context.stdout.contains("deploy-freeze"),
        "{}",
        context.render()
    );
    let hook = env.run_stdin(
        &["hook", "claude-code"],
        &event(&env, "claude-code", "user-prompt-submit.json", |e| {
            e["prompt"] = serde_json::Value::from(prompt);
        }),
    );
    hook.assert_success();
    assert!(!hook.stdout.contains("deploy-freeze"), "{}", hook.render());
    // Search still finds it: the rule is what context shows, not what the
    // store holds (dream retires it; `memctl search` is the person's view).
    let search = env.run(&["search", "audit", "freeze"]);
    assert!(
        search.stdout.contains("deploy-freeze"),
        "{}",
        search.render()
    );
}

#[test]
fn an_expired_records_catalogue_line_is_not_shown_at_session_start() {
    let env = store_with_an_expired_record();
    let shown = session_start(&env);
    assert!(
        shown.contains("[ledger-deploys](ledger-deploys.md)"),
        "{shown}"
    );
    assert!(!shown.contains("deploy-freeze"), "{shown}");
}

#[test]
fn a_store_without_memory_md_gets_a_catalogue_from_its_records() {
    let env = store_with_an_expired_record();
    fs::remove_file(env.store().join("MEMORY.md")).unwrap();
    let shown = session_start(&env);
    assert!(
        shown.contains("<memory-catalogue scope=\"workspace\">"),
        "{shown}"
    );
    assert!(
        shown.contains("[ledger-deploys](ledger-deploys.md)"),
        "{shown}"
    );
    assert!(
        shown.contains("[prefer-pytest](prefer-pytest.md)"),
        "{shown}"
    );
    assert!(!shown.contains("deploy-freeze"), "{shown}");
    // The policy comes with it, and nothing was written to the store.
    assert!(shown.contains("memctl"), "{shown}");
    assert!(!env.store().join("MEMORY.md").exists());
}
