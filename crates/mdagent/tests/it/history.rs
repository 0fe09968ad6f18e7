//! `mdagent::git::history`: a record's revisions from git, and why they
//! cannot be shown (no git repository, an id that leaves the store).

use std::process::Command;

use mdagent::Kind;
use mdagent::git::history::{self, HistoryError};
use memctl_testkit::RecordFile;

use crate::support::{Stores, write};

fn git(dir: &std::path::Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn history_of_a_committed_record_is_gits_log_of_it() {
    let stores = Stores::new();
    write(&stores.workspace(), RecordFile::written("use-pnpm"));
    let project = stores.workspace().parent().unwrap().to_path_buf();
    git(&project, &["init", "-q"]);
    git(&project, &["add", "."]);
    git(&project, &["commit", "-q", "-m", "remember use-pnpm"]);

    let found = history::history(&stores.config(false), "use-pnpm").unwrap();

    assert!(found.text.starts_with("commit "), "{}", found.text);
    assert!(
        found.text.contains("    remember use-pnpm"),
        "{}",
        found.text
    );
    assert!(found.text.contains("+name: use-pnpm"), "{}", found.text);
    let none = history::history(&stores.config(false), "never-written").unwrap();
    assert!(none.text.trim().is_empty(), "{}", none.text);
}

#[test]
fn history_outside_git_or_of_an_id_leaving_the_store_is_bad_input() {
    let stores = Stores::new();
    write(&stores.workspace(), RecordFile::written("use-pnpm"));
    let config = stores.config(false);

    let error = history::history(&config, "use-pnpm").err().unwrap();
    assert!(matches!(error, HistoryError::NotInGit { .. }), "{error}");
    let explained = mdagent::explain(&error).unwrap();
    assert_eq!(explained.kind, Kind::BadInput);
    assert!(explained.message.contains("is not in a git repository"));
    assert!(explained.hint.unwrap().contains("git init"));

    let error = history::history(&config, "../outside").err().unwrap();
    assert!(matches!(error, HistoryError::BadId { .. }), "{error}");
    assert_eq!(mdagent::explain(&error).unwrap().kind, Kind::BadInput);
}
