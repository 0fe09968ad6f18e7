//! Argument parsing of issue 6: a BODY that starts with `-`, and clap's
//! errors, which must never echo a secret they were given (SPEC §6).

use crate::env::TestEnv;

/// A PEM key built at run time, so that this file holds none.
fn pem_key() -> String {
    let kind = ["RSA PRIVATE", "KEY"].join(" ");
    format!(
        "-----BEGIN {kind}-----\nMIIEowIBAAKCAQEAx4Ukq9cVdN3r8Pm2Lt5wQbZj7HsF0aYeKd6TgWc1oRnUiB\nvB7p2Lq9XmN4sK8dJ3fH6gT1yW0eR5uA2zC7iO9lP4kM8nQ3bV6xS1tD5hG2\n-----END {kind}-----"
    )
}

/// A GitHub-token-shaped value built at run time.
fn github_token() -> String {
    format!("ghp_{}", "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6")
}

fn remember_args(body: &str) -> Vec<&str> {
    vec![
        "remember",
        "--name",
        "list-item",
        "--type",
        "user",
        "--description",
        "A body that starts with a dash",
        "--yes",
        body,
    ]
}

#[test]
fn list_item_body_starting_with_dash_is_accepted() {
    let env = TestEnv::new();
    env.run(&remember_args("- use pytest")).assert_success();
    assert!(
        env.read_store_file("list-item.md")
            .ends_with("- use pytest\n"),
        "{}",
        env.read_store_file("list-item.md")
    );
}

#[test]
fn pem_body_starting_with_dashes_is_accepted() {
    let env = TestEnv::new();
    let key = pem_key();
    let run = env.run(&remember_args(&key));
    // Accepted as the body, then refused by the secret guard: exit 2, and
    // neither clap nor the refusal prints the key.
    run.assert_code(2);
    assert!(run.stderr.contains("pem-private-key"), "{}", run.render());
    assert!(
        !run.stderr.contains("unexpected argument"),
        "{}",
        run.render()
    );
    for line in key.lines() {
        assert!(!run.all_output().contains(line), "{}", run.render());
    }
    assert!(!env.store().join("list-item.md").exists());
}

#[test]
fn double_dash_still_separates_the_body() {
    let env = TestEnv::new();
    let mut args = remember_args("--");
    args.push("--not-an-option");
    env.run(&args).assert_success();
    assert!(
        env.read_store_file("list-item.md")
            .ends_with("--not-an-option\n")
    );
}

#[test]
fn dash_body_still_reads_standard_input() {
    let env = TestEnv::new();
    env.run_stdin(&remember_args("-"), "- from stdin\n")
        .assert_success();
    assert!(env.read_store_file("list-item.md").contains("- from stdin"));
}

#[test]
fn mistyped_option_is_not_saved_as_the_body() {
    let env = TestEnv::new();
    let run = env.run(&remember_args("--dryrun"));
    run.assert_code(2);
    assert!(
        run.stderr.contains("unknown option '--dryrun'"),
        "{}",
        run.render()
    );
    assert!(!env.store().join("list-item.md").exists());
}

#[test]
fn clap_error_never_echoes_a_secret() {
    let env = TestEnv::new();
    let token = github_token();
    let key = pem_key();
    let type_equals = format!("--type={token}");
    let cases: Vec<Vec<&str>> = vec![
        // invalid value '…' for '--type'
        vec!["remember", "--name", "k", "--type", &token, "--yes", "body"],
        vec!["remember", "--name", "k", &type_equals, "--yes", "body"],
        // unexpected argument '…'
        vec![
            "remember", "--name", "k", "--type", "user", "--yes", "body", &token,
        ],
        vec!["list", &key],
        vec!["show", "k", "password=hunter2hunter2"],
    ];
    for args in cases {
        let run = env.run(&args);
        run.assert_code(2);
        let output = run.all_output();
        assert!(output.contains("looks like a secret"), "{}", run.render());
        for secret in [token.as_str(), "hunter2hunter2"]
            .into_iter()
            .chain(key.lines())
        {
            assert!(
                !output.contains(secret),
                "{secret} echoed:\n{}",
                run.render()
            );
        }
    }
}

#[test]
fn clap_error_without_a_secret_is_unchanged() {
    let env = TestEnv::new();
    let run = env.run(&["remember", "--type", "bogus", "body"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains("invalid value 'bogus' for '--type"),
        "{}",
        run.render()
    );
}

/// Issue 6: "No output of memctl may ever contain a secret it was given":
/// messages about a bad name, a bad date, a missing record or an empty
/// search echoed the argument whole.
#[test]
fn error_messages_never_echo_a_secret() {
    let env = TestEnv::new();
    env.run(&["reindex"]).assert_success();
    let secret = "hunter2hunter2";
    let password = format!("password={secret}");
    let bad_name = format!("x/{password}");
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (
            vec![
                "remember", "--name", &bad_name, "--type", "user", "-d", "d", "--yes", "body",
            ],
            2,
        ),
        (
            vec![
                "remember",
                "--name",
                "k",
                "--type",
                "user",
                "-d",
                "d",
                "--expires",
                &password,
                "--yes",
                "body",
            ],
            2,
        ),
        (vec!["show", &password], 2),
        (vec!["forget", &password, "--yes"], 2),
        (vec!["search", &password], 1),
    ];
    for (args, code) in cases {
        let run = env.run(&args);
        run.assert_code(code);
        assert!(
            !run.all_output().contains(secret),
            "echoed:\n{}",
            run.render()
        );
    }
}

/// Issue 6: `--key=AKIA…` read as a mistyped option printed the key in the
/// error and again in the hint.
#[test]
fn unknown_option_with_a_secret_is_not_echoed() {
    let env = TestEnv::new();
    for (option, secret) in [
        ("--key=AKIAQWERTYUIOPASDFGH", "AKIAQWERTYUIOPASDFGH"),
        ("--password=hunter2hunter2", "hunter2hunter2"),
    ] {
        let run = env.run(&[
            "remember", "--name", "x", "--type", "user", "-d", "d", "--yes", option,
        ]);
        run.assert_code(2);
        assert!(run.stderr.contains("unknown option"), "{}", run.render());
        assert!(
            run.stderr.contains("looks like a secret"),
            "{}",
            run.render()
        );
        assert!(!run.all_output().contains(secret), "{}", run.render());
    }
}
