//! What a new user met in the first ten minutes (issue 28), through the
//! binary: a small store's first dream, `edit` from a script, "did you
//! mean", exit codes with no store, the JSON of `status` and `check`.

use crate::env::TestEnv;

/// A record as memctl writes one, `expires` when given.
fn record(env: &TestEnv, id: &str, body: &str, expires: Option<&str>) {
    let expires = expires.map_or_else(String::new, |e| format!("expires: {e}\n"));
    env.write_store_file(
        &format!("{id}.md"),
        &format!(
            "---\nname: {id}\ndescription: About {id}\ntype: project\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\nrevision: 1\nsource: user\n{expires}---\n{body}"
        ),
    );
}

/// Six records, one expired and one an exact duplicate of another: what a
/// new user's store holds after a week.
fn six_records() -> TestEnv {
    let env = TestEnv::new();
    record(&env, "pytest", "Tests use pytest.\n", None);
    record(&env, "pytest-again", "Tests use pytest.\n", None);
    record(
        &env,
        "freeze",
        "No deploys this week.\n",
        Some("2026-01-02"),
    );
    record(&env, "node", "Node 22 is required.\n", None);
    record(&env, "tabs", "The user prefers tabs.\n", None);
    record(&env, "tracker", "Bugs are tracked in Linear.\n", None);
    env
}

#[test]
fn small_store_dream_removes_an_expired_record_and_a_duplicate_together() {
    let env = six_records();
    let dry = env.run(&["dream", "--dry-run", "--json"]);
    dry.assert_success();
    let plan = dry.json();
    assert_eq!(
        plan["operations"].as_array().map(Vec::len),
        Some(2),
        "{plan:#}"
    );
    let applied = env.run(&["dream", "--yes"]);
    applied.assert_success();
    let left: Vec<_> = env
        .run(&["list", "--json"])
        .json()
        .as_array()
        .expect("a list")
        .iter()
        .map(|r| r["id"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(left.len(), 4, "{left:?}\n{}", applied.render());
    assert!(!left.contains(&"freeze".to_string()), "{left:?}");
}

#[test]
fn dry_run_of_a_plan_that_would_be_refused_exits_1_and_says_so() {
    let env = six_records();
    let before = env.store_bytes();
    let run = env.run(&["dream", "--dry-run", "--max-delete-pct", "0"]);
    run.assert_code(1);
    assert!(
        run.stderr.contains("would be rejected")
            && run
                .stderr
                .contains("removes 2 of 6 records; --max-delete-pct 0 allows 0")
            && run.stderr.contains("this was a dry run"),
        "{}",
        run.render()
    );
    // The plan is still shown.
    assert!(run.stdout.contains("freeze"), "{}", run.render());
    assert_eq!(env.store_bytes(), before);
    // Asked to apply, the same refusal is bad input, as SPEC §7 says.
    let applied = env.run(&["dream", "--yes", "--max-delete-pct", "0"]);
    applied.assert_code(2);
    assert!(
        applied.stderr.contains("was rejected"),
        "{}",
        applied.render()
    );
    assert_eq!(env.store_bytes(), before);
}

/// A merge kept the newer record's `created` (the name it is kept under)
/// and lost the date the fact was first said.
#[test]
fn a_merge_keeps_the_older_records_created() {
    let env = TestEnv::new();
    for (id, created) in [
        ("pytest", "2025-03-01T09:00:00Z"),
        ("pytest-again", "2026-02-01T09:00:00Z"),
    ] {
        env.write_store_file(
            &format!("{id}.md"),
            &format!(
                "---\nname: {id}\ndescription: Tests use pytest\ntype: project\ncreated: {created}\nupdated: {created}\nrevision: 1\nsource: user\n---\nTests use pytest.\n"
            ),
        );
    }
    env.run(&["dream", "--yes"]).assert_success();
    let merged = env.run(&["show", "pytest-again", "--json"]);
    merged.assert_success();
    let record = merged.json();
    assert_eq!(
        record["merged_from"],
        serde_json::json!(["pytest", "pytest-again"]),
        "{record:#}"
    );
    assert_eq!(record["created"], "2025-03-01T09:00:00Z", "{record:#}");
    assert_ne!(record["updated"], "2026-02-01T09:00:00Z", "{record:#}");
}

/// `memctl edit ID` in a script with no `$VISUAL`/`$EDITOR` started `vi`:
/// 10 KB of terminal escapes on stdout, then exit 3.
#[test]
fn edit_without_an_editor_or_a_terminal_is_refused_before_vi_starts() {
    let env = six_records();
    let before = env.store_bytes();
    let run = env.run(&["edit", "node"]);
    run.assert_code(2);
    assert_eq!(run.stdout, "", "nothing on stdout: {}", run.render());
    assert!(
        run.stderr.contains("no editor") && run.stderr.contains("EDITOR"),
        "{}",
        run.render()
    );
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn edit_says_the_revision_it_saved() {
    let mut env = six_records();
    let editor = env.script("editor", r#"sed -i 's/Node 22/Node 24/' "$1""#);
    env.set_var("EDITOR", editor.display().to_string());
    let run = env.run(&["edit", "node"]);
    run.assert_success();
    assert!(
        run.stderr.contains("Saved node (revision 2)."),
        "{}",
        run.render()
    );
}

/// `show nope` and `forget nope` said only "no record".
#[test]
fn show_and_forget_of_a_mistyped_id_say_which_was_meant() {
    let env = six_records();
    let show = env.run(&["show", "trcker"]);
    show.assert_code(2);
    assert!(
        show.stderr.contains("did you mean tracker?"),
        "{}",
        show.render()
    );
    let forget = env.run(&["forget", "Pytset", "--yes"]);
    forget.assert_code(2);
    assert!(
        forget.stderr.contains("did you mean pytest?"),
        "{}",
        forget.render()
    );
    let far = env.run(&["show", "kubernetes"]);
    far.assert_code(2);
    assert!(!far.stderr.contains("did you mean"), "{}", far.render());
}

/// The guide's examples used "…" as a description, and remember took it.
#[test]
fn remember_refuses_a_description_that_is_a_placeholder() {
    let env = TestEnv::new();
    for placeholder in ["…", "...", "TODO", "-"] {
        let run = env.run(&[
            "remember",
            "--name",
            "x",
            "--type",
            "project",
            "--description",
            placeholder,
            "--yes",
            "Deploys go through make release.",
        ]);
        run.assert_code(2);
        assert!(run.stderr.contains("says nothing"), "{}", run.render());
    }
    env.run(&[
        "remember",
        "--name",
        "x",
        "--type",
        "project",
        "--description",
        "部署",
        "--yes",
        "Deploys go through make release.",
    ])
    .assert_success();
}
