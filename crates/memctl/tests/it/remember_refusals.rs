//! `memctl remember` refusing: secrets, temporary text, tombstones,
//! revisions and the trust order (SPEC §6), each with its exit code and
//! nothing written.

use pretty_assertions::assert_eq;

use crate::env::TestEnv;
use crate::remember::{BODY, DESCRIPTION, fake_aws_key, fake_github_token, remember_pytest};

#[test]
fn a_secret_is_refused_named_by_rule_and_line_and_never_printed() {
    let cases = [
        (
            "github-token",
            format!("Use this token:\n{}\nfor the API.", fake_github_token()),
            2,
        ),
        (
            "aws-access-key-id",
            format!("The deploy key is {}", fake_aws_key()),
            1,
        ),
        (
            "password-assignment",
            "Connect with\nthe db\npassword=Xk9mQ2vL7pRw3Z".to_string(),
            3,
        ),
    ];
    for (rule, body, line) in cases {
        let env = TestEnv::new();
        let before = env.store_bytes();
        let run = env
            .remembering("api-access")
            .kind("reference")
            .description("How to reach the API")
            .body(&body)
            .run();
        run.assert_code(2);
        let secret_line = body.lines().nth(line - 1).expect("the secret's line");
        let secret = secret_line.rsplit([' ', '=']).next().expect("the secret");
        assert!(
            !run.all_output().contains(secret),
            "the secret was printed:\n{}",
            run.render()
        );
        assert!(
            run.stderr.contains(&format!("rule {rule} on line {line}")),
            "rule and line must be named:\n{}",
            run.render()
        );
        assert_eq!(env.store_bytes(), before, "nothing is written");
        if rule == "github-token" {
            assert_run_snapshot!(env, run);
        }
    }
}

#[test]
fn a_secret_in_the_description_is_refused_too() {
    let env = TestEnv::new();
    let key = fake_aws_key();
    let run = env
        .remembering("aws")
        .kind("reference")
        .description(&format!("AWS key {key}"))
        .body("Where the deploy key lives.")
        .run();
    run.assert_code(2);
    assert!(!run.all_output().contains(&key), "{}", run.render());
    assert!(run.stderr.contains("aws-access-key-id"), "{}", run.render());
    assert!(!env.store().join("aws.md").exists());
}

#[test]
fn temporary_text_is_refused_with_yes() {
    for (body, marker) in [
        ("For now use port 8080 for the dev server.", "for now"),
        ("这个端口暂时用 8080。", "暂时"),
        ("今回だけポート 8080 を使う。", "今回だけ"),
    ] {
        let env = TestEnv::new();
        let before = env.store_bytes();
        let run = env
            .remembering("dev-port")
            .kind("project")
            .description("Dev server port")
            .body(body)
            .run();
        run.assert_code(2);
        assert!(
            run.stderr.to_lowercase().contains(marker),
            "{}",
            run.render()
        );
        assert_eq!(env.store_bytes(), before);
        if marker == "for now" {
            assert_run_snapshot!(env, run);
        }
    }
}

#[test]
fn words_that_only_contain_a_temporary_marker_are_fine() {
    let env = TestEnv::new();
    env.remember(
        "taskbar",
        "project",
        "The taskbar widget lives in ui/taskbar.rs",
        "To fix the taskbar, change ui/taskbar.rs; known issues are tracked in TASKS.md.",
    );
    assert!(env.store().join("taskbar.md").is_file());
}

#[test]
fn temporary_text_only_warns_in_a_dry_run() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    let run = env
        .remembering_unnamed()
        .arg("--dry-run")
        .name("dev-port")
        .kind("project")
        .description("Dev server port")
        .body("For now use port 8080.")
        .asking()
        .run();
    run.assert_success();
    assert!(run.stderr.contains("warning:"), "{}", run.render());
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn a_forgotten_id_is_refused_until_forced() {
    let env = TestEnv::new();
    remember_pytest(&env);
    env.run(&[
        "forget",
        "--yes",
        "--reason",
        "the project moved to nose2",
        "prefer-pytest",
    ])
    .assert_success();
    let before = env.store_bytes();
    let run = env
        .remembering("prefer-pytest")
        .kind("feedback")
        .description("Tests use pytest again")
        .body("Pytest is back.")
        .run();
    run.assert_code(4);
    assert_run_snapshot!(env, run);
    assert!(
        run.stderr.contains("the project moved to nose2"),
        "why: {}",
        run.render()
    );
    assert_eq!(env.store_bytes(), before);

    let forced = env
        .remembering_unnamed()
        .arg("--force")
        .name("prefer-pytest")
        .kind("feedback")
        .description("Tests use pytest again")
        .body("Pytest is back.")
        .run();
    forced.assert_success();
    assert!(
        env.read_store_file("prefer-pytest.md")
            .contains("Pytest is back.")
    );
    // The override lifts the tombstone: the next plain write is not refused.
    env.remembering("prefer-pytest")
        .description("Pytest, always")
        .ok();
}

#[test]
fn forgotten_content_under_a_new_id_is_refused() {
    let env = TestEnv::new();
    remember_pytest(&env);
    env.run(&["forget", "--yes", "prefer-pytest"])
        .assert_success();
    let before = env.store_bytes();
    let run = env
        .remembering("pytest-please")
        .kind("feedback")
        .description(DESCRIPTION)
        .body(BODY)
        .run();
    run.assert_code(4);
    assert!(
        run.stderr.contains("prefer-pytest was forgotten on "),
        "{}",
        run.render()
    );
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn a_revision_mismatch_writes_nothing() {
    let env = TestEnv::new();
    remember_pytest(&env);
    let before = env.store_bytes();
    let run = env
        .remembering_unnamed()
        .expect_revision("3")
        .name("prefer-pytest")
        .description("Changed")
        .run();
    run.assert_code(4);
    assert_run_snapshot!(env, run);
    assert_eq!(env.store_bytes(), before);

    let missing = env
        .remembering_unnamed()
        .expect_revision("1")
        .name("not-there")
        .kind("project")
        .description("New")
        .body("Body.")
        .run();
    missing.assert_code(4);
    assert!(
        missing.stderr.contains("does not exist"),
        "{}",
        missing.render()
    );
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn a_matching_expected_revision_updates() {
    let env = TestEnv::new();
    remember_pytest(&env);
    env.remembering_unnamed()
        .expect_revision("1")
        .name("prefer-pytest")
        .description("Two")
        .ok();
    env.remembering_unnamed()
        .expect_revision("2")
        .name("prefer-pytest")
        .description("Three")
        .ok();
    let text = env.read_store_file("prefer-pytest.md");
    assert!(
        text.contains("\nrevision: 3\n") && text.contains("description: Three\n"),
        "{text}"
    );
}

#[test]
fn a_lower_trust_source_cannot_overwrite_until_forced() {
    let env = TestEnv::new();
    remember_pytest(&env);
    let before = env.store_bytes();
    let args = [
        "remember",
        "--yes",
        "--source",
        "inferred",
        "--name",
        "prefer-pytest",
        "--description",
        "Tests use unittest",
    ];
    let run = env.run(&args);
    run.assert_code(4);
    assert_run_snapshot!(env, run);
    assert_eq!(env.store_bytes(), before);

    let forced = env.run(&[&args[..], &["--force"]].concat());
    forced.assert_success();
    let text = env.read_store_file("prefer-pytest.md");
    assert!(
        text.contains("source: inferred\n") && text.contains("description: Tests use unittest\n"),
        "{text}"
    );
}

#[test]
fn a_higher_trust_source_may_overwrite() {
    let env = TestEnv::new();
    env.remembering_unnamed()
        .source("inferred")
        .name("guess")
        .kind("project")
        .description("The API is REST")
        .body("A guess.")
        .ok();
    env.remembering_unnamed()
        .source("verified")
        .name("guess")
        .description("The API is gRPC")
        .ok();
    assert!(
        env.read_store_file("guess.md")
            .contains("source: verified\n")
    );
}
