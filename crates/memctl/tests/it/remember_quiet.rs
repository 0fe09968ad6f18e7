//! Issue 15, item 7: `remember --yes -q` printed the whole record. `-q`
//! silences what is said for information (SPEC §9); with `--yes` nobody
//! confirms the plan, so it is not shown: only warnings and errors remain.
//! Without `--yes` the plan is what a person confirms, and a dry run's plan
//! is its answer: both are still shown.

use crate::env::TestEnv;

fn remember(extra: &[&'static str], body: &'static str) -> Vec<&'static str> {
    let mut args = vec![
        "remember",
        "-q",
        "--name",
        "prefer-pytest",
        "--type",
        "feedback",
        "--description",
        "Tests use pytest",
    ];
    args.extend_from_slice(extra);
    args.push(body);
    args
}

#[test]
fn remember_yes_quiet_printed_the_whole_record() {
    let env = TestEnv::new();
    let run = env.run(&remember(&["--yes"], "New tests use pytest."));
    run.assert_success();
    assert_eq!(run.stdout, "", "{}", run.render());
    assert_eq!(run.stderr, "", "{}", run.render());
    assert!(env.store().join("prefer-pytest.md").is_file());

    // An update: no diff either.
    let run = env.run(&remember(&["--yes"], "New tests use pytest functions."));
    run.assert_success();
    assert_eq!(run.stdout, "", "{}", run.render());
    assert_eq!(run.stderr, "", "{}", run.render());
    let text = env.read_store_file("prefer-pytest.md");
    assert!(text.contains("revision: 2"), "{text}");

    // A refusal is still said, and its secret still hidden.
    let token = format!("ghp_{}", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
    let args = [
        "remember",
        "-q",
        "--yes",
        "--name",
        "api",
        "--type",
        "reference",
        "--description",
        "The API",
        &token,
    ];
    let run = env.run(&args);
    run.assert_code(2);
    assert!(run.stderr.contains("error:"), "{}", run.render());
    assert!(!run.stderr.contains(&token), "{}", run.render());
    assert_eq!(run.stdout, "", "{}", run.render());

    // A dry run's plan is its answer, -q or not.
    let run = env.run(&remember(&["--dry-run"], "New tests use plain pytest."));
    run.assert_success();
    assert!(
        run.stdout.contains("UPDATE prefer-pytest"),
        "{}",
        run.render()
    );
}
