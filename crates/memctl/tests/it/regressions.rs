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

/// An ADD over a file the store skipped (here: not UTF-8) replaced the
/// person's file without a diff, as if nothing were there.
#[test]
fn remember_overwrote_a_file_the_store_skipped() {
    let env = TestEnv::new();
    let path = env.store().join("notes.md");
    let latin1 = b"---\nname: notes\ndescription: precious\ntype: user\n---\ncaf\xe9 notes\n";
    fs::write(&path, latin1).expect("a Latin-1 file");
    let run = env
        .remembering("notes")
        .kind("user")
        .description("new")
        .body("overwrite")
        .run();
    run.assert_code(2);
    assert!(
        run.stderr.contains("will not overwrite"),
        "{}",
        run.render()
    );
    assert_eq!(fs::read(&path).expect("still there"), latin1);
}

/// A record body over 256 KiB was written, then skipped by every read, then
/// silently replaced by the next remember of the same name.
#[test]
fn remember_wrote_a_record_too_large_to_read_back() {
    let env = TestEnv::new();
    let body = "x".repeat(300 * 1024);
    let run = env
        .remembering("huge")
        .kind("project")
        .description("big")
        .body_from_stdin(&body)
        .run();
    run.assert_code(2);
    assert!(run.stderr.contains("at most 256 KiB"), "{}", run.render());
    assert!(!env.store().join("huge.md").exists());
}

/// A FIFO named `*.md` hung `list`, `check` and `remember` forever, the last
/// while holding the store's write lock.
#[cfg(unix)]
#[test]
fn a_pipe_named_like_a_record_hung_every_command() {
    let env = TestEnv::new();
    let status = std::process::Command::new("mkfifo")
        .arg(env.store().join("pipe.md"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let list = env.run(&["list"]);
    list.assert_success();
    assert!(
        list.stderr.contains("not a regular file"),
        "{}",
        list.render()
    );
    env.remember("after-pipe", "project", "Written beside a pipe", "Body.");
    env.run(&["check"]).assert_code(1);
}

/// `revision: 18446744073709551615` in a hand-made record made an update
/// panic on `revision + 1`.
#[test]
fn a_huge_revision_made_an_update_panic() {
    let env = TestEnv::new();
    env.write_store_file(
        "big.md",
        "---\nname: big\ndescription: old\ntype: user\nrevision: 18446744073709551615\n---\nBody.\n",
    );
    let run = env.remembering("big").description("new desc").run();
    // The revision cannot go up: the update is saved at the highest
    // revision there is, never wrapped to 0, and never a panic.
    run.assert_success();
    let text = env.read_store_file("big.md");
    assert!(
        text.contains("revision: 18446744073709551615") && text.contains("new desc"),
        "{text}"
    );
}

/// Every atomic write left the record (and MEMORY.md) readable by its owner
/// only: tempfile's 0600 survived the rename.
#[cfg(unix)]
#[test]
fn writes_made_records_private() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let path = env.write_record("hand", "user", "v1", "Body.");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o664)).expect("chmod");
    env.remembering("hand").description("v2").ok();
    let mode = fs::metadata(&path).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode, 0o664);
    let catalog = fs::metadata(env.store().join("MEMORY.md"))
        .expect("stat")
        .permissions()
        .mode();
    assert_ne!(
        catalog & 0o044,
        0,
        "MEMORY.md is readable by the team: {catalog:o}"
    );
}

/// With `Foo.md` and `foo.md` both present, `show foo` read foo.md but
/// `forget foo` removed Foo.md.
#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "needs a case-sensitive file system, which only Linux has by default"
)]
fn forget_removed_the_other_file_when_ids_differ_only_in_case() {
    let env = TestEnv::new();
    env.write_record("Foo", "user", "upper", "Upper.");
    env.write_record("foo", "user", "lower", "Lower.");
    assert!(
        !env.store().join("FOO.md").exists(),
        "this test needs a case-sensitive file system"
    );
    env.run(&["forget", "--yes", "foo"]).assert_success();
    assert!(
        env.store().join("Foo.md").exists(),
        "the other file survives"
    );
    assert!(!env.store().join("foo.md").exists());
}

/// A NUL byte in a short record's body passed the header-only read, so
/// `list` and MEMORY.md showed a file that `show` refused.
#[test]
fn a_nul_in_the_body_was_listed() {
    let env = TestEnv::new();
    env.write_store_file(
        "nul.md",
        "---\nname: nul\ndescription: has a nul\ntype: user\n---\nbody\0more\n",
    );
    let list = env.run(&["list"]);
    list.assert_success();
    assert!(!list.stdout.contains("nul"), "{}", list.render());
    assert!(list.stderr.contains("NUL byte"), "{}", list.render());
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

/// `memctl search --` failed with exit 2 ("required arguments were not
/// provided"): the lone `--` was taken for the end of options, leaving no
/// query. It is a query, one with nothing to search for (SPEC §5), and says so.
#[test]
fn search_for_a_lone_double_dash_was_bad_usage() {
    let env = TestEnv::new();
    env.write_record(
        "deploy-freeze",
        "project",
        "No deploys on Fridays",
        "Freeze.",
    );
    for args in [&["search", "--"][..], &["search", "--json", "--"]] {
        let lone = env.run(args);
        lone.assert_code(2);
        assert!(
            lone.stderr.contains("nothing to search for")
                && !lone.stderr.contains("required arguments"),
            "{}",
            lone.render()
        );
    }
    // A `--` before query words is still a separator, not a query word.
    let separated = env.run(&["search", "--json", "--", "-freeze", "deploys"]);
    separated.assert_code(1);
    let words = env.run(&["search", "--json", "--", "deploys"]);
    words.assert_success();
    let rows: serde_json::Value = serde_json::from_str(&words.stdout).expect("JSON");
    assert_eq!(rows[0]["id"], "deploy-freeze", "{}", words.render());
}

/// The index commands counted one record as "1 records" (and one difference
/// as "1 differences"): in the rebuild line, `reindex`, `reindex --check`
/// and `status`.
#[test]
fn one_record_was_counted_as_1_records() {
    let env = TestEnv::new();
    env.write_record("who", "user", "A Rust developer", "Ten years of Rust.");
    let search = env.run(&["search", "rust"]);
    search.assert_success();
    assert!(
        search
            .stderr
            .ends_with("there was no index file; 1 record indexed\n"),
        "{}",
        search.render()
    );
    let reindex = env.run(&["reindex"]);
    reindex.assert_success();
    assert!(
        reindex.stdout.ends_with(": indexed 1 record, skipped 0\n"),
        "{}",
        reindex.render()
    );
    let status = env.run(&["status"]);
    assert!(
        status.stdout.contains(".sqlite (1 record, "),
        "{}",
        status.render()
    );
    env.write_record("who", "user", "A Rust developer", "Eleven years of Rust.");
    let check = env.run(&["reindex", "--check"]);
    check.assert_code(1);
    assert_eq!(
        check.stderr,
        "workspace store: 1 record, 1 difference between index and files\n"
    );
}

/// `search --json` gave a hand-made record without a `revision:` key
/// `"revision": null`, where `show --json` and `list --json` say 1, the
/// revision `remember --expect-revision` compares with.
#[test]
fn search_json_gave_a_hand_made_record_revision_null() {
    let env = TestEnv::new();
    env.write_record("who", "user", "A Rust developer", "Ten years of Rust.");
    let search = env.run(&["search", "--json", "rust"]);
    search.assert_success();
    let show = env.run(&["show", "--json", "who"]);
    show.assert_success();
    assert_eq!(search.json()[0]["revision"], 1, "{}", search.render());
    assert_eq!(show.json()["revision"], 1, "{}", show.render());
    env.remembering("who")
        .expect_revision("1")
        .description("A Rust developer")
        .body("Eleven years of Rust.")
        .ok();
    let after = env.run(&["search", "--json", "rust"]);
    assert_eq!(after.json()[0]["revision"], 2, "{}", after.render());
}

/// Index errors printed their cause twice ("File exists (os error 17): File
/// exists (os error 17)"): mdindex's messages end with their cause, and the
/// error report printed the cause again.
#[test]
fn index_errors_printed_their_cause_twice() {
    let mut env = TestEnv::new();
    env.write_record("who", "user", "A Rust developer", "Ten years of Rust.");
    // A cache "folder" that is a file: no index can be made in it (a search
    // answers from a temporary index then; see `index.rs`).
    let cache = env.root().join("cache-file");
    fs::write(&cache, "").expect("a file");
    env.set_var("MEMCTL_CACHE_DIR", cache.display().to_string());
    for args in [&["reindex"][..], &["reindex", "--check"], &["watch"]] {
        let run = env.run(args);
        run.assert_code(5);
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{}", run.render());
        assert!(lines[0].starts_with("error: "), "{}", run.render());
        assert!(
            lines[0].contains(&cache.display().to_string()),
            "{}",
            run.render()
        );
        let cause = lines[0].rsplit(": ").next().expect("a cause");
        assert_eq!(
            lines[0].matches(cause).count(),
            1,
            "the cause {cause:?} is printed once\n{}",
            run.render()
        );
    }
}

/// `status` failed with exit 5, printing no store at all, when the cache
/// folder could not hold an index; it is the command that should say so.
#[test]
fn status_failed_when_the_cache_folder_was_unusable() {
    let mut env = TestEnv::new();
    env.write_record("who", "user", "A Rust developer", "Ten years of Rust.");
    let cache = env.root().join("cache-file");
    fs::write(&cache, "").expect("a file");
    env.set_var("MEMCTL_CACHE_DIR", cache.display().to_string());
    let run = env.run(&["status"]);
    run.assert_success();
    assert!(run.stdout.contains("  records: 1\n"), "{}", run.render());
    let index = run
        .stdout
        .lines()
        .find(|l| l.starts_with("  index: "))
        .unwrap_or_else(|| panic!("no index line\n{}", run.render()));
    assert!(
        index.contains(&cache.display().to_string()),
        "the index line names the cache: {index}"
    );
}

/// `search --scope global` (or `scope:global`, or `--global`) without a
/// global store said "no store to search here" from inside a workspace store.
#[test]
fn searching_a_missing_global_store_said_there_was_no_store_here() {
    let env = TestEnv::new();
    env.write_record("who", "user", "A Rust developer", "Ten years of Rust.");
    for args in [
        &["search", "--scope", "global", "rust"][..],
        &["search", "scope:global", "rust"],
        &["search", "--global", "rust"],
    ] {
        let run = env.run(args);
        run.assert_code(2);
        assert_eq!(
            run.stderr,
            format!(
                "error: no global store to search: {} does not exist\nhint: create it with `memctl init --global`\n",
                env.global_store().display()
            ),
            "{}",
            run.render()
        );
    }
    let bare = TestEnv::bare();
    let run = bare.run(&["search", "--scope", "workspace", "rust"]);
    run.assert_code(2);
    assert!(
        run.stderr
            .starts_with("error: no workspace store to search here\n"),
        "{}",
        run.render()
    );
}

/// `search -tuser freeze` ignored the type filter and `search -n1 e`
/// searched for "-n1": short options with their value attached were taken
/// for query words.
#[test]
fn attached_short_option_values_were_searched_as_words() {
    let env = TestEnv::new();
    env.remember("who", "user", "Freeze lover", "Likes the deploy freeze.");
    env.remember(
        "plan",
        "project",
        "Deploy freeze",
        "The freeze starts Monday.",
    );
    let typed = env.run(&["search", "--json", "-tuser", "freeze"]);
    typed.assert_success();
    assert_eq!(
        typed.hit_ids(),
        vec!["who".to_string()],
        "{}",
        typed.render()
    );
    let limited = env.run(&["search", "--json", "-n1", "freeze"]);
    limited.assert_success();
    assert_eq!(limited.hit_ids().len(), 1, "{}", limited.render());
    // A word that only starts like an option is still an exclusion.
    let excluded = env.run(&["search", "--json", "freeze", "-tests"]);
    excluded.assert_success();
    assert_eq!(excluded.hit_ids().len(), 2, "{}", excluded.render());
}

/// "No records match" echoed a 100 KB query whole, and `--limit 0`
/// searched and said "No records match".
#[test]
fn a_huge_query_was_echoed_whole_and_limit_0_searched() {
    let env = TestEnv::new();
    env.remember("who", "user", "A Rust developer", "Ten years of Rust.");
    let huge = "zq".repeat(50_000);
    let run = env.run(&["search", &huge]);
    run.assert_code(1);
    assert!(run.all_output().len() < 1_000, "{}", run.all_output().len());
    let zero = env.run(&["search", "--limit", "0", "rust"]);
    zero.assert_code(2);
    assert!(zero.stderr.contains("--limit"), "{}", zero.render());
}

/// `--json` printed DEL and C1 characters (U+009B is a terminal's CSI) raw
/// from a hand-edited description; serde_json escapes only C0.
#[test]
fn json_output_carried_raw_c1_and_del() {
    let env = TestEnv::new();
    env.write_store_file(
        "c1.md",
        "---\nname: c1\ndescription: \"red \\u009b31m and \\u007f\"\ntype: user\n---\nBody.\n",
    );
    for args in [
        &["list", "--json"][..],
        &["show", "c1", "--json"],
        &["search", "red", "--json"],
    ] {
        let run = env.run(args);
        run.assert_success();
        assert!(
            !run.stdout.contains('\u{9b}') && !run.stdout.contains('\u{7f}'),
            "{}",
            run.render()
        );
        assert!(run.stdout.contains("\\u009b31m"), "{}", run.render());
    }
}
