//! memctl in git repositories (issue 9, docs/GIT.md), with the real `git`:
//! two clones of one bare repository, concurrent edits pushed and pulled
//! between them, conflicts, history and commits. The helpers are shared
//! with `git_commit_only.rs`.

use std::fs;
use std::path::{Path, PathBuf};

use crate::env::{Run, TestEnv};

/// Two clones `a` and `b` of a bare `origin`, whose first commit holds an
/// initialised store with one record, `shared`.
pub(crate) struct Clones {
    pub(crate) env: TestEnv,
    origin: PathBuf,
}

/// A git configuration of the test's own (no user's or system's), with
/// the identity set per repository.
pub(crate) fn git_env(env: &mut TestEnv) {
    let config = env.root().join("gitconfig");
    fs::write(
        &config,
        "[init]\n\tdefaultBranch = main\n[pull]\n\trebase = false\n[advice]\n\tdetachedHead = false\n",
    )
    .unwrap();
    env.set_var("GIT_CONFIG_GLOBAL", config.display().to_string());
    env.set_var("GIT_CONFIG_NOSYSTEM", "1");
}

/// `git ARGS` in `dir` with the test's environment; its exit code and
/// output.
pub(crate) fn git_run(env: &TestEnv, dir: &Path, args: &[&str]) -> (i32, String) {
    let memctl = env.std_command();
    let mut cmd = std::process::Command::new("git");
    cmd.env_clear();
    for (name, value) in memctl.get_envs() {
        if let Some(value) = value {
            cmd.env(name, value);
        }
    }
    let output = cmd
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs (these tests need git on PATH)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code().unwrap_or(-1), text)
}

#[track_caller]
pub(crate) fn git(env: &TestEnv, dir: &Path, args: &[&str]) -> String {
    let (code, text) = git_run(env, dir, args);
    assert_eq!(code, 0, "git {args:?} in {}:\n{text}", dir.display());
    text
}

/// A new repository (or clone) with its own identity.
pub(crate) fn identify(env: &TestEnv, dir: &Path, name: &str) {
    git(env, dir, &["config", "user.name", name]);
    git(
        env,
        dir,
        &["config", "user.email", &format!("{name}@example.invalid")],
    );
}

/// `memctl ARGS` run in `dir`.
pub(crate) fn memctl(env: &TestEnv, dir: &Path, args: &[&str]) -> Run {
    let mut cmd = env.command();
    cmd.current_dir(dir);
    env.run_with(cmd, args)
}

pub(crate) fn remember(env: &TestEnv, dir: &Path, name: &str, description: &str) -> Run {
    memctl(
        env,
        dir,
        &[
            "remember",
            "--yes",
            "--commit",
            "-t",
            "project",
            "-n",
            name,
            "-d",
            description,
            description,
        ],
    )
}

impl Clones {
    pub(crate) fn new() -> Clones {
        let mut env = TestEnv::bare();
        git_env(&mut env);
        let origin = env.root().join("origin.git");
        git(
            &env,
            env.root(),
            &["init", "--quiet", "--bare", "origin.git"],
        );
        let clones = Clones { env, origin };
        let a = clones.clone_as("a");
        memctl(&clones.env, &a, &["init"]).assert_success();
        let attributes = fs::read_to_string(a.join(".memory/.gitattributes")).unwrap();
        assert!(
            attributes.lines().any(|l| l == "MEMORY.md merge=union"),
            "{attributes}"
        );
        remember(&clones.env, &a, "shared", "A record both clones have").assert_success();
        git(&clones.env, &a, &["push", "--quiet", "origin", "main"]);
        clones.clone_as("b");
        clones
    }

    pub(crate) fn clone_as(&self, name: &str) -> PathBuf {
        let origin = self.origin.display().to_string();
        git(
            &self.env,
            self.env.root(),
            &["clone", "--quiet", &origin, name],
        );
        let dir = self.env.root().join(name);
        identify(&self.env, &dir, name);
        dir
    }

    pub(crate) fn dir(&self, name: &str) -> PathBuf {
        self.env.root().join(name)
    }

    pub(crate) fn catalog(&self, name: &str) -> String {
        fs::read_to_string(self.dir(name).join(".memory/MEMORY.md")).unwrap()
    }
}

/// Issue 9: two branches that each add, update or forget records merge
/// without anyone resolving MEMORY.md, and the next command makes it match
/// the merged records.
#[test]
fn concurrent_adds_updates_and_forgets_merge_without_resolving_memory_md() {
    let clones = Clones::new();
    let env = &clones.env;
    let (a, b) = (clones.dir("a"), clones.dir("b"));
    remember(env, &a, "from-a", "Added in clone a").assert_success();
    remember(env, &a, "shared", "Updated in clone a").assert_success();
    git(env, &a, &["push", "--quiet", "origin", "main"]);
    remember(env, &b, "from-b", "Added in clone b").assert_success();
    memctl(env, &b, &["forget", "--yes", "--commit", "from-b"]).assert_success();
    remember(env, &b, "also-b", "Another one from clone b").assert_success();

    git(env, &b, &["pull", "--quiet", "--no-edit", "origin", "main"]);
    let merged = clones.catalog("b");
    assert!(!merged.contains("<<<<<<<"), "{merged}");
    memctl(env, &b, &["list"]).assert_success();
    memctl(env, &b, &["check"]).assert_success();
    let catalog = clones.catalog("b");
    for id in ["from-a", "also-b", "shared"] {
        assert!(catalog.contains(&format!("[{id}]")), "{id}:\n{catalog}");
    }
    assert!(catalog.contains("Updated in clone a"), "{catalog}");
    assert!(!catalog.contains("[from-b]"), "{catalog}");

    // And back: a pulls b's merge (a fast-forward) and agrees.
    git(
        env,
        &b,
        &["commit", "--quiet", "--all", "--message", "regenerated"],
    );
    git(env, &b, &["push", "--quiet", "origin", "main"]);
    git(env, &a, &["pull", "--quiet", "origin", "main"]);
    memctl(env, &a, &["search", "clone"]).assert_success();
    memctl(env, &a, &["check"]).assert_success();
    assert_eq!(clones.catalog("a"), catalog);
}

/// Issue 9: after a checkout, a rebase or a stash pop changed the records,
/// MEMORY.md was stale until the next write.
#[test]
fn checkout_rebase_and_stash_pop_leave_memory_md_current_by_the_next_command() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    git(env, &a, &["checkout", "--quiet", "-b", "topic"]);
    remember(env, &a, "on-topic", "Only on the topic branch").assert_success();
    // MEMORY.md is committed, so a checkout brings the branch's own.
    git(env, &a, &["checkout", "--quiet", "main"]);
    memctl(env, &a, &["list"]).assert_success();
    memctl(env, &a, &["check"]).assert_success();
    assert!(!clones.catalog("a").contains("on-topic"));

    remember(env, &a, "on-main", "Only on main").assert_success();
    git(env, &a, &["checkout", "--quiet", "topic"]);
    git(env, &a, &["rebase", "--quiet", "main"]);
    memctl(env, &a, &["show", "on-main"]).assert_success();
    memctl(env, &a, &["check"]).assert_success();
    let catalog = clones.catalog("a");
    assert!(
        catalog.contains("[on-main]") && catalog.contains("[on-topic]"),
        "{catalog}"
    );

    fs::write(
        a.join(".memory/stashed.md"),
        "---\nname: stashed\ndescription: Kept in a stash\ntype: project\n---\nBody.\n",
    )
    .unwrap();
    git(
        env,
        &a,
        &["stash", "push", "--quiet", "--include-untracked"],
    );
    git(env, &a, &["stash", "pop", "--quiet"]);
    memctl(env, &a, &["list"]).assert_success();
    memctl(env, &a, &["check"]).assert_success();
    assert!(clones.catalog("a").contains("[stashed]"));
}

/// Both clones update `shared`, so the pull leaves conflict markers in it.
pub(crate) fn conflicted(clones: &Clones) -> PathBuf {
    let env = &clones.env;
    let (a, b) = (clones.dir("a"), clones.dir("b"));
    remember(env, &a, "shared", "The description a chose").assert_success();
    git(env, &a, &["push", "--quiet", "origin", "main"]);
    remember(env, &b, "shared", "The description b chose").assert_success();
    let (code, text) = git_run(env, &b, &["pull", "--quiet", "--no-edit", "origin", "main"]);
    assert_ne!(code, 0, "{text}");
    let file = b.join(".memory/shared.md");
    assert!(fs::read_to_string(&file).unwrap().contains("<<<<<<<"));
    file
}

/// Issue 9: a record both sides edited is reported by check at its markers,
/// left out of MEMORY.md, shown as both versions, and never rewritten.
#[test]
fn conflicted_record_is_reported_shown_both_ways_and_never_rewritten() {
    let clones = Clones::new();
    let env = &clones.env;
    let b = clones.dir("b");
    let file = conflicted(&clones);
    let before = fs::read(&file).unwrap();

    let check = memctl(env, &b, &["check"]);
    check.assert_code(1);
    assert!(
        check
            .stdout
            .contains("shared.md:3: error: an unresolved git merge conflict (markers at lines 3, "),
        "{}",
        check.render()
    );
    memctl(env, &b, &["list"]).assert_success();
    assert!(!clones.catalog("b").contains("[shared]"));

    let show = memctl(env, &b, &["show", "shared"]);
    show.assert_success();
    assert!(show.stdout.contains("# ours (HEAD)"), "{}", show.render());
    assert!(show.stdout.contains("description: The description b chose"));
    assert!(show.stdout.contains("description: The description a chose"));
    assert!(!show.stdout.contains("<<<<<<<"), "{}", show.render());
    let json = memctl(env, &b, &["show", "shared", "--json"]).json();
    assert_eq!(json["conflict"]["ours"]["label"], "HEAD");

    let write = remember(env, &b, "shared", "A third description");
    assert_ne!(write.code, 0, "{}", write.render());
    assert!(
        write.all_output().contains("unresolved git merge conflict"),
        "{}",
        write.render()
    );
    let forget = memctl(env, &b, &["forget", "--yes", "shared"]);
    forget.assert_code(2);
    assert!(
        forget.stderr.contains("unresolved git merge conflict"),
        "{}",
        forget.render()
    );
    assert_eq!(fs::read(&file).unwrap(), before);
}

/// Issue 9: a forget on one side and an edit on the other. git stops on the
/// modify/delete; the edit wins when kept (the files are the truth), and
/// check warns of the tombstone beside it until one of them goes.
#[test]
fn edit_kept_over_a_concurrent_forget_wins_and_check_warns() {
    let clones = Clones::new();
    let env = &clones.env;
    let (a, b) = (clones.dir("a"), clones.dir("b"));
    memctl(env, &a, &["forget", "--yes", "--commit", "shared"]).assert_success();
    git(env, &a, &["push", "--quiet", "origin", "main"]);
    remember(env, &b, "shared", "Edited while a forgot it").assert_success();
    let (code, text) = git_run(env, &b, &["pull", "--quiet", "--no-edit", "origin", "main"]);
    assert_ne!(code, 0, "{text}");
    assert!(text.contains("modify/delete"), "{text}");
    git(env, &b, &["add", ".memory/shared.md"]);
    git(env, &b, &["commit", "--quiet", "--no-edit"]);

    let list = memctl(env, &b, &["list", "--json"]);
    assert_eq!(list.json()[0]["description"], "Edited while a forgot it");
    assert!(clones.catalog("b").contains("[shared]"));
    let check = memctl(env, &b, &["check"]);
    check.assert_code(1);
    assert!(
        check
            .stdout
            .contains("shared.md: warning: also forgotten on"),
        "{}",
        check.render()
    );
}

/// Issue 9: `--commit` commits the write's files alone; staged changes of
/// the user's, outside the store and inside it, stay staged and uncommitted.
#[test]
fn commit_leaves_the_users_staged_changes_staged_inside_and_outside_the_store() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    fs::write(a.join("README.md"), "The project.\n").unwrap();
    fs::write(
        a.join(".memory/by-hand.md"),
        "---\nname: by-hand\ndescription: Staged by the user\n---\nBody.\n",
    )
    .unwrap();
    git(env, &a, &["add", "README.md", ".memory/by-hand.md"]);
    remember(env, &a, "committed", "Committed by memctl").assert_success();

    let last = git(env, &a, &["show", "--name-only", "--format=%s", "HEAD"]);
    assert_eq!(
        last.trim(),
        "remember: add committed\n\n.memory/MEMORY.md\n.memory/committed.md"
    );
    let status = git(env, &a, &["status", "--porcelain"]);
    assert!(status.contains("A  README.md"), "{status}");
    assert!(status.contains("A  .memory/by-hand.md"), "{status}");
}

/// Issue 9: a repository in the middle of a merge is never committed to;
/// the write still happens and says why it was not committed.
#[test]
fn write_during_a_merge_is_saved_but_not_committed() {
    let clones = Clones::new();
    let env = &clones.env;
    let b = clones.dir("b");
    conflicted(&clones);
    let head = git(env, &b, &["rev-parse", "HEAD"]);
    let run = remember(env, &b, "during-merge", "Written mid-merge");
    run.assert_success();
    assert!(
        run.stderr.contains(
            "the write is saved but not committed: the repository is in the middle of a merge"
        ),
        "{}",
        run.render()
    );
    assert!(b.join(".memory/during-merge.md").is_file());
    assert_eq!(git(env, &b, &["rev-parse", "HEAD"]), head);
}

/// Issue 9: `[git] commit = true` in the store's `.memctl.toml` commits
/// without the flag; a misspelt key is named, and the write still stands.
#[test]
fn memctl_toml_commit_setting_commits_every_write() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    fs::write(a.join(".memory/.memctl.toml"), "[git]\ncommit = true\n").unwrap();
    memctl(
        env,
        &a,
        &[
            "remember",
            "--yes",
            "-t",
            "project",
            "-n",
            "by-setting",
            "-d",
            "Committed by the setting",
            "x",
        ],
    )
    .assert_success();
    let subject = git(env, &a, &["log", "-1", "--format=%s"]);
    assert_eq!(subject.trim(), "remember: add by-setting");

    fs::write(a.join(".memory/.memctl.toml"), "[git]\ncomit = true\n").unwrap();
    let run = memctl(env, &a, &["forget", "--yes", "by-setting"]);
    run.assert_success();
    assert!(
        run.stderr.contains(".memctl.toml") && run.stderr.contains("comit"),
        "{}",
        run.render()
    );
    assert_eq!(
        git(env, &a, &["log", "-1", "--format=%s"]).trim(),
        "remember: add by-setting"
    );
}

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

/// Issue 9: a store made before memctl wrote `.gitattributes` (or whose
/// line was removed) gets conflict markers in MEMORY.md from a merge; the
/// next command replaces them with the merged records' catalogue.
#[test]
fn memory_md_conflict_without_the_attribute_is_repaired_by_the_next_command() {
    let clones = Clones::new();
    let env = &clones.env;
    let (a, b) = (clones.dir("a"), clones.dir("b"));
    for dir in [&a, &b] {
        fs::write(dir.join(".memory/.gitattributes"), "").unwrap();
    }
    remember(env, &a, "from-a", "Added in clone a").assert_success();
    git(env, &a, &["push", "--quiet", "origin", "main"]);
    remember(env, &b, "from-b", "Added in clone b").assert_success();
    let (code, text) = git_run(env, &b, &["pull", "--quiet", "--no-edit", "origin", "main"]);
    assert_ne!(code, 0, "{text}");
    assert!(clones.catalog("b").contains("<<<<<<<"));
    memctl(env, &b, &["list"]).assert_success();
    let catalog = clones.catalog("b");
    assert!(!catalog.contains("<<<<<<<"), "{catalog}");
    assert!(
        catalog.contains("[from-a]") && catalog.contains("[from-b]"),
        "{catalog}"
    );
    memctl(env, &b, &["check"]).assert_success();
}

/// Issue 9: a dream asked to commit says what it did in the message, and
/// commits the merged record, the merged-away record's removal and its
/// tombstone together.
#[test]
fn dream_commit_message_says_what_was_merged() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    for name in ["deploy-one", "deploy-two"] {
        let record = format!(
            "---\nname: {name}\ndescription: Deploys go through make release\ntype: project\n---\nDeploys go through make release.\n"
        );
        fs::write(a.join(format!(".memory/{name}.md")), record).unwrap();
    }
    git(env, &a, &["add", "-A"]);
    git(env, &a, &["commit", "-qm", "two copies"]);
    memctl(env, &a, &["dream", "--yes", "--commit"]).assert_success();
    let subject = git(env, &a, &["log", "-1", "--format=%s"]);
    assert!(
        subject.starts_with("dream: merge deploy-one, deploy-two into deploy-"),
        "{subject}"
    );
    let status = git(env, &a, &["status", "--porcelain", "--", ".memory"]);
    assert_eq!(
        status.trim(),
        "",
        "everything the dream changed is committed"
    );
}

/// Issue 9: an agent's write through `memctl mcp` is committed like a
/// person's when the store's `.memctl.toml` asks for it.
#[test]
fn mcp_writes_are_committed_when_the_store_asks() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    fs::write(a.join(".memory/.memctl.toml"), "[git]\ncommit = true\n").unwrap();
    let store = a.join(".memory").display().to_string();
    let mut session = crate::mcp::RawSession::start_with(env, &["--store", &store]);
    let (text, is_error) = session.call(
        5,
        "remember",
        serde_json::json!({"name": "agent-note", "type": "project", "description": "Noted by an agent", "body": "The agent noted this."}),
    );
    assert!(!is_error, "{text}");
    assert!(session.close().success());
    let subject = git(env, &a, &["log", "-1", "--format=%s"]);
    assert_eq!(subject.trim(), "remember: add agent-note");
    // Only the setting itself, the user's own file, is left uncommitted.
    let status = git(env, &a, &["status", "--porcelain", "--", ".memory"]);
    assert_eq!(
        status.trim(),
        "?? .memory/.memctl.toml",
        "the agent's write is committed whole"
    );
}
