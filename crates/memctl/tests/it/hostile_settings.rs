//! A store's `.memctl.toml` is a clone's file (issue 25 item 2): committed
//! as a link to `~/.netrc`, every write, the hook and the MCP server used
//! to print a TOML error quoting the target's line, token included; as a
//! link to `/dev/zero` a write read until memory ran out; as a pipe it hung;
//! `check` said nothing. Now each is refused unread, named, and never
//! quoted, and `check` names it.

use std::fs::{self, File};

use serde_json::json;

use crate::env::{Run, TestEnv};
use crate::hook_lifecycle::event;
use crate::mcp::RawSession;

const SECRET: &str = "hunter2-do-not-print";

/// The ways a clone can make `.memctl.toml` hostile.
#[derive(Clone, Copy, Debug)]
enum Hostile {
    LinkToSecret,
    LinkToZero,
    Pipe,
    Huge,
    SyntaxError,
}

impl Hostile {
    const ALL: [Hostile; 5] = [
        Hostile::LinkToSecret,
        Hostile::LinkToZero,
        Hostile::Pipe,
        Hostile::Huge,
        Hostile::SyntaxError,
    ];

    /// Puts this `.memctl.toml` in the store in place of any other.
    fn make(self, env: &TestEnv) {
        let settings = env.store().join(".memctl.toml");
        let _ = fs::remove_file(&settings);
        match self {
            Hostile::LinkToSecret => {
                let secret = env.root().join("home/.netrc");
                let line = format!("machine example.com login me password {SECRET}\n");
                fs::write(&secret, line).unwrap();
                std::os::unix::fs::symlink(&secret, &settings).unwrap();
            }
            Hostile::LinkToZero => std::os::unix::fs::symlink("/dev/zero", &settings).unwrap(),
            Hostile::Pipe => {
                let made = std::process::Command::new("mkfifo")
                    .arg(&settings)
                    .status()
                    .unwrap();
                assert!(made.success());
            }
            // 200 MB, sparse: no disk is spent on it.
            Hostile::Huge => File::create(&settings)
                .unwrap()
                .set_len(200_000_000)
                .unwrap(),
            Hostile::SyntaxError => {
                fs::write(&settings, format!("[git]\npassword = {SECRET}\n")).unwrap();
            }
        }
    }

    /// What memctl must say of it.
    fn said(self) -> &'static str {
        match self {
            Hostile::LinkToSecret => "a symbolic link (to ",
            Hostile::LinkToZero => "a symbolic link (to /dev/zero)",
            Hostile::Pipe => "a pipe, socket or device, not a regular file",
            Hostile::Huge => "200000000 bytes, more than memctl reads",
            Hostile::SyntaxError => "not valid TOML at line 2, column 12",
        }
    }
}

#[track_caller]
fn names_it_unquoted(what: &str, run: &Run, expected: &str) {
    let all = run.all_output();
    assert!(
        all.contains(".memctl.toml") && all.contains(expected),
        "{what}: {}",
        run.render()
    );
    assert!(!all.contains(SECRET), "{what}: quoted: {}", run.render());
}

#[test]
fn a_hostile_memctl_toml_is_named_never_quoted_never_waited_on_by_every_command() {
    let mut env = TestEnv::new();
    env.set_var("MEMCTL_DREAM_MIN_HOURS", "0");
    env.set_var("MEMCTL_DREAM_MIN_WRITES", "0");
    env.set_var("MEMCTL_DREAM_SCAN_MINUTES", "0");
    for (i, hostile) in Hostile::ALL.into_iter().enumerate() {
        hostile.make(&env);
        let (what, expected) = (format!("{hostile:?}"), hostile.said());
        let what = what.as_str();
        let name = format!("record-{i}");
        // Each unlike the last one forgotten, which its tombstone refuses.
        let description = [
            "Deploys go out on Tuesdays",
            "The CI cache holds the cargo registry",
            "Invoices round once at the end",
            "Logs rotate every night at two",
            "The search index lives in the cache folder",
        ][i];
        let remember = env.run(&[
            "remember",
            "--yes",
            "--name",
            &name,
            "-t",
            "project",
            "-d",
            description,
            description,
        ]);
        names_it_unquoted(what, &remember, expected);
        let forget = env.run(&["forget", "--yes", &name]);
        names_it_unquoted(what, &forget, expected);

        let start = event(&env, "claude-code", "session-start.json", |_| {});
        let hook = env.run_stdin(&["hook", "claude-code"], &start);
        hook.assert_success();
        names_it_unquoted(what, &hook, expected);

        let check = env.run(&["check"]);
        check.assert_code(1);
        names_it_unquoted(what, &check, expected);

        let mut session = RawSession::start(&env);
        let (text, _) = session.call(
            2,
            "remember",
            json!({"name": format!("mcp-{i}"), "type": "project",
                   "description": "Written by an agent beside a hostile settings file", "body": "b"}),
        );
        let (status, stderr) = session.close_with_stderr();
        assert!(status.success(), "{what}: {stderr}");
        // Said on the server's standard error (clients keep it in log
        // files), never quoted there or to the agent.
        assert!(!text.contains(SECRET), "{what}: {text}");
        assert!(
            stderr.contains(".memctl.toml") && stderr.contains(expected),
            "{what}: {stderr}"
        );
        assert!(!stderr.contains(SECRET), "{what}: {stderr}");
    }
}
