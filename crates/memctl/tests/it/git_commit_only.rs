//! Issue 15 item 6, "git commits what is committed": a commit memctl makes
//! holds the write's own files and a `MEMORY.md` of the records the commit
//! holds, whatever the user has staged or left untracked beside them; the
//! user's index keeps their staged changes; `memctl log` follows history
//! through merges. With the real `git`, through the real binary.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::env::TestEnv;
use crate::git::{Clones, git, git_env, git_run, identify, memctl, remember};

const DRAFT: &str = "---\nname: draft\ndescription: A draft the user has not committed\ntype: project\n---\nNot ready to share yet.\n";

/// Stages a hand-written record and a project file in the clone at `dir`,
/// as a user midway through their own commit would; what they staged.
fn stage_a_draft(env: &TestEnv, dir: &Path) -> String {
    fs::write(dir.join("README.md"), "The project.\n").unwrap();
    fs::write(dir.join(".memory/draft.md"), DRAFT).unwrap();
    git(env, dir, &["add", "README.md", ".memory/draft.md"]);
    users_staged(env, dir)
}

/// The user's staged changes as a patch, `MEMORY.md` aside (memctl keeps
/// the index's one listing the records the index holds).
fn users_staged(env: &TestEnv, dir: &Path) -> String {
    git(
        env,
        dir,
        &[
            "diff",
            "--cached",
            "--binary",
            "--",
            ".",
            ":(exclude).memory/MEMORY.md",
        ],
    )
}

/// `git show SPEC` in `dir`: a file of a commit, or of the index (`:PATH`).
fn show(env: &TestEnv, dir: &Path, spec: &str) -> String {
    git(env, dir, &["show", spec])
}

/// The files the last commit changed, one per line.
fn last_commit_files(env: &TestEnv, dir: &Path) -> String {
    git(
        env,
        dir,
        &[
            "-c",
            "core.quotepath=off",
            "show",
            "--name-only",
            "--format=",
            "HEAD",
        ],
    )
    .trim()
    .to_string()
}

/// A clone of what `dir` has committed passes `memctl check`: its
/// `MEMORY.md` points to no file the commit does not contain.
#[track_caller]
fn a_fresh_clone_passes_check(env: &TestEnv, dir: &Path, name: &str) {
    let source = dir.display().to_string();
    git(env, env.root(), &["clone", "--quiet", &source, name]);
    let clone = env.root().join(name);
    let check = memctl(env, &clone, &["check"]);
    check.assert_success();
}

/// After a commit of memctl's in `dir` with a draft staged: the commit
/// leaves it out, `MEMORY.md` in the commit does not list it while the
/// working tree's and the index's do, and the user's staged changes are
/// as they were, byte for byte.
#[track_caller]
fn the_draft_stayed_out(env: &TestEnv, dir: &Path, subject: &str, staged: &str) {
    let last = git(env, dir, &["log", "-1", "--format=%s"]);
    assert_eq!(last.trim(), subject, "a commit was made");
    let committed = show(env, dir, "HEAD:.memory/MEMORY.md");
    assert!(!committed.contains("[draft]"), "{committed}");
    let tree = git(
        env,
        dir,
        &["ls-tree", "--name-only", "HEAD", "--", ".memory/"],
    );
    assert!(!tree.contains("draft.md"), "{tree}");
    assert!(!last_commit_files(env, dir).contains("README.md"));
    let on_disk = fs::read_to_string(dir.join(".memory/MEMORY.md")).unwrap();
    assert!(on_disk.contains("[draft]"), "SPEC §3: {on_disk}");
    let in_index = show(env, dir, ":.memory/MEMORY.md");
    assert!(in_index.contains("[draft]"), "{in_index}");
    assert_eq!(users_staged(env, dir), staged);
}

/// Issue 15 item 6: with a hand-written record staged but not committed,
/// `remember --commit` committed a `MEMORY.md` listing it: the commit
/// pointed to a file it did not contain, `check` failed on other clones.
#[test]
fn remember_commit_with_a_staged_only_record_commits_a_memory_md_without_it() {
    let clones = Clones::new();
    let env = &clones.env;
    let (a, b) = (clones.dir("a"), clones.dir("b"));
    let staged = stage_a_draft(env, &a);
    let run = remember(env, &a, "second", "Committed by memctl");
    run.assert_success();
    assert!(
        run.stderr
            .contains("Left out of the commit, as the last commit does not hold it either: draft."),
        "{}",
        run.render()
    );
    the_draft_stayed_out(env, &a, "remember: add second", &staged);
    assert_eq!(
        last_commit_files(env, &a),
        ".memory/MEMORY.md\n.memory/second.md"
    );
    let committed = show(env, &a, "HEAD:.memory/MEMORY.md");
    assert!(
        committed.contains("[second]") && committed.contains("[shared]"),
        "{committed}"
    );

    git(env, &a, &["push", "--quiet", "origin", "main"]);
    git(env, &b, &["pull", "--quiet", "origin", "main"]);
    memctl(env, &b, &["check"]).assert_success();

    // The user's own commit of what they staged is whole too: the index's
    // MEMORY.md lists the draft.
    git(
        env,
        &a,
        &["commit", "--quiet", "--message", "the draft is ready"],
    );
    assert!(show(env, &a, "HEAD:.memory/MEMORY.md").contains("[draft]"));
    assert_eq!(git(env, &a, &["status", "--porcelain"]), "");
    a_fresh_clone_passes_check(env, &a, "fresh");
}

/// Issue 15 item 6: a record file never `git add`ed is left out the same
/// way; `git status` then shows the working tree's MEMORY.md as changed,
/// which it is: it lists a record no commit holds.
#[test]
fn remember_commit_with_an_untracked_record_leaves_it_and_its_line_out() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    fs::write(a.join(".memory/draft.md"), DRAFT).unwrap();
    remember(env, &a, "second", "Committed by memctl").assert_success();
    assert!(!show(env, &a, "HEAD:.memory/MEMORY.md").contains("[draft]"));
    assert_eq!(
        git(env, &a, &["status", "--porcelain"]),
        " M .memory/MEMORY.md\n?? .memory/draft.md\n"
    );
    a_fresh_clone_passes_check(env, &a, "fresh");
}

/// A record changed or removed by hand and not committed is in the commit
/// as `HEAD` has it, so the committed MEMORY.md describes it as `HEAD` does
/// (read from git's blob), not as the working tree does.
#[test]
fn hand_changes_not_committed_leave_the_committed_memory_md_as_head_has_them() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    remember(
        env,
        &a,
        "removed-by-hand",
        "Committed, then deleted by hand",
    )
    .assert_success();
    let shared = a.join(".memory/shared.md");
    let text = fs::read_to_string(&shared).unwrap();
    let edited = text.replace(
        "description: A record both clones have",
        "description: Changed by hand, not committed",
    );
    assert_ne!(text, edited);
    fs::write(&shared, edited).unwrap();
    fs::remove_file(a.join(".memory/removed-by-hand.md")).unwrap();

    remember(env, &a, "new", "Committed by memctl").assert_success();
    let committed = show(env, &a, "HEAD:.memory/MEMORY.md");
    for line in [
        "[shared](shared.md) — A record both clones have",
        "[removed-by-hand](removed-by-hand.md)",
        "[new](new.md)",
    ] {
        assert!(committed.contains(line), "{line}:\n{committed}");
    }
    assert!(!committed.contains("Changed by hand"), "{committed}");
    let on_disk = fs::read_to_string(a.join(".memory/MEMORY.md")).unwrap();
    assert!(
        on_disk.contains("Changed by hand") && !on_disk.contains("[removed-by-hand]"),
        "{on_disk}"
    );
    assert_eq!(
        git(env, &a, &["diff", "--cached"]),
        "",
        "nothing is left staged"
    );
    a_fresh_clone_passes_check(env, &a, "fresh");
}

/// On a branch with no commit yet, the first commit holds the write's
/// records alone, and its MEMORY.md lists them alone.
#[test]
fn first_commit_of_a_new_repository_lists_only_the_records_it_holds() {
    let mut env = TestEnv::bare();
    git_env(&mut env);
    let work = env.work().to_path_buf();
    git(&env, &work, &["init", "--quiet"]);
    identify(&env, &work, "solo");
    env.run(&["init"]).assert_success();
    env.write_record("by-hand", "project", "Written by hand", "Body.");
    remember(&env, &work, "first", "The first committed record").assert_success();
    assert_eq!(
        last_commit_files(&env, &work),
        ".memory/.gitattributes\n.memory/MEMORY.md\n.memory/first.md"
    );
    let committed = show(&env, &work, "HEAD:.memory/MEMORY.md");
    assert!(
        committed.contains("[first]") && !committed.contains("[by-hand]"),
        "{committed}"
    );
    a_fresh_clone_passes_check(&env, &work, "fresh");
}

/// Issue 15 item 6: `forget --commit` of a staged-only record printed a raw
/// `pathspec … did not match` git error, exited 0 and left the tombstone
/// staged. Now it commits the tombstone, says the record was in no commit,
/// and leaves the user's other staged changes as they were.
#[test]
fn forget_commit_of_a_staged_only_record_commits_its_tombstone_without_a_git_error() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    stage_a_draft(env, &a);
    let readme = git(env, &a, &["diff", "--cached", "--", "README.md"]);
    let run = memctl(env, &a, &["forget", "--yes", "--commit", "draft"]);
    run.assert_success();
    let said = run.all_output();
    assert!(
        !said.contains("pathspec") && !said.contains("warning"),
        "{said}"
    );
    assert!(
        run.stderr.contains("Committed ")
            && run.stderr.contains(
                "The last commit did not hold draft, so git had nothing of it to remove."
            ),
        "{}",
        run.render()
    );
    assert_eq!(last_commit_files(env, &a), ".memory/.tombstones/draft.json");
    // Forgotten, so no longer staged; the tombstone is committed, not
    // staged; the user's README is staged as it was.
    assert_eq!(git(env, &a, &["status", "--porcelain"]), "A  README.md\n");
    assert_eq!(
        git(env, &a, &["diff", "--cached", "--", "README.md"]),
        readme
    );
    memctl(env, &a, &["check"]).assert_success();
    a_fresh_clone_passes_check(env, &a, "fresh");
}

/// Issue 15 item 6: the rule has one home, so every command that commits
/// keeps a staged-only record out: `edit`, `forget` of another record,
/// `dream`, `extract` and an agent's write through `memctl mcp`.
#[test]
fn every_writing_command_keeps_a_staged_only_record_out_of_its_commit() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    for name in ["deploy-one", "deploy-two"] {
        let record = format!(
            "---\nname: {name}\ndescription: Deploys go through make release\ntype: project\n---\nDeploys go through make release.\n"
        );
        fs::write(a.join(format!(".memory/{name}.md")), record).unwrap();
    }
    git(env, &a, &["add", ".memory"]);
    git(env, &a, &["commit", "--quiet", "--message", "two copies"]);
    let staged = stage_a_draft(env, &a);

    let editor = env.script(
        "editor",
        r#"sed -i 's/^description: .*/description: Edited in the editor/' "$1""#,
    );
    let mut edit = env.command();
    edit.current_dir(&a)
        .env("EDITOR", editor.display().to_string());
    env.run_with(edit, &["edit", "--commit", "shared"])
        .assert_success();
    the_draft_stayed_out(env, &a, "edit: shared", &staged);

    remember(env, &a, "short-lived", "Remembered, then forgotten").assert_success();
    memctl(env, &a, &["forget", "--yes", "--commit", "short-lived"]).assert_success();
    the_draft_stayed_out(env, &a, "forget: short-lived", &staged);

    memctl(env, &a, &["dream", "--yes", "--commit"]).assert_success();
    let subject = git(env, &a, &["log", "-1", "--format=%s"]);
    assert!(
        subject.starts_with("dream: merge deploy-one, deploy-two"),
        "{subject}"
    );
    the_draft_stayed_out(env, &a, subject.trim(), &staged);

    extract_with_commit(env, &a).assert_success();
    the_draft_stayed_out(
        env,
        &a,
        "remember: add prefer-pnpm, pr-descriptions-short",
        &staged,
    );

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
    the_draft_stayed_out(env, &a, "remember: add agent-note", &staged);
    a_fresh_clone_passes_check(env, &a, "fresh");
}

/// `memctl extract --commit` in `dir`, with the fake model of the extract
/// tests answering two good candidates.
fn extract_with_commit(env: &TestEnv, dir: &Path) -> crate::env::Run {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/extract");
    let runner = format!("sh {}", fixtures.join("fake-model.sh").display());
    let transcript = fixtures.join("session.jsonl").display().to_string();
    let mut cmd = env.command();
    cmd.current_dir(dir)
        .env("FAKE_MODEL_STDIN", env.root().join("model-stdin.json"))
        .env("FAKE_MODEL_ANSWER", fixtures.join("answers/good.json"));
    env.run_with(
        cmd,
        &[
            "extract",
            "--transcript",
            &transcript,
            "--llm-cmd",
            &runner,
            "--yes",
            "--commit",
        ],
    )
}

/// A commit the user's hook refuses changes no index: the user's staged
/// changes (and MEMORY.md's) are as they were, byte for byte, and no
/// temporary index is left in the git folder.
#[test]
fn a_commit_a_hook_refuses_leaves_the_users_index_as_it_was() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    stage_a_draft(env, &a);
    let hook = a.join(".git/hooks/pre-commit");
    fs::write(&hook, "#!/bin/sh\necho 'not today' >&2\nexit 1\n").unwrap();
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    let head = git(env, &a, &["rev-parse", "HEAD"]);
    let index = |env: &TestEnv| git(env, &a, &["diff", "--cached", "--binary"]);
    let before = index(env);

    let run = remember(env, &a, "refused", "Its commit is refused");
    run.assert_success();
    assert!(
        run.stderr.contains("the write is saved but not committed")
            && run.stderr.contains("not today"),
        "{}",
        run.render()
    );
    assert_eq!(git(env, &a, &["rev-parse", "HEAD"]), head);
    assert_eq!(index(env), before);
    let left: Vec<_> = fs::read_dir(a.join(".git"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("memctl-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Issue 15 item 6: after a merge, `memctl log ID` left out the losing
/// side's revisions (git's history simplification follows one parent).
#[test]
fn log_shows_the_losing_sides_revision_after_a_merge() {
    let clones = Clones::new();
    let env = &clones.env;
    let b = clones.dir("b");
    crate::git::conflicted(&clones);
    git(env, &b, &["checkout", "--ours", ".memory/shared.md"]);
    git(env, &b, &["add", ".memory/shared.md"]);
    git(env, &b, &["commit", "--quiet", "--no-edit"]);
    let log = memctl(env, &b, &["log", "shared"]);
    log.assert_success();
    assert!(
        log.stdout.contains("+description: The description a chose")
            && log.stdout.contains("+description: The description b chose"),
        "{}",
        log.render()
    );
}

/// Issue 15 item 6: `memctl log ID` left out the merge that removed the
/// record (a forget on one side, an edit on the other, resolved with
/// `git rm`) and the edit it dropped.
#[test]
fn log_shows_the_merge_that_removed_a_record_and_the_edit_it_dropped() {
    let clones = Clones::new();
    let env = &clones.env;
    let (a, b) = (clones.dir("a"), clones.dir("b"));
    memctl(env, &a, &["forget", "--yes", "--commit", "shared"]).assert_success();
    git(env, &a, &["push", "--quiet", "origin", "main"]);
    remember(env, &b, "shared", "Edited while a forgot it").assert_success();
    let (code, text) = git_run(env, &b, &["pull", "--quiet", "--no-edit", "origin", "main"]);
    assert_ne!(code, 0, "{text}");
    git(env, &b, &["rm", "--quiet", ".memory/shared.md"]);
    git(env, &b, &["commit", "--quiet", "--no-edit"]);

    let log = memctl(env, &b, &["log", "shared"]);
    log.assert_success();
    let subjects: Vec<&str> = log
        .stdout
        .lines()
        .filter(|l| l.starts_with("    "))
        .map(str::trim)
        .collect();
    for subject in [
        "forget: shared",
        "remember: update shared",
        "remember: add shared",
    ] {
        assert!(subjects.contains(&subject), "{subject}: {}", log.render());
    }
    assert!(
        subjects
            .iter()
            .any(|s| s.starts_with("Merge branch 'main'")),
        "{}",
        log.render()
    );
    // The merge's change against the side that still had the record.
    assert!(
        log.stdout
            .contains("-description: Edited while a forgot it"),
        "{}",
        log.render()
    );
}

/// `memctl log` of a record renamed by hand (`git mv`) showed only the
/// rename: its revisions under the old name belong to it too.
#[test]
fn log_of_a_record_renamed_by_hand_shows_its_revisions_before_the_rename() {
    let clones = Clones::new();
    let env = &clones.env;
    let a = clones.dir("a");
    remember(env, &a, "shared", "Second revision").assert_success();
    git(env, &a, &["mv", ".memory/shared.md", ".memory/renamed.md"]);
    git(
        env,
        &a,
        &["commit", "--quiet", "--message", "rename by hand"],
    );
    let log = memctl(env, &a, &["log", "renamed"]);
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
            "rename by hand",
            "remember: update shared",
            "remember: add shared"
        ],
        "{}",
        log.render()
    );
}

/// A store in a folder whose name has spaces and accents, and a draft
/// whose name looks like an option and a pattern: paths reach git as
/// themselves.
#[test]
fn a_store_in_an_oddly_named_folder_commits_its_catalogue_and_leaves_an_odd_draft_out() {
    let mut env = TestEnv::bare();
    git_env(&mut env);
    let work = env.work().to_path_buf();
    git(&env, &work, &["init", "--quiet"]);
    identify(&env, &work, "solo");
    let store = work.join("notes é/my memory");
    let store_arg = store.display().to_string();
    let odd = "-x *[a] é";
    fs::create_dir_all(&store).unwrap();
    memctl(&env, &work, &["--store", &store_arg, "init"]).assert_success();
    fs::write(store.join(format!("{odd}.md")), DRAFT).unwrap();
    git(
        &env,
        &work,
        &["add", "--", &format!("notes é/my memory/{odd}.md")],
    );
    memctl(
        &env,
        &work,
        &[
            "--store",
            &store_arg,
            "remember",
            "--yes",
            "--commit",
            "-t",
            "project",
            "-n",
            "kept",
            "-d",
            "A committed record",
            "Body.",
        ],
    )
    .assert_success();
    let entries = |text: &str| text.lines().filter(|l| l.starts_with("- [")).count();
    let committed = show(&env, &work, "HEAD:notes é/my memory/MEMORY.md");
    assert!(committed.contains("[kept]"), "{committed}");
    assert_eq!(entries(&committed), 1, "{committed}");
    let in_index = show(&env, &work, ":notes é/my memory/MEMORY.md");
    assert_eq!(entries(&in_index), 2, "{in_index}");
    let status = git(
        &env,
        &work,
        &["-c", "core.quotepath=off", "status", "--porcelain"],
    );
    assert_eq!(
        status,
        format!("A  \"notes é/my memory/{odd}.md\"\nM  \"notes é/my memory/MEMORY.md\"\n"),
        "the index's MEMORY.md lists the staged draft, the commit's does not"
    );
}
