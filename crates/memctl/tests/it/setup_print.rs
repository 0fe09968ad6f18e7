//! `memctl setup CLIENT --print` (issue 17 item 8): every snippet parses as
//! its client reads it, names this memctl by its absolute path (GUI clients
//! do not see `~/.cargo/bin`), and every command line in it is accepted by
//! memctl's own parser; nothing is written.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::env::{Run, TestEnv};

/// The binary the snippets must name: the test's memctl, canonicalised.
fn program() -> String {
    std::fs::canonicalize(env!("CARGO_BIN_EXE_memctl"))
        .unwrap()
        .display()
        .to_string()
}

fn setup(env: &TestEnv, args: &[&str]) -> Run {
    let mut all = vec!["setup"];
    all.extend(args);
    all.push("--print");
    let run = env.run(&all);
    run.assert_success();
    run
}

/// Checks `args` (memctl's arguments, the program left out) with the
/// parser: with `--help` added it exits 0 only if every one was accepted.
#[track_caller]
fn accepted(env: &TestEnv, args: &[String]) {
    let mut with_help: Vec<&str> = args.iter().map(String::as_str).collect();
    with_help.push("--help");
    let run = env.run(&with_help);
    assert_eq!(run.code, 0, "`memctl {}`: {}", args.join(" "), run.render());
}

/// A hook's command line, split as a shell does: the program first.
#[track_caller]
fn hook_args(command: &str) -> Vec<String> {
    let words = shell_words::split(command).unwrap();
    assert_eq!(words[0], program(), "{command}");
    words[1..].to_vec()
}

fn server_args(server: &Value) -> Vec<String> {
    assert_eq!(server["command"], program().as_str(), "{server}");
    server["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn claude_code_snippet_is_one_hook_for_every_event() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    let run = setup(&env, &["claude-code"]);
    let settings: Value = serde_json::from_str(&run.stdout).unwrap();
    let events: Vec<&String> = settings["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(events.len(), 3, "{events:?}");
    for event in ["SessionStart", "UserPromptSubmit", "SessionEnd"] {
        let hook = &settings["hooks"][event][0]["hooks"][0];
        assert_eq!(hook["type"], "command");
        assert!(hook["timeout"].as_u64().is_some_and(|t| t >= 2), "{hook}");
        let args = hook_args(hook["command"].as_str().unwrap());
        assert_eq!(args, ["hook", "claude-code"]);
        accepted(&env, &args);
    }
    assert!(
        run.stderr.contains("settings.json") && run.stderr.contains("claude mcp add"),
        "{}",
        run.stderr
    );
    assert_eq!(env.store_bytes(), before, "--print wrote something");
}

#[test]
fn codex_snippet_parses_as_toml_with_server_and_hooks() {
    let env = TestEnv::new();
    let run = setup(&env, &["codex"]);
    let table: toml::Table = toml::from_str(&run.stdout).unwrap();
    let server = &table["mcp_servers"]["memctl"];
    assert_eq!(server["command"].as_str(), Some(program().as_str()));
    let args: Vec<String> = server["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    assert_eq!(args, ["mcp"]);
    accepted(&env, &args);
    let events: Vec<&String> = table["hooks"].as_table().unwrap().keys().collect();
    assert_eq!(events, ["SessionEnd", "SessionStart", "UserPromptSubmit"]);
    // Codex 0.169 caps SessionEnd at 3 s (and warns at each start of a longer one).
    for (event, timeout) in [
        ("SessionStart", 10),
        ("UserPromptSubmit", 10),
        ("SessionEnd", 3),
    ] {
        let hook = &table["hooks"][event][0]["hooks"][0];
        assert_eq!(hook["type"].as_str(), Some("command"), "{event}");
        // Codex reads a command's time limit from `timeout` (codex-rs
        // `config/src/hook_config.rs`); `timeout_sec` it ignores, leaving
        // its default of 600 s (issue 27). The real Codex checks it too:
        // real_codex.rs trusts the hooks by the hash of what Codex read.
        assert_eq!(hook["timeout"].as_integer(), Some(timeout), "{event}");
        assert_eq!(hook.get("timeout_sec"), None, "{event}");
        let args = hook_args(hook["command"].as_str().unwrap());
        assert_eq!(args, ["hook", "codex"]);
        accepted(&env, &args);
    }
}

#[test]
fn mcp_client_snippets_use_each_clients_keys() {
    let env = TestEnv::new();
    for client in ["cursor", "claude-desktop"] {
        let run = setup(&env, &[client]);
        let value: Value = serde_json::from_str(&run.stdout).unwrap();
        let args = server_args(&value["mcpServers"]["memctl"]);
        assert_eq!(args, ["mcp"], "{client}");
        accepted(&env, &args);
    }
    // VS Code reads `servers`, each with its `type`.
    let run = setup(&env, &["vscode"]);
    let value: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(value.get("mcpServers"), None);
    let server = &value["servers"]["memctl"];
    assert_eq!(server["type"], "stdio");
    accepted(&env, &server_args(server));
    assert!(run.stderr.contains(".vscode/mcp.json"), "{}", run.stderr);
}

#[test]
fn a_store_given_to_setup_is_named_absolute_and_quoted_for_the_shell() {
    let env = TestEnv::new();
    let odd = env.root().join("my store's \"notes\" $HOME");
    std::fs::create_dir_all(&odd).unwrap();
    let odd = std::fs::canonicalize(&odd).unwrap();
    let odd_text = odd.display().to_string();
    let run = setup(&env, &["--store", &odd_text, "claude-code"]);
    let settings: Value = serde_json::from_str(&run.stdout).unwrap();
    let command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    let args = hook_args(command);
    assert_eq!(args, ["--store", odd_text.as_str(), "hook", "claude-code"]);
    accepted(&env, &args);
    let run = setup(&env, &["--store", &odd_text, "vscode"]);
    let value: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        server_args(&value["servers"]["memctl"]),
        ["--store", odd_text.as_str(), "mcp"]
    );
    // A relative store is made absolute: a GUI client starts elsewhere.
    let relative = setup(&env, &["--store", ".memory", "cursor"]);
    let value: Value = serde_json::from_str(&relative.stdout).unwrap();
    let args = server_args(&value["mcpServers"]["memctl"]);
    assert!(Path::new(&args[1]).is_absolute(), "{args:?}");
    assert_eq!(
        PathBuf::from(&args[1]),
        std::fs::canonicalize(env.store()).unwrap()
    );
}

/// Printing is setup's only mode: `--print` may be left out (issue 28).
#[test]
fn setup_without_print_prints_the_same_and_writes_nothing() {
    let env = TestEnv::new();
    let before = crate::env::files_under(env.root());
    let run = env.run(&["setup", "claude-code"]);
    assert_eq!(run.code, 0, "{}", run.render());
    assert_eq!(
        run.stdout,
        env.run(&["setup", "claude-code", "--print"]).stdout
    );
    assert_eq!(crate::env::files_under(env.root()), before);
    let unknown = env.run(&["setup", "emacs", "--print"]);
    assert_eq!(unknown.code, 2, "{}", unknown.render());
}
