//! `memctl log`: a record's revisions through git history, forgotten ones
//! included, secrets hidden, nothing outside the store.

use std::fs;

use crate::env::TestEnv;
use crate::git::{Clones, git, memctl, remember};

/// Issue 9: `memctl log` shows every revision of a record, its forget
/// included, and takes ids that look like options or are not ASCII.
#[test]
fn log_shows_revisions_through_the_forget() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    remember(env, &a, "shared", "Second revision").assert_success();
    memctl(env, &a, &["forget", "--yes", "--commit", "shared"]).assert_success();
    let log = memctl(env, &a, &["log", "shared"]);
    log.assert_success();
    let subjects: Vec<&str> = log
        .stdout
        .lines()
        .filter(|l| l.starts_with("    "))
        .map(str::trim)
        .collect();
    assert_eq!(
        subjects,
        [
            "forget: shared",
            "remember: update shared",
            "remember: add shared"
        ]
    );
    assert!(
        log.stdout.contains("Author: a <a@example.invalid>"),
        "{}",
        log.render()
    );
    assert!(log.stdout.contains("+description: Second revision"));
    assert!(log.stdout.contains("+++ b/.memory/.tombstones/shared.json"));

    let odd = "-odd name é";
    fs::write(
        a.join(format!(".memory/{odd}.md")),
        "---\ndescription: A hand-made record\ntype: project\n---\nBody.\n",
    )
    .unwrap();
    git(env, &a, &["add", "."]);
    git(
        env,
        &a,
        &["commit", "--quiet", "--message", "hand-made \u{1b}[31mred"],
    );
    let log = memctl(env, &a, &["log", "--", odd]);
    log.assert_success();
    assert!(
        log.stdout.contains("hand-made \\x1b[31mred"),
        "{}",
        log.render()
    );
    memctl(env, &a, &["log", "never-there"]).assert_code(1);
}

/// Issue 9: a secret committed in an old revision (since removed by hand)
/// came back whole through `memctl log`.
#[test]
fn log_hides_a_secret_from_an_old_revision() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    let key_id = format!("AKIA{}", "IOSFODNN7EXAMPLE");
    let file = a.join(".memory/deploy.md");
    let record = |body: &str| {
        format!("---\nname: deploy\ndescription: How we deploy\ntype: project\n---\n{body}\n")
    };
    fs::write(&file, record(&format!("The key id is {key_id}."))).unwrap();
    git(env, &a, &["add", "."]);
    git(env, &a, &["commit", "--quiet", "--message", "deploy notes"]);
    fs::write(&file, record("The key is in the vault.")).unwrap();
    git(
        env,
        &a,
        &["commit", "--quiet", "--all", "--message", "no key"],
    );
    let log = memctl(env, &a, &["log", "deploy"]);
    log.assert_success();
    assert!(!log.all_output().contains(&key_id), "{}", log.render());
    assert!(
        log.stdout
            .contains("-<a line hidden: it looks like it holds a secret (rule aws-access-key-id)>"),
        "{}",
        log.render()
    );
    assert!(log.stdout.contains("+The key is in the vault."));
}

/// `memctl log ../notes` showed the history, diffs included, of a file of
/// the project outside the store; an empty id read the history of `.md`.
#[test]
fn log_of_a_dotdot_id_does_not_show_files_outside_the_store() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    fs::write(a.join("notes.md"), "private project notes\n").unwrap();
    git(env, &a, &["add", "notes.md"]);
    git(
        env,
        &a,
        &["commit", "--quiet", "--message", "private notes"],
    );
    for id in ["../notes", "", "/etc/passwd"] {
        let log = memctl(env, &a, &["log", "--", id]);
        log.assert_code(2);
        assert!(!log.all_output().contains("private"), "{}", log.render());
        assert!(log.stderr.contains("ID "), "{}", log.render());
    }
}

/// Issue 9: outside git, `log` says so plainly (exit 2).
#[test]
fn log_outside_git_says_there_is_no_history() {
    let env = TestEnv::new();
    env.remembering_unnamed()
        .kind("project")
        .name("x")
        .description("A record")
        .body("x")
        .ok();
    let run = env.run(&["log", "x"]);
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("is not in a git repository, so it has no history"),
        "{}",
        run.render()
    );
}
