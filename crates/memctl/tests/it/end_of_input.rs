//! Issue 15, item 7: Ctrl-D at a confirmation prompt was ignored (the
//! prompt went on waiting); it means no, at every prompt: `Save?`,
//! `Forget?`, `Apply this plan?` and creating a store. A prompt that
//! ignored it would keep the run waiting until the test environment's
//! deadline stopped it ([`crate::env::RUN_DEADLINE`]): a failure, not a hang.

use pretty_assertions::assert_eq;

use crate::dream::{both_stores, fake_model, model_env};
use crate::env::{Run, TestEnv};

/// Ctrl-D as the terminal sends it.
const CTRL_D: &str = "\u{4}";

fn remember_args() -> Vec<&'static str> {
    vec![
        "remember",
        "--name",
        "prefer-pytest",
        "--type",
        "feedback",
        "--description",
        "Tests use pytest",
        "New tests use pytest.",
    ]
}

#[track_caller]
fn assert_declined(run: &Run, question: &str) {
    run.assert_code(3);
    assert!(
        run.stdout.contains(&format!("{question} [y/N] no")),
        "{}",
        run.render()
    );
    assert!(
        run.stdout.contains("declined at the prompt"),
        "{}",
        run.render()
    );
}

#[test]
fn ctrl_d_at_a_prompt_was_ignored() {
    // Save?
    let env = TestEnv::new();
    let before = env.store_bytes();
    let run = env.run_in_terminal(&remember_args(), CTRL_D);
    assert_declined(&run, "Save?");
    assert_eq!(env.store_bytes(), before);

    // Forget?
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    let before = env.store_bytes();
    let run = env.run_in_terminal(&["forget", "prefer-pytest"], CTRL_D);
    assert_declined(&run, "Forget?");
    assert_eq!(env.store_bytes(), before);

    // Creating a workspace store: nothing is created, nothing more asked.
    let env = TestEnv::bare();
    std::fs::create_dir(env.work().join(".git")).expect("a fake git root");
    let run = env.run_in_terminal(&remember_args(), CTRL_D);
    run.assert_code(3);
    assert!(
        run.stdout.contains("Create a workspace store at "),
        "{}",
        run.render()
    );
    assert!(!run.stdout.contains("Save?"), "{}", run.render());
    assert!(!env.store().exists());

    // Apply this plan?
    let env = model_env();
    let runner = fake_model(&env, "good");
    let before = both_stores(&env);
    let run = env.run_in_terminal(&["dream", "--llm-cmd", &runner], CTRL_D);
    assert_declined(&run, "Apply this plan?");
    assert_eq!(both_stores(&env), before);
}

#[test]
fn a_key_that_is_no_answer_is_ignored_until_one_is_given() {
    let env = TestEnv::new();
    let run = env.run_in_terminal(&remember_args(), "xy");
    run.assert_success();
    assert!(run.stdout.contains("Save? [y/N] yes"), "{}", run.render());
    assert!(env.store().join("prefer-pytest.md").is_file());
}
