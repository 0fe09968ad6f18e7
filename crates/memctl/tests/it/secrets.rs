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
        let run = env.run(&[
            "remember",
            "--name",
            "db",
            "--type",
            "project",
            "-d",
            "The database",
            "--yes",
            &body,
        ]);
        run.assert_code(2);
        assert!(run.stderr.contains(rule), "{}", run.render());
        assert!(!run.all_output().contains(secret), "{}", run.render());
        assert_eq!(env.store_bytes(), before, "{}", run.render());
    }
}
