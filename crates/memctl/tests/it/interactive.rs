//! The prompts, on a real pseudo-terminal: `Save? [y/N]` and its answers,
//! the interactive warning for temporary text, `Forget?`, creating a
//! workspace store after confirmation, and an invalid edit offered back.
//! Skipped, with a line saying so, where util-linux `script` is missing.

use pretty_assertions::assert_eq;

use crate::env::{Run, TestEnv};

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

fn in_terminal(env: &TestEnv, args: &[&str], keys: &str) -> Run {
    env.run_in_terminal(args, keys)
}

#[test]
fn save_prompt_declined_writes_nothing_and_exits_3() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    let run = in_terminal(&env, &remember_args(), "n");
    run.assert_code(3);
    assert!(
        run.stdout.contains("ADD prefer-pytest"),
        "the plan is shown: {}",
        run.render()
    );
    assert!(run.stdout.contains("Save? [y/N]"), "{}", run.render());
    assert!(
        run.stdout.contains("not saved: declined at the prompt"),
        "{}",
        run.render()
    );
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn save_prompt_defaults_to_no() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    let run = in_terminal(&env, &remember_args(), "\n");
    run.assert_code(3);
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn save_prompt_accepted_saves() {
    let env = TestEnv::new();
    let run = in_terminal(&env, &remember_args(), "y");
    run.assert_success();
    assert!(
        run.stdout.contains("Saved prefer-pytest (revision 1)"),
        "{}",
        run.render()
    );
    assert!(env.store().join("prefer-pytest.md").is_file());
}

#[test]
fn temporary_text_warns_on_a_terminal_and_may_be_saved() {
    let env = TestEnv::new();
    let args = [
        "remember",
        "--name",
        "dev-port",
        "--type",
        "project",
        "--description",
        "Dev server port",
        "For now use port 8080.",
    ];
    let run = in_terminal(&env, &args, "y");
    run.assert_success();
    assert!(
        run.stdout
            .contains("warning: \"for now\" on line 1 marks this as temporary"),
        "{}",
        run.render()
    );
    assert!(env.store().join("dev-port.md").is_file());
}

#[test]
fn a_secret_is_refused_on_a_terminal_too_without_asking() {
    let env = TestEnv::new();
    let token = crate::remember::fake_github_token();
    let args = [
        "remember",
        "--name",
        "api",
        "--type",
        "reference",
        "--description",
        "The API",
        &token,
    ];
    let run = in_terminal(&env, &args, "y");
    run.assert_code(2);
    assert!(
        !run.stdout.contains("Save?"),
        "a refusal asks nothing: {}",
        run.render()
    );
    assert!(!run.stdout.contains(&token), "{}", run.render());
    assert!(!env.store().join("api.md").exists());
}

#[test]
fn forget_prompt() {
    let env = TestEnv::new();
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    let declined = in_terminal(&env, &["forget", "prefer-pytest"], "n");
    declined.assert_code(3);
    assert!(
        declined.stdout.contains("Forget? [y/N]"),
        "{}",
        declined.render()
    );
    assert!(env.store().join("prefer-pytest.md").is_file());
    let accepted = in_terminal(&env, &["forget", "prefer-pytest"], "y");
    accepted.assert_success();
    assert!(!env.store().join("prefer-pytest.md").exists());
}

#[test]
fn a_workspace_store_is_created_at_the_git_root_after_confirmation() {
    let env = TestEnv::bare();
    std::fs::create_dir(env.work().join(".git")).expect("a fake git root");
    let declined = in_terminal(&env, &remember_args(), "n");
    declined.assert_code(3);
    assert!(
        declined.stdout.contains("Create a workspace store at "),
        "{}",
        declined.render()
    );
    assert!(!env.store().exists());
    let accepted = in_terminal(&env, &remember_args(), "yy");
    accepted.assert_success();
    assert!(
        env.store().join("prefer-pytest.md").is_file(),
        "{}",
        accepted.render()
    );
    assert!(env.store().join("MEMORY.md").is_file());
}

#[test]
fn an_invalid_edit_is_offered_back_and_saved_once_fixed() {
    let mut env = TestEnv::new();
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    // First round breaks the YAML; the second round repairs it.
    let rounds = env.root().join("rounds");
    let editor = env.script(
        "editor",
        &format!(
            r#"if [ -e '{rounds}' ]; then
  sed -i 's/^description: .*/description: "Tests use pytest: always"/' "$1"
else
  touch '{rounds}'
  sed -i 's/^description: .*/description: Tests use pytest: always/' "$1"
fi"#,
            rounds = rounds.display()
        ),
    );
    env.set_var("EDITOR", editor.display().to_string());
    let run = in_terminal(&env, &["edit", "prefer-pytest"], "y");
    run.assert_success();
    assert!(
        run.stdout.contains("not strict YAML"),
        "the problem is shown: {}",
        run.render()
    );
    assert!(run.stdout.contains("Edit it again?"), "{}", run.render());
    let text = env.read_store_file("prefer-pytest.md");
    assert!(
        text.contains("description: \"Tests use pytest: always\"\n"),
        "{text}"
    );
    assert!(text.contains("\nrevision: 2\n"), "{text}");
}

#[test]
fn an_invalid_edit_declined_is_discarded() {
    let mut env = TestEnv::new();
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    let editor = env.script("editor", r#"sed -i '/^description: /d' "$1""#);
    env.set_var("EDITOR", editor.display().to_string());
    let before = env.store_bytes();
    let run = in_terminal(&env, &["edit", "prefer-pytest"], "n");
    run.assert_code(3);
    assert!(
        run.stdout.contains("the edit was discarded"),
        "{}",
        run.render()
    );
    assert_eq!(env.store_bytes(), before);
}
