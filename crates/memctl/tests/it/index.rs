//! The index file (SPEC §4): rebuilt with one stderr line when it is missing
//! or damaged; `reindex` and what it reports; `reindex --check`; the index
//! lines of `status`.

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use crate::env::{Run, TestEnv};
use crate::freshness::{found, set};
use crate::search::assert_search_snapshot;

/// A workspace store of three records and its index, built by a search.
fn indexed_store() -> (TestEnv, PathBuf) {
    let env = TestEnv::new();
    env.write_record(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "Never unittest.",
    );
    env.write_record(
        "deploy-freeze",
        "project",
        "No deploys on Fridays",
        "The freeze starts at noon.",
    );
    env.write_record("who", "user", "A Rust developer", "Ten years of Rust.");
    env.run(&["search", "pytest"]).assert_success();
    let files = env.index_files();
    assert_eq!(files.len(), 1, "one index for the one store: {files:?}");
    let index = files.into_iter().next().expect("the index");
    (env, index)
}

/// The one stderr line of a search that had to rebuild the index.
#[track_caller]
fn rebuild_line(run: &Run) -> String {
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line on stderr\n{}", run.render());
    assert!(
        lines[0].starts_with("index rebuilt (workspace store): "),
        "{}",
        run.render()
    );
    assert!(
        lines[0].ends_with("; 3 records indexed"),
        "{}",
        run.render()
    );
    lines[0].to_string()
}

/// A way to damage an index file.
type Damage = Box<dyn FnOnce(&PathBuf)>;

/// Damages the index as `damage` says, then checks that the next search
/// rebuilds it with one stderr line, answers correctly, and that the search
/// after it says nothing. Returns the stderr line.
fn after_damage(damage: impl FnOnce(&PathBuf)) -> String {
    let (env, index) = indexed_store();
    damage(&index);
    let run = env.run(&["search", "--json", "friday"]);
    run.assert_success();
    assert_eq!(run.hit_ids(), ["deploy-freeze"], "{}", run.render());
    let line = rebuild_line(&run);
    let again = env.run(&["search", "--json", "pytest"]);
    again.assert_success();
    assert_eq!(again.hit_ids(), ["prefer-pytest"]);
    assert_eq!(again.stderr, "", "a sound index is not rebuilt again");
    line.replace(&env.root().display().to_string(), "[ROOT]")
}

#[test]
fn a_deleted_truncated_or_overwritten_index_is_rebuilt_with_one_line_saying_why() {
    let cases: [(&str, Damage); 5] = [
        (
            "deleted",
            Box::new(|p| fs::remove_file(p).expect("deleted")),
        ),
        (
            "truncated to 0 bytes",
            Box::new(|p| fs::write(p, b"").expect("truncated")),
        ),
        (
            "overwritten with text",
            Box::new(|p| fs::write(p, "not a database\n").expect("overwritten")),
        ),
        (
            "overwritten with random bytes",
            Box::new(|p| {
                let mut rng = fastrand::Rng::with_seed(7);
                let bytes: Vec<u8> = (0..64 * 1024).map(|_| rng.u8(..)).collect();
                fs::write(p, bytes).expect("overwritten");
            }),
        ),
        (
            "cut to its first half",
            Box::new(|p| {
                let bytes = fs::read(p).expect("the index");
                fs::write(p, &bytes[..bytes.len() / 2]).expect("cut");
            }),
        ),
    ];
    let mut report = String::new();
    for (what, damage) in cases {
        report += &format!("{what}:\n  {}\n", after_damage(damage));
    }
    insta::assert_snapshot!(report);
}

#[test]
fn an_index_damaged_past_its_header_still_answers_correctly() {
    // The header and schema read fine; the pages behind them are garbage,
    // which only shows when SQLite reads them.
    let (env, index) = indexed_store();
    let mut bytes = fs::read(&index).expect("the index");
    let mut rng = fastrand::Rng::with_seed(11);
    let page = 4096.min(bytes.len());
    for byte in &mut bytes[page..] {
        *byte = rng.u8(..);
    }
    fs::write(&index, &bytes).expect("damaged");
    for (query, expected) in [
        ("friday", "deploy-freeze"),
        ("pytest", "prefer-pytest"),
        ("rust", "who"),
    ] {
        let run = env.run(&["search", "--json", query]);
        run.assert_success();
        assert_eq!(run.hit_ids(), [expected], "{}", run.render());
        assert!(run.stderr.lines().count() <= 1, "{}", run.render());
    }
    env.run(&["reindex", "--check"]).assert_success();
}

/// Runs `sql` on the index file (through rusqlite, so that no `sqlite3`
/// program is needed).
fn sqlite(index: &Path, sql: &str) {
    let connection = rusqlite::Connection::open(index).expect("the index opens");
    connection
        .execute_batch(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

#[test]
fn an_index_of_another_schema_text_or_tokenizer_version_is_rebuilt_saying_so() {
    let mut report = String::new();
    for sql in [
        "UPDATE meta SET value = '0' WHERE key = 'schema_version'",
        "UPDATE meta SET value = '1' WHERE key = 'text_version'",
        "UPDATE meta SET value = 'porter unicode61' WHERE key = 'tokenizer'",
        "UPDATE meta SET value = '/elsewhere/.memory' WHERE key = 'store_root'",
        "DROP TABLE dirty",
    ] {
        let line = after_damage(|index| sqlite(index, sql));
        report += &format!("{sql}:\n  {line}\n");
    }
    insta::assert_snapshot!(report);
}

/// An index whose meta table lost its schema version row is rebuilt, but
/// the line says "index schema version , this memctl uses 1".
#[test]
fn a_missing_schema_version_is_not_reported_as_an_empty_one() {
    let line = after_damage(|index| sqlite(index, "DELETE FROM meta WHERE key = 'schema_version'"));
    assert!(!line.contains("version ,"), "{line}");
}

/// A store with records and with files that are not records, each for a
/// different reason.
fn store_with_skipped_files() -> TestEnv {
    let env = TestEnv::new();
    env.write_record(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "Never unittest.",
    );
    env.write_store_file(
        "team/ci-cache.md",
        "---\nname: ci-cache\ndescription: CI caches cargo\ntype: project\n---\nKeyed on Cargo.lock.\n",
    );
    env.write_store_file("no-frontmatter.md", "# Release steps\n\nTag, then push.\n");
    fs::write(
        env.store().join("latin1.md"),
        b"---\nname: latin1\ndescription: caf\xe9\ntype: user\n---\n",
    )
    .expect("a Latin-1 file");
    env.write_store_file(
        ".draft.md",
        "---\nname: draft\ndescription: A hidden draft\ntype: user\n---\nSecret plan.\n",
    );
    env.write_store_file(".git/notes.md", "---\ndescription: in a dot-folder\n---\n");
    env.write_store_file(
        "nul.md",
        "---\ndescription: has a NUL\n---\nbefore\0after\n",
    );
    env.write_store_file(
        "huge.md",
        &format!(
            "---\ndescription: too big\n---\n{}\n",
            "x".repeat(300 * 1024)
        ),
    );
    env.write_store_file("notes.txt", "not markdown\n");
    env
}

#[test]
fn reindex_says_what_it_indexed_and_what_it_skipped_and_why() {
    let env = store_with_skipped_files();
    env.write_global_record("editor", "user", "Uses helix", "Helix.");
    let before = env.store_bytes();
    let run = env.run(&["reindex"]);
    run.assert_success();
    assert_search_snapshot!(env, run);
    assert_eq!(env.store_bytes(), before, "reindex changes no store file");

    assert_eq!(
        found(&env, &["cargo"]),
        set(&["team/ci-cache"]),
        "a record in a subfolder is indexed"
    );
    assert_eq!(found(&env, &["push"]), set(&["no-frontmatter"]));
    for skipped in ["secret", "folder", "café", "after", "xxxx"] {
        assert_eq!(found(&env, &[skipped]), set(&[]), "{skipped}");
    }
    let again = env.run(&["reindex"]);
    again.assert_success();
    assert_eq!(
        again.stdout, run.stdout,
        "a second reindex reports the same"
    );
}

#[test]
fn reindex_check_is_clean_after_a_reindex() {
    let env = store_with_skipped_files();
    env.run(&["reindex"]).assert_success();
    let run = env.run(&["reindex", "--check"]);
    run.assert_success();
    assert_search_snapshot!(env, run);
}

#[test]
fn reindex_check_reports_hand_edits_made_behind_the_index_and_changes_nothing() {
    let (env, index) = indexed_store();
    env.run(&["reindex", "--check"]).assert_success();

    env.replace_store_file(
        "deploy-freeze.md",
        "---\nname: deploy-freeze\ndescription: No deploys on Fridays\ntype: project\n---\nThe embargo starts at noon.\n",
    );
    env.write_record(
        "ci-cache",
        "project",
        "CI caches cargo",
        "Keyed on Cargo.lock.",
    );
    fs::remove_file(env.store().join("who.md")).expect("deleted by hand");
    let store_before = env.store_bytes();
    let index_before = fs::read(&index).expect("the index");

    let run = env.run(&["reindex", "--check"]);
    run.assert_code(1);
    assert_search_snapshot!(env, run);
    assert_eq!(
        env.store_bytes(),
        store_before,
        "the check changed the store"
    );
    assert!(
        fs::read(&index).expect("the index") == index_before,
        "the check changed the index"
    );
    let again = env.run(&["reindex", "--check"]);
    again.assert_code(1);
    assert_eq!(again.stdout, run.stdout, "the first check fixed nothing");

    // A search brings the index up to date; the check is then clean.
    assert_eq!(found(&env, &["embargo"]), set(&["deploy-freeze"]));
    env.run(&["reindex", "--check"]).assert_success();
}

#[test]
fn reindex_check_without_an_index_exits_1_and_builds_none() {
    let env = TestEnv::new();
    env.write_record("who", "user", "A Rust developer", "Ten years of Rust.");
    let run = env.run(&["reindex", "--check"]);
    run.assert_code(1);
    assert_search_snapshot!(env, run);
    assert_eq!(env.index_files(), Vec::<PathBuf>::new());
}

#[test]
fn status_shows_the_index_path_record_count_and_watcher() {
    let env = store_with_skipped_files();
    let before = env.run(&["status"]);
    before.assert_success();
    let index_lines = |run: &Run| -> Run {
        let stdout: String = run
            .stdout
            .lines()
            .filter(|l| {
                l.ends_with(" store: [no store]")
                    || l.starts_with("workspace store")
                    || l.starts_with("global store")
                    || l.starts_with("  index")
                    || l.starts_with("  watcher")
            })
            .map(|l| format!("{l}\n"))
            .collect();
        Run {
            stdout,
            ..run.clone()
        }
    };
    assert_search_snapshot!("status_before_any_search", env, index_lines(&before));

    env.run(&["reindex"]).assert_success();
    let after = env.run(&["status"]);
    after.assert_success();
    assert_search_snapshot!("status_after_reindex", env, index_lines(&after));
    let index = env.index_files();
    assert_eq!(index.len(), 1);
    assert!(
        after
            .stdout
            .contains(&format!("  index: {} (3 records,", index[0].display())),
        "{}",
        after.render()
    );
}

#[test]
fn searches_answer_correctly_while_another_process_rebuilds_the_index() {
    let env = TestEnv::new();
    for n in 0..300 {
        let word = if n % 100 == 7 { "needle" } else { "hay" };
        env.write_record(
            &format!("r{n:03}"),
            "project",
            &format!("Record {n}"),
            &format!("Some {word} in record {n}."),
        );
    }
    env.run(&["reindex"]).assert_success();
    let searches = std::thread::scope(|scope| {
        let rebuilds = scope.spawn(|| {
            for _ in 0..4 {
                env.run(&["reindex"]).assert_success();
            }
        });
        let mut searches = 0;
        // At least one search, however fast the rebuilds end.
        while searches == 0 || !rebuilds.is_finished() {
            let run = env.run(&["search", "--json", "needle"]);
            run.assert_success();
            assert_eq!(run.hit_ids().len(), 3, "{}", run.render());
            assert_eq!(run.stderr, "", "{}", run.render());
            searches += 1;
        }
        rebuilds.join().expect("the rebuilds ran");
        searches
    });
    println!("{searches} searches ran during 4 rebuilds");
    env.run(&["reindex", "--check"]).assert_success();
}

#[test]
fn unwritable_cache_folder_still_searches() {
    let (mut env, _) = indexed_store();
    // A file where the cache folder should be (a read-only folder does the
    // same, except for root, who writes anyway).
    let file = env.root().join("cache-file");
    fs::write(&file, "not a folder").expect("a file");
    env.set_var("MEMCTL_CACHE_DIR", file.display().to_string());
    let run = env.run(&["search", "--json", "pytest"]);
    run.assert_success();
    assert_eq!(run.hit_ids(), vec!["prefer-pytest".to_string()]);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "said once\n{}", run.render());
    assert!(
        lines[0].contains("answered from a temporary index") && lines[0].contains("cache-file"),
        "{}",
        run.render()
    );
    env.run(&["list"]).assert_success();
    assert_eq!(fs::read_to_string(&file).expect("the file"), "not a folder");
}

#[test]
fn no_build_files_left_in_cache() {
    let (env, index) = indexed_store();
    env.run(&["reindex"]).assert_success();
    fs::remove_file(&index).expect("the index removed");
    env.run(&["search", "pytest"]).assert_success();
    let cache = index.parent().expect("the cache folder");
    let mut left: Vec<String> = fs::read_dir(cache)
        .expect("the cache folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| !name.ends_with("-wal") && !name.ends_with("-shm"))
        .collect();
    left.sort();
    let name = index
        .file_name()
        .expect("a name")
        .to_string_lossy()
        .into_owned();
    assert_eq!(left, vec![name]);
}

#[test]
fn symlinked_folder_outside_store_is_reported() {
    let env = TestEnv::new();
    env.write_record("kept", "project", "Kept inside", "Inside body.");
    let outside = env.work().join("shared-notes");
    fs::create_dir_all(&outside).expect("a folder outside");
    fs::write(
        outside.join("far.md"),
        "---\nname: far\ndescription: Far away\ntype: project\n---\nOUTSIDE-BODY\n",
    )
    .expect("a record outside");
    std::os::unix::fs::symlink(&outside, env.store().join("shared")).expect("a symlink");

    let list = env.run(&["list"]);
    list.assert_success();
    assert!(
        list.stderr.contains("shared") && list.stderr.contains("outside the store"),
        "{}",
        list.render()
    );
    assert!(!list.stdout.contains("far"), "{}", list.render());
    let check = env.run(&["check"]);
    check.assert_code(1);
    assert!(
        check
            .stdout
            .contains("shared: error: a symlink that leads outside the store"),
        "{}",
        check.render()
    );
    let reindex = env.run(&["reindex"]);
    reindex.assert_success();
    assert!(
        reindex.stdout.contains("skipped 1") && reindex.stdout.contains("outside the store"),
        "{}",
        reindex.render()
    );
    env.run(&["search", "OUTSIDE"]).assert_code(1);
}
