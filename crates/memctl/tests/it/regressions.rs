//! One test per bug these tests found, named after the bug.

use std::fs;

use pretty_assertions::assert_eq;

use crate::env::TestEnv;

/// `remember --dry-run` created the workspace store at the git root, and the
/// global store, before showing a plan that "writes nothing".
#[test]
fn dry_run_created_the_store_it_would_write_to() {
    let env = TestEnv::bare();
    fs::create_dir(env.work().join(".git")).expect("a fake git root");
    let run = env
        .remembering_unnamed()
        .arg("--dry-run")
        .name("ci-cache")
        .kind("project")
        .description("CI caches cargo")
        .body("Keyed on Cargo.lock.")
        .asking()
        .run();
    run.assert_success();
    assert!(
        !env.store().exists(),
        "a dry run created {}",
        env.store().display()
    );
    assert_run_snapshot!(env, run);

    let global = env
        .remembering_unnamed()
        .arg("--dry-run")
        .global()
        .arg("--json")
        .name("editor")
        .kind("user")
        .description("Uses helix")
        .body("The user edits with helix.")
        .asking()
        .run();
    global.assert_success();
    assert!(
        !env.global_store().exists(),
        "a dry run created {}",
        env.global_store().display()
    );
    let rows: serde_json::Value = serde_json::from_str(&global.stdout).expect("--json");
    assert_eq!(
        rows[0]["path"],
        env.global_store().join("editor.md").display().to_string(),
        "the plan shows where the record would go"
    );
}

/// A refused or unconfirmed `remember` to a global store that did not exist
/// yet created it, empty.
#[test]
fn a_refused_or_unconfirmed_write_created_the_global_store() {
    let env = TestEnv::new();
    let refused = env
        .remembering_unnamed()
        .global()
        .name("plan")
        .kind("user")
        .description("The plan")
        .body("For now use port 8080.")
        .run();
    refused.assert_code(2);
    let unconfirmed = env
        .remembering_unnamed()
        .global()
        .name("editor")
        .kind("user")
        .description("Uses helix")
        .body("Helix.")
        .asking()
        .run();
    unconfirmed.assert_code(3);
    assert!(
        !env.global_store().exists(),
        "{} was created",
        env.global_store().display()
    );

    let saved = env
        .remembering_unnamed()
        .global()
        .name("editor")
        .kind("user")
        .description("Uses helix")
        .body("Helix.")
        .run();
    saved.assert_success();
    assert!(env.global_store().join("editor.md").is_file());
    assert!(env.global_store().join("MEMORY.md").is_file());
}

/// `forget --yes` in a git project without a store created `.memory/` at the
/// git root only to say the record did not exist; `forget --global` did the
/// same with the global store.
#[test]
fn forget_created_a_store_to_forget_nothing_in() {
    let env = TestEnv::bare();
    fs::create_dir(env.work().join(".git")).expect("a fake git root");
    let run = env.run(&["forget", "--yes", "anything"]);
    run.assert_code(2);
    assert_run_snapshot!(env, run);
    assert!(
        !env.store().exists(),
        "forget created {}",
        env.store().display()
    );
    env.run(&["forget", "--global", "--yes", "anything"])
        .assert_code(2);
    assert!(
        !env.global_store().exists(),
        "forget created {}",
        env.global_store().display()
    );
}

/// A `--from-json` batch naming one record twice showed two ADD plans for one
/// file, wrote the first and then blamed the second on "a change while this
/// write was being confirmed" (exit 4).
#[test]
fn a_batch_naming_one_record_twice_blamed_a_concurrent_change() {
    let env = TestEnv::new();
    let file = env.root().join("batch.json");
    fs::write(
        &file,
        r#"[{"name": "dup", "type": "project", "description": "First", "body": "One."},
            {"name": "ci-cache", "type": "project", "description": "CI caches cargo", "body": "Keyed."},
            {"name": "DUP", "type": "project", "description": "Second", "body": "Two."}]"#,
    )
    .expect("the batch");
    let before = env.store_bytes();
    let run = env
        .remembering_unnamed()
        .candidates_from(&file.display().to_string())
        .run();
    run.assert_code(2);
    assert_run_snapshot!(env, run);
    assert_eq!(env.store_bytes(), before, "nothing is written");

    // The same name in two stores is two records.
    fs::write(
        &file,
        r#"[{"name": "dup", "type": "project", "description": "First", "body": "One."},
            {"name": "dup", "type": "user", "description": "Second", "body": "Two.", "scope": "global"}]"#,
    )
    .expect("the batch");
    env.remembering_unnamed()
        .candidates_from(&file.display().to_string())
        .ok();
    assert!(env.store().join("dup.md").is_file() && env.global_store().join("dup.md").is_file());
}

/// `"tags": null` in a `--from-json` candidate, which extraction steps write
/// for "no tags" as they do for every other optional key, failed the whole
/// batch as malformed JSON.
#[test]
fn null_tags_in_a_json_candidate_failed_the_batch() {
    let env = TestEnv::new();
    let run = env.remembering_unnamed().candidates_from("-").stdin(r#"[{"name": "ci-cache", "type": "project", "description": "CI caches cargo", "body": "Keyed.",
             "tags": null, "source": null, "expires": null, "scope": null}]"#).run();
    run.assert_success();
    let text = env.read_store_file("ci-cache.md");
    assert!(!text.contains("tags"), "{text}");
}

/// The warning given when a write takes MEMORY.md past 90% of its budget
/// said "will use 90%" (181 of 200 lines rounded half to even).
#[test]
fn the_budget_warning_above_90_percent_said_90_percent() {
    let env = TestEnv::new();
    for i in 0..179 {
        env.write_record(
            &format!("r{i:03}"),
            "project",
            &format!("Fact {i}"),
            "Body.",
        );
    }
    let run = env
        .remembering("last")
        .kind("project")
        .description("One more")
        .body("Body.")
        .run();
    run.assert_success();
    assert!(
        run.stderr
            .contains("warning: MEMORY.md will use 91% of its budget (181 of 200 lines"),
        "{}",
        run.render()
    );
}

/// `edit` wrote `updated` with nanoseconds (`…:05.140258179Z`) where every
/// other write, and SPEC §2's example, uses whole seconds.
#[test]
fn edit_wrote_updated_with_nanoseconds() {
    let mut env = TestEnv::new();
    env.remember("a", "project", "Fact a", "A.");
    let editor = env.script("editor", r#"sed -i 's/^A\.$/A, edited./' "$1""#);
    env.set_var("EDITOR", editor.display().to_string());
    env.run(&["edit", "a"]).assert_success();
    let text = env.read_store_file("a.md");
    let updated = text
        .lines()
        .find(|l| l.starts_with("updated: "))
        .expect("an updated line");
    let whole_seconds =
        regex::Regex::new(r"^updated: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$").expect("a pattern");
    assert!(whole_seconds.is_match(updated), "{updated}");
}

/// `status` said "1 files skipped".
#[test]
fn status_said_1_files_skipped() {
    let env = TestEnv::new();
    for i in 0..200 {
        env.write_record(
            &format!("r{i:03}"),
            "project",
            &format!("Fact {i}"),
            "Body.",
        );
    }
    fs::write(
        env.store().join("latin1.md"),
        b"---\ndescription: caf\xe9\n---\n",
    )
    .expect("file");
    // MEMORY.md regenerated, so that status measures it full on disk.
    env.run(&["init"]).assert_success();
    let run = env.run(&["status"]);
    run.assert_success();
    assert!(
        run.stdout
            .contains("  records: 200 (1 file skipped; see `memctl check`)\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("; 2 records left out\n"),
        "{}",
        run.stdout
    );
}

/// The guards named the wrong place: temporary text on the body's first line
/// was "on line 2" (the description counted as line 1), and a secret in the
/// description or a tag was "on line 1" of a body that held none.
#[test]
fn guards_named_the_wrong_line() {
    let env = TestEnv::new();
    let temporary = env
        .remembering("dev-port")
        .kind("project")
        .description("Dev port")
        .body("For now use port 8080.\nSecond line.")
        .run();
    temporary.assert_code(2);
    assert!(
        temporary.stderr.contains("(\"for now\" on line 1)"),
        "{}",
        temporary.render()
    );

    let key = crate::remember::fake_aws_key();
    let in_description = env
        .remembering("aws")
        .kind("reference")
        .description(&format!("Key {key}"))
        .body("Where the deploy key lives.")
        .run();
    in_description.assert_code(2);
    assert!(
        in_description
            .stderr
            .contains("(rule aws-access-key-id in the description)"),
        "{}",
        in_description.render()
    );
    let in_tag = env
        .remembering("aws")
        .kind("reference")
        .description("The deploy key")
        .tag(&key)
        .body("Where the deploy key lives.")
        .run();
    in_tag.assert_code(2);
    assert!(
        in_tag.stderr.contains("(rule aws-access-key-id in a tag)"),
        "{}",
        in_tag.render()
    );
    assert!(!in_tag.all_output().contains(&key));
}

/// An empty `MEMCTL_STORE` (the usual way to unset it for one command) was an
/// error about `--store`, an option nobody had typed; a missing folder named
/// by the variable was blamed on `--store` too.
#[test]
fn an_empty_memctl_store_was_an_error_about_the_store_option() {
    let env = TestEnv::new();
    env.remember("a", "project", "Fact a", "A.");
    let mut cmd = env.command();
    cmd.env("MEMCTL_STORE", "");
    let run = env.run_with(cmd, &["list", "--json"]);
    run.assert_success();
    assert!(run.stdout.contains("\"a\""), "{}", run.render());

    let missing = env.root().join("no-such-store");
    let mut cmd = env.command();
    cmd.env("MEMCTL_STORE", &missing);
    let run = env.run_with(cmd, &["list"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains(&format!(
            "MEMCTL_STORE={}: no such folder",
            missing.display()
        )),
        "{}",
        run.render()
    );
    let mut cmd = env.command();
    cmd.env("MEMCTL_STORE", &missing);
    env.run_with(cmd, &["init"]).assert_success();
    assert!(
        missing.join("MEMORY.md").is_file(),
        "init creates the store MEMCTL_STORE names"
    );
}

/// `forget --reason` wrote whatever it was given into the tombstone, which
/// teams commit: a secret pasted into the reason was kept in git.
#[test]
fn a_secret_in_the_reason_of_forget_was_kept_in_the_tombstone() {
    let env = TestEnv::new();
    env.remember("a", "project", "Fact a", "A.");
    let before = env.store_bytes();
    let token = crate::remember::fake_github_token();
    let run = env.run(&[
        "forget",
        "--yes",
        "--reason",
        &format!("leaked {token}"),
        "a",
    ]);
    run.assert_code(2);
    assert!(run.stderr.contains("rule github-token"), "{}", run.render());
    assert!(!run.all_output().contains(&token), "{}", run.render());
    assert_eq!(env.store_bytes(), before, "nothing is forgotten");
}

/// A `--json` NOOP for content stored under another id gave as its `path`
/// the file of the proposed id, which does not exist, instead of the file
/// that holds the content.
#[test]
fn a_json_noop_pointed_at_a_file_that_does_not_exist() {
    let env = TestEnv::new();
    env.write_record(
        "team/prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    let run = env.remembering_unnamed().arg("--json").candidates_from("-").stdin(r#"[{"name": "pytest-again", "type": "feedback", "description": "Tests use pytest", "body": "New tests use pytest."}]"#).run();
    run.assert_success();
    let rows: serde_json::Value = serde_json::from_str(&run.stdout).expect("--json");
    assert_eq!(rows[0]["status"], "noop");
    assert_eq!(rows[0]["existing"], "team/prefer-pytest");
    assert_eq!(
        rows[0]["path"],
        env.store()
            .join("team/prefer-pytest.md")
            .display()
            .to_string()
    );
}

/// A `--from-json` batch that pushed MEMORY.md past 90% of its budget gave
/// no warning: each candidate was measured against the store alone.
#[test]
fn a_batch_crossing_the_budget_was_not_warned_about() {
    let env = TestEnv::new();
    for i in 0..170 {
        env.write_record(&format!("r{i:03}"), "project", "d", "Body.");
    }
    let batch: Vec<serde_json::Value> = (0..20)
        .map(|i| {
            serde_json::json!({"name": format!("b{i:02}"), "type": "project",
                "description": format!("batch record {i}"), "body": format!("Batch body {i}.")})
        })
        .collect();
    let file = env.work().join("batch.json");
    fs::write(&file, serde_json::to_string(&batch).expect("json")).expect("write batch");
    let run = env
        .remembering_unnamed()
        .candidates_from(file.to_str().expect("utf-8 path"))
        .run();
    run.assert_success();
    assert!(run.stderr.contains("of its budget"), "{}", run.render());
}
