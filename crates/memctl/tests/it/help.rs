//! Help that teaches (issue 28, clig.dev): every command's `--help`, pinned
//! whole, with its examples, the exit codes and the global options apart;
//! the man page made from the same parser; `-n` and `setup` as documented.

use crate::env::TestEnv;

const COMMANDS: &[&str] = &[
    "init",
    "remember",
    "forget",
    "list",
    "show",
    "edit",
    "log",
    "check",
    "status",
    "search",
    "reindex",
    "watch",
    "mcp",
    "dream",
    "completions",
    "extract",
    "review",
    "context",
    "hook",
    "setup",
    "model",
    "man",
];

#[test]
fn help_of_every_command() {
    let env = TestEnv::bare();
    let mut all = env.run(&["--help"]).assert_success().stdout.clone();
    for command in COMMANDS {
        let run = env.run(&[command, "--help"]);
        run.assert_success();
        assert!(
            run.stdout.contains("Examples:")
                && run.stdout.contains("Exit codes:")
                && run.stdout.contains("Global options:"),
            "{}",
            run.render()
        );
        all += &format!("\n===== memctl {command} --help\n{}", run.stdout);
    }
    env.insta_settings()
        .bind(|| insta::assert_snapshot!("help_of_every_command", all));
}

#[test]
fn man_page_is_made_from_the_parser() {
    let env = TestEnv::bare();
    let page = env.run(&["man"]);
    page.assert_success();
    assert!(
        page.stdout.starts_with(".ie") || page.stdout.contains(".TH memctl"),
        "{}",
        page.render()
    );
    assert!(page.stdout.contains("remember") && page.stdout.contains("Exit codes"));
    let search = env.run(&["man", "search"]);
    search.assert_success();
    assert!(
        search.stdout.contains(".TH memctl-search"),
        "{}",
        search.render()
    );
    assert!(search.stdout.contains("limit"));
    env.run(&["man", "nope"]).assert_code(2);
    let dir = env.root().join("man1");
    env.run(&["man", "--dir", dir.to_str().expect("utf-8")])
        .assert_success();
    assert!(dir.join("memctl.1").is_file() && dir.join("memctl-search.1").is_file());
}

#[test]
fn setup_prints_without_print_and_remember_still_takes_n_for_its_name() {
    let env = TestEnv::new();
    let setup = env.run(&["setup", "claude-code"]);
    setup.assert_success();
    assert!(
        setup.stdout.contains("hook claude-code"),
        "{}",
        setup.render()
    );
    env.run(&[
        "remember",
        "-n",
        "short-name",
        "-t",
        "project",
        "-d",
        "What -n names",
        "--yes",
        "body",
    ])
    .assert_success();
    let hits = env.run(&["search", "-n", "1", "names", "--json"]);
    assert_eq!(hits.hit_ids(), ["short-name"], "{}", hits.render());
}

#[test]
fn status_and_check_speak_json() {
    let env = TestEnv::new();
    env.remember("node", "project", "Node 22 is required", "Use Node 22.");
    env.write_store_file("broken.md", "---\nname: broken\n---\nno type\n");
    let status = env.run(&["status", "--json"]);
    status.assert_success();
    let json = status.json();
    assert_eq!(json["stores"][0]["scope"], "workspace", "{json:#}");
    assert_eq!(json["stores"][0]["records"], 2, "{json:#}");
    assert_eq!(json["stores"][1]["state"], "not created", "{json:#}");
    let check = env.run(&["check", "--json"]);
    check.assert_code(1);
    let json = check.json();
    assert!(json["problems"].as_u64() >= Some(1), "{json:#}");
    let findings = json["findings"].as_array().expect("findings");
    assert!(
        findings.iter().any(
            |f| f["path"].as_str().is_some_and(|p| p.ends_with("broken.md"))
                && f["severity"] == "error"
                && f.get("line").is_some()
        ),
        "{json:#}"
    );
}
