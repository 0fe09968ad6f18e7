//! One test per bug these tests found in how a store's files are read and
//! written (skipped, too large, a pipe, a huge revision, permissions, ids
//! that differ only in case, NUL), named after the bug.

use std::fs;

use pretty_assertions::assert_eq;

use crate::env::TestEnv;

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
