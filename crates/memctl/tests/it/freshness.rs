//! Freshness without a watcher (SPEC §4): every search answers from the
//! files as they are when it starts. Each test changes the store and
//! searches at once, with no sleep in between.

use std::collections::BTreeSet;
use std::fs;
use std::time::{Duration, SystemTime};

use pretty_assertions::assert_eq;

use crate::env::{Run, TestEnv};

/// `search --json QUERY…`: the ids found, asserting exit 0 with results and
/// 1 without.
#[track_caller]
pub fn found(env: &TestEnv, query: &[&str]) -> BTreeSet<String> {
    let mut args = vec!["search", "--json", "--limit", "1000"];
    args.extend_from_slice(query);
    let run = env.run(&args);
    assert_exit_matches_hits(&run);
    run.hit_ids().into_iter().collect()
}

#[track_caller]
pub fn assert_exit_matches_hits(run: &Run) {
    assert!(run.code == 0 || run.code == 1, "{}", run.render());
    assert_eq!(
        run.code == 0,
        !run.hits().is_empty(),
        "exit 0 exactly when something is found\n{}",
        run.render()
    );
}

pub fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

/// A store with an index already built, so that the changes below are made
/// behind an existing index.
fn indexed_store() -> TestEnv {
    let env = TestEnv::new();
    env.write_record(
        "deploy-freeze",
        "project",
        "No deploys on Fridays",
        "The freeze starts Friday noon.",
    );
    env.write_record(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "Never unittest.",
    );
    let first = env.run(&["search", "pytest"]);
    first.assert_success();
    assert!(
        first
            .stderr
            .lines()
            .any(|l| l.starts_with("index rebuilt (workspace store): there was no index file;")),
        "{}",
        first.render()
    );
    env
}

#[test]
fn remember_then_search_at_once_finds_it() {
    let env = indexed_store();
    env.remember(
        "ci-cache",
        "project",
        "CI caches cargo",
        "Keyed on the lockfile hash.",
    );
    assert_eq!(found(&env, &["lockfile"]), set(&["ci-cache"]));

    // An update through memctl: the new text at once, the old one gone.
    env.remembering("ci-cache")
        .description("CI caches cargo")
        .body("Keyed on the toolchain version.")
        .ok();
    assert_eq!(found(&env, &["toolchain"]), set(&["ci-cache"]));
    assert_eq!(found(&env, &["lockfile"]), set(&[]));

    env.remembering_unnamed()
        .global()
        .name("editor")
        .kind("user")
        .description("Uses helix")
        .body("Helix, with the toolchain from rustup.")
        .ok();
    let run = env.run(&["search", "--json", "toolchain"]);
    run.assert_success();
    assert_eq!(
        run.hits().into_iter().collect::<BTreeSet<_>>(),
        [
            ("ci-cache".to_string(), "workspace".to_string()),
            ("editor".to_string(), "global".to_string())
        ]
        .into_iter()
        .collect()
    );
}

#[test]
fn an_edit_saved_by_rename_is_seen_at_once() {
    let env = indexed_store();
    env.replace_store_file(
        "deploy-freeze.md",
        "---\nname: deploy-freeze\ndescription: No deploys on Fridays\ntype: project\n---\nThe embargo starts Thursday.\n",
    );
    assert_eq!(found(&env, &["embargo"]), set(&["deploy-freeze"]));
    assert_eq!(found(&env, &["noon"]), set(&[]), "the old text is gone");
    let run = env.run(&["search", "thursday"]);
    run.assert_success();
    assert!(
        run.stdout.contains("The embargo starts [Thursday]."),
        "{}",
        run.render()
    );
    assert_eq!(run.stderr, "", "{}", run.render());
}

#[test]
fn an_in_place_edit_of_the_same_size_and_mtime_is_seen() {
    let env = indexed_store();
    let path = env.store().join("prefer-pytest.md");
    let text = |word: &str| {
        format!(
            "---\nname: prefer-pytest\ndescription: Tests use pytest\ntype: feedback\n---\n{word} unittest.\n"
        )
    };
    // One mtime for both versions, as a file system with coarse timestamps
    // gives two writes within its tick. It lies ahead of the clock so that
    // the index cannot trust it however slowly this test runs; a search
    // must then compare contents.
    let mtime = SystemTime::now() + Duration::from_secs(3600);
    let write = |word: &str| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&path)
            .expect("the record opens for writing");
        std::io::Write::write_all(&mut file, text(word).as_bytes()).expect("written");
        file.set_modified(mtime).expect("mtime set");
    };
    write("Never");
    assert_eq!(found(&env, &["never"]), set(&["prefer-pytest"]));
    write("Avoid");
    assert_eq!(text("Never").len(), text("Avoid").len());
    assert_eq!(found(&env, &["avoid"]), set(&["prefer-pytest"]));
    assert_eq!(found(&env, &["never"]), set(&[]));
}

#[test]
fn files_added_deleted_and_renamed_by_hand_are_seen_at_once() {
    let env = indexed_store();
    env.write_record(
        "ci-cache",
        "project",
        "CI caches cargo",
        "Keyed on the lockfile.",
    );
    env.write_store_file(
        "team/owners.md",
        "---\nname: owners\ndescription: Who owns what\ntype: reference\n---\nThe lockfile belongs to the platform team.\n",
    );
    assert_eq!(
        found(&env, &["lockfile"]),
        set(&["ci-cache", "team/owners"])
    );

    fs::remove_file(env.store().join("ci-cache.md")).expect("deleted by hand");
    assert_eq!(found(&env, &["lockfile"]), set(&["team/owners"]));

    fs::rename(
        env.store().join("deploy-freeze.md"),
        env.store().join("release-freeze.md"),
    )
    .expect("renamed by hand");
    assert_eq!(found(&env, &["friday"]), set(&["release-freeze"]));

    fs::rename(env.store().join("team"), env.store().join("platform")).expect("folder renamed");
    assert_eq!(found(&env, &["lockfile"]), set(&["platform/owners"]));

    fs::remove_dir_all(env.store().join("platform")).expect("folder deleted");
    assert_eq!(found(&env, &["lockfile"]), set(&[]));
}

#[test]
fn forget_then_search_never_returns_it() {
    let env = indexed_store();
    env.run(&["forget", "--yes", "deploy-freeze", "--reason", "obsolete"])
        .assert_success();
    assert_eq!(found(&env, &["friday"]), set(&[]));
    assert_eq!(found(&env, &["freeze"]), set(&[]));
    let run = env.run(&["search", "deploy", "freeze", "friday", "noon"]);
    run.assert_code(1);
    assert_eq!(run.stdout, "", "{}", run.render());
}

#[test]
fn a_checkout_that_swaps_many_files_is_seen_at_once() {
    let env = indexed_store();
    let record = |n: usize, word: &str| {
        format!(
            "---\nname: r{n:02}\ndescription: Record {n}\ntype: project\n---\nBranch {word} text.\n"
        )
    };
    for n in 0..40 {
        env.write_store_file(&format!("r{n:02}.md"), &record(n, "mainline"));
    }
    assert_eq!(found(&env, &["mainline"]).len(), 40);
    // As git does: new versions renamed into place, some files removed,
    // some added, all between two searches.
    for n in 0..30 {
        env.replace_store_file(&format!("r{n:02}.md"), &record(n, "feature"));
    }
    for n in 30..40 {
        fs::remove_file(env.store().join(format!("r{n:02}.md"))).expect("removed");
    }
    for n in 40..45 {
        env.write_store_file(&format!("r{n:02}.md"), &record(n, "feature"));
    }
    let expected: BTreeSet<String> = (0..30).chain(40..45).map(|n| format!("r{n:02}")).collect();
    assert_eq!(found(&env, &["feature"]), expected);
    assert_eq!(found(&env, &["mainline"]), set(&[]));
}
