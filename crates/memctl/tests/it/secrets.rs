//! Issue 6: secrets that `remember` saved with exit 0. Each is now refused
//! (exit 2), nothing is written, and the secret is never printed.

use crate::env::TestEnv;

#[test]
fn leaked_passwords_and_aws_secret_key_are_refused() {
    let aws_secret = format!("wJalrXUtnFEMI/K7MDENG/bPxRfiCY{}", "EXAMPLEKEY");
    let cases = [
        (
            "password-assignment",
            "DB_PASSWORD=hunter2hunter2".to_string(),
            "hunter2hunter2",
        ),
        (
            "password-in-prose",
            "the database password is hunter2hunter2".to_string(),
            "hunter2hunter2",
        ),
        (
            "aws-secret-access-key",
            format!("aws_secret_access_key = {aws_secret}"),
            aws_secret.as_str(),
        ),
    ];
    for (rule, body, secret) in cases {
        let env = TestEnv::new();
        let before = env.store_bytes();
        let run = env
            .remembering("db")
            .kind("project")
            .description("The database")
            .body(&body)
            .run();
        run.assert_code(2);
        assert!(run.stderr.contains(rule), "{}", run.render());
        assert!(!run.all_output().contains(secret), "{}", run.render());
        assert_eq!(env.store_bytes(), before, "{}", run.render());
    }
}

/// Issue 6: a secret given as the name was printed on the REFUSED line, in
/// the refusal, in the `name "…" is stored as "…"` warning, and with
/// `--json` in `name`, `id`, `path`, `warnings` and `reason`.
#[test]
fn secret_in_the_name_is_never_echoed() {
    let token = format!("ghp_{}abcd", "A1b2C3d4".repeat(4));
    let lowered = token.to_lowercase();
    let json = serde_json::json!([{
        "name": token, "type": "user", "description": "d", "body": "body"
    }])
    .to_string();
    let cli = [
        "remember",
        "--name",
        &token,
        "--type",
        "user",
        "--description",
        "d",
        "--yes",
        "body",
    ];
    let env = TestEnv::new();
    let before = env.store_bytes();
    let mut runs = vec![env.run(&cli), env.run(&[&cli[..], &["--json"]].concat())];
    for extra in [&[][..], &["--json"][..]] {
        let args = [&["remember", "--from-json", "-", "--yes"][..], extra].concat();
        runs.push(env.run_stdin(&args, &json));
    }
    for run in runs {
        run.assert_code(2);
        let output = run.all_output();
        assert!(
            output.contains("rule github-token in the name"),
            "{}",
            run.render()
        );
        assert!(!output.contains(&token), "{}", run.render());
        assert!(!output.contains(&lowered), "{}", run.render());
    }
    assert_eq!(env.store_bytes(), before);
}

/// Issue 6: `--from-json` field errors echoed the values they rejected:
/// `invalid expires "AKIA…"`, `unknown field "AKIA…"`, a bad scope or source.
#[test]
fn from_json_field_errors_never_echo_a_secret() {
    let key = "AKIAQWERTYUIOPASDFGH";
    let base = || serde_json::json!({"name": "k", "type": "user", "description": "d", "body": "b"});
    let mut candidates = Vec::new();
    for field in ["expires", "scope", "source", "type"] {
        let mut candidate = base();
        candidate["name"] = serde_json::json!(field);
        candidate[field] = serde_json::json!(key);
        candidates.push(candidate);
    }
    let mut unknown = base();
    unknown[key] = serde_json::json!(1);
    candidates.push(unknown);
    let env = TestEnv::new();
    for extra in [&[][..], &["--json"][..]] {
        let args = [&["remember", "--from-json", "-", "--yes"][..], extra].concat();
        let run = env.run_stdin(
            &args,
            &serde_json::Value::from(candidates.clone()).to_string(),
        );
        run.assert_code(2);
        let output = run.all_output();
        assert_eq!(
            output.matches("(rule aws-access-key-id)").count(),
            5,
            "{}",
            run.render()
        );
        assert!(!output.contains(key), "{}", run.render());
    }
}

/// Issue 6: a URL password with an empty user, `curl -u user:password` and
/// "password X" without "is" were saved with exit 0.
#[test]
fn url_password_without_user_curl_user_option_and_verbless_prose_are_refused() {
    let cases = [
        (
            "password-in-url",
            "redis://:zQ9xK2mLp6@cache:6379",
            "zQ9xK2mLp6",
        ),
        (
            "password-in-user-option",
            "curl -u admin:Tr0ub4dor&9 https://api",
            "Tr0ub4dor&9",
        ),
        (
            "password-in-prose",
            "login with user admin and password Tr0ub4dor&7",
            "Tr0ub4dor&7",
        ),
    ];
    for (rule, body, secret) in cases {
        let env = TestEnv::new();
        let before = env.store_bytes();
        let run = env
            .remembering("api")
            .kind("project")
            .description("The API")
            .body(body)
            .run();
        run.assert_code(2);
        assert!(run.stderr.contains(rule), "{}", run.render());
        assert!(!run.all_output().contains(secret), "{}", run.render());
        assert_eq!(env.store_bytes(), before, "{}", run.render());
    }
}
