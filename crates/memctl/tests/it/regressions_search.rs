//! One test per bug these tests found in search, status and their output
//! (options, counts, errors, escapes), named after the bug.

use std::fs;

use pretty_assertions::assert_eq;

use crate::env::TestEnv;

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
