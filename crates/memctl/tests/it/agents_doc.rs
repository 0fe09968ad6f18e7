//! docs/agents.md cannot rot: every fenced `json` and `toml` block in it
//! parses, the configurations it shows have the shape Claude Code, Codex
//! and MCP clients read, and every `memctl` command line in them (and in
//! its `sh` blocks) is accepted by memctl's own argument parser.

use std::path::Path;

use serde_json::Value;

use crate::env::TestEnv;

/// Subcommands the page documents that other branches of issue 8 build
/// (`context`, `mcp`). Until they are merged, a command line using one is
/// reported as skipped; once the binary has them, they are checked like
/// every other.
const BUILT_ELSEWHERE: &[&str] = &["context", "mcp"];

pub(crate) struct Block {
    pub(crate) lang: String,
    pub(crate) text: String,
    /// The line of the opening fence, for messages.
    pub(crate) line: usize,
}

fn agents_md() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/agents.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The fenced blocks of `markdown`: a line starting with three backticks
/// opens one (its info string is the language) and the next such line closes it.
pub(crate) fn fenced_blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (n, line) in markdown.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    lang: info.trim().to_string(),
                    text: String::new(),
                    line: n + 1,
                });
            }
            (Some(_), Some(_)) => blocks.extend(open.take()),
            (Some(block), None) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "a document ends inside a fenced block");
    blocks
}

/// The arguments of every memctl command line in a JSON value: a string
/// `"memctl …"`, or an object with `"command": "memctl"` and `"args"`.
fn json_command_lines(value: &Value, out: &mut Vec<Vec<String>>) {
    match value {
        Value::String(text) => {
            if let Some(rest) = text.strip_prefix("memctl ") {
                out.push(shell_words::split(rest).expect("a command line splits into words"));
            }
        }
        Value::Array(values) => values.iter().for_each(|v| json_command_lines(v, out)),
        Value::Object(map) => {
            if map.get("command").and_then(Value::as_str) == Some("memctl") {
                let args = map
                    .get("args")
                    .and_then(Value::as_array)
                    .map_or_else(Vec::new, |a| {
                        a.iter()
                            .map(|v| v.as_str().expect("args are strings").to_string())
                            .collect()
                    });
                out.push(args);
            }
            map.values().for_each(|v| json_command_lines(v, out));
        }
        _ => {}
    }
}

/// The arguments of every memctl command line in a TOML table: an MCP
/// server's `command = "memctl"` with its `args`, or a hook's
/// `command = "memctl …"`, in tables and arrays of tables.
fn toml_command_lines(table: &toml::Table, out: &mut Vec<Vec<String>>) {
    if let Some(rest) = table
        .get("command")
        .and_then(toml::Value::as_str)
        .and_then(|c| c.strip_prefix("memctl "))
    {
        out.push(shell_words::split(rest).expect("a command line splits into words"));
    }
    if table.get("command").and_then(toml::Value::as_str) == Some("memctl") {
        let args = table
            .get("args")
            .and_then(toml::Value::as_array)
            .map_or_else(Vec::new, |a| {
                a.iter()
                    .map(|v| v.as_str().expect("args are strings").to_string())
                    .collect()
            });
        out.push(args);
    }
    for value in table.values() {
        toml_value_command_lines(value, out);
    }
}

fn toml_value_command_lines(value: &toml::Value, out: &mut Vec<Vec<String>>) {
    match value {
        toml::Value::Table(inner) => toml_command_lines(inner, out),
        toml::Value::Array(values) => values.iter().for_each(|v| toml_value_command_lines(v, out)),
        _ => {}
    }
}

/// `memctl …` lines of a shell block, continuation lines joined and
/// trailing comments removed.
fn sh_command_lines(text: &str, out: &mut Vec<Vec<String>>) {
    let joined = text.replace("\\\n", " ");
    for line in joined.lines() {
        let line = line.split("  #").next().unwrap_or_default().trim();
        if let Some(rest) = line.strip_prefix("memctl ") {
            let mut words = shell_words::split(rest).expect("a command line splits into words");
            // The shell's, not memctl's: a redirection, a pipe, the next command.
            if let Some(at) = words
                .iter()
                .position(|w| [">", ">>", "<", "|", "&&", ";"].contains(&w.as_str()))
            {
                words.truncate(at);
            }
            out.push(words);
        }
    }
}

/// Checks one command line with memctl's parser: the line with `--help`
/// added exits 0 only if every argument before it was accepted. Returns
/// false when the line is skipped (a subcommand built elsewhere, absent).
fn accepted(env: &TestEnv, args: &[String]) -> bool {
    let mut with_help: Vec<&str> = args.iter().map(String::as_str).collect();
    // Before a `--`, after which `--help` would be a word of the body.
    let at = with_help.iter().position(|a| *a == "--");
    with_help.insert(at.unwrap_or(with_help.len()), "--help");
    let run = env.run(&with_help);
    let subcommand = args
        .iter()
        .find(|a| !a.starts_with('-') && !a.contains('/'))
        .map(String::as_str)
        .unwrap_or_default();
    if run.code == 2
        && run.stderr.contains("unrecognized subcommand")
        && BUILT_ELSEWHERE.contains(&subcommand)
    {
        eprintln!(
            "skipped: memctl {} (no `{subcommand}` subcommand in this build)",
            args.join(" ")
        );
        return false;
    }
    assert_eq!(
        run.code,
        0,
        "docs: `memctl {}` is not accepted by memctl\n{}",
        args.join(" "),
        run.render()
    );
    true
}

fn hook_commands(settings: &Value, event: &str) -> Vec<String> {
    settings["hooks"][event]
        .as_array()
        .unwrap_or_else(|| panic!("hooks.{event} is an array"))
        .iter()
        .flat_map(|group| {
            group["hooks"]
                .as_array()
                .unwrap_or_else(|| panic!("hooks.{event}[].hooks is an array"))
                .iter()
                .map(|hook| {
                    assert_eq!(hook["type"], "command", "{hook}");
                    hook["command"]
                        .as_str()
                        .expect("a command string")
                        .to_string()
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn agents_md_configuration_snippets_parse_and_their_memctl_commands_are_accepted() {
    let markdown = agents_md();
    let blocks = fenced_blocks(&markdown);
    let mut lines = Vec::new();
    let (mut hooks, mut mcp_json, mut codex, mut codex_hooks) = (false, false, false, false);
    for block in &blocks {
        match block.lang.as_str() {
            "json" => {
                let value: Value = serde_json::from_str(&block.text).unwrap_or_else(|e| {
                    panic!(
                        "docs/agents.md:{}: json block does not parse: {e}",
                        block.line
                    )
                });
                if value.get("hooks").is_some() {
                    // The one hook entry, for every event it answers.
                    for event in ["SessionStart", "UserPromptSubmit", "SessionEnd"] {
                        let commands = hook_commands(&value, event);
                        assert_eq!(commands, ["memctl hook claude-code"], "{event}");
                    }
                    hooks = true;
                }
                if let Some(server) = value.get("mcpServers").and_then(|s| s.get("memctl")) {
                    assert_eq!(server["command"], "memctl", "{server}");
                    mcp_json = true;
                }
                json_command_lines(&value, &mut lines);
            }
            "toml" => {
                let table: toml::Table = toml::from_str(&block.text).unwrap_or_else(|e| {
                    panic!(
                        "docs/agents.md:{}: toml block does not parse: {e}",
                        block.line
                    )
                });
                if table.contains_key("model") {
                    // The user's own config.toml, read as memctl reads it.
                    if let Err(e) =
                        toml::from_str::<mdagent::config::user_file::UserConfig>(&block.text)
                    {
                        panic!(
                            "docs/agents.md:{}: not a memctl config.toml: {e}",
                            block.line
                        );
                    }
                    continue;
                }
                let server = table
                    .get("mcp_servers")
                    .and_then(|s| s.get("memctl"))
                    .unwrap_or_else(|| {
                        panic!("docs/agents.md:{}: no [mcp_servers.memctl]", block.line)
                    });
                if server.get("command").is_none() {
                    // A tool's approval alone, as Codex reads it.
                    let mode = server["tools"]["remember"]["approval_mode"].as_str();
                    assert_eq!(mode, Some("approve"), "docs/agents.md:{}", block.line);
                    continue;
                }
                assert!(server.get("args").and_then(toml::Value::as_array).is_some());
                if let Some(hooks) = table.get("hooks") {
                    for event in ["SessionStart", "UserPromptSubmit", "SessionEnd"] {
                        let command = hooks[event][0]["hooks"][0]["command"].as_str();
                        assert_eq!(command, Some("memctl hook codex"), "{event}");
                    }
                    codex_hooks = true;
                }
                codex = true;
                toml_command_lines(&table, &mut lines);
            }
            "sh" => sh_command_lines(&block.text, &mut lines),
            _ => {}
        }
    }
    assert!(
        hooks && mcp_json && codex && codex_hooks,
        "hooks {hooks}, .mcp.json {mcp_json}, Codex {codex}, Codex hooks {codex_hooks}"
    );
    let env = TestEnv::new();
    let checked = lines.iter().filter(|args| accepted(&env, args)).count();
    assert!(
        lines
            .iter()
            .any(|a| a.first().is_some_and(|s| s == "extract")),
        "the page shows extract"
    );
    assert!(
        checked >= 6,
        "only {checked} of {} command lines were checked",
        lines.len()
    );
}

#[test]
fn command_line_checker_rejects_an_option_memctl_does_not_have() {
    let env = TestEnv::new();
    let run = env.run(&[
        "extract",
        "--transcript",
        "x.jsonl",
        "--llm",
        "claude -p",
        "--help",
    ]);
    assert_eq!(run.code, 2, "{}", run.render());
    let mut lines = Vec::new();
    sh_command_lines(
        "memctl extract --transcript s.jsonl \\\n  --dry-run   # see\nls\n",
        &mut lines,
    );
    assert_eq!(lines, [["extract", "--transcript", "s.jsonl", "--dry-run"]]);
}

/// What `memctl setup CLIENT --print` prints, with this memctl's absolute
/// path written `memctl`, as the page shows it.
fn setup_block(env: &TestEnv, client: &str) -> String {
    let run = env.run(&["setup", client, "--print"]);
    run.assert_success();
    let program = std::fs::canonicalize(env!("CARGO_BIN_EXE_memctl")).unwrap();
    run.stdout.replace(&program.display().to_string(), "memctl")
}

/// The page shows, for each agent, the one hook block `setup --print`
/// prints (issue 27: one block per client, the one the real clients run).
#[test]
fn agents_md_shows_the_hook_blocks_setup_prints() {
    let env = TestEnv::new();
    let blocks = fenced_blocks(&agents_md());
    let claude: Value = serde_json::from_str(&setup_block(&env, "claude-code")).unwrap();
    let shown: Vec<Value> = blocks
        .iter()
        .filter(|b| b.lang == "json")
        .filter_map(|b| serde_json::from_str::<Value>(&b.text).ok())
        .filter(|v| v.get("hooks").is_some())
        .collect();
    assert_eq!(shown, [claude], "docs/agents.md: the Claude Code block");
    let codex: toml::Table = toml::from_str(&setup_block(&env, "codex")).unwrap();
    let shown: Vec<toml::Table> = blocks
        .iter()
        .filter(|b| b.lang == "toml")
        .filter_map(|b| toml::from_str::<toml::Table>(&b.text).ok())
        .filter(|t| t.contains_key("hooks"))
        .collect();
    assert_eq!(shown, [codex], "docs/agents.md: the Codex block");
}

/// The README and the user guide cannot rot either (issue 28): every
/// `memctl` line of their `sh` blocks and configurations is accepted by
/// the parser, their Claude Code hooks are the one entry for every event,
/// and the README's pre-commit hook is the one `.pre-commit-hooks.yaml`
/// declares.
#[test]
fn readme_and_user_guide_memctl_lines_are_accepted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let read = |path: &str| {
        std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let env = TestEnv::new();
    let mut hooks = false;
    let mut pre_commit = false;
    for doc in ["README.md", "docs/USER-GUIDE.md"] {
        let mut lines = Vec::new();
        for block in fenced_blocks(&read(doc)) {
            match block.lang.as_str() {
                "sh" => sh_command_lines(&block.text, &mut lines),
                "json" => {
                    let value: Value = serde_json::from_str(&block.text)
                        .unwrap_or_else(|e| panic!("{doc}:{}: {e}", block.line));
                    if value.get("hooks").is_some() {
                        for event in ["SessionStart", "UserPromptSubmit", "SessionEnd"] {
                            let commands = hook_commands(&value, event);
                            assert_eq!(commands, ["memctl hook claude-code"], "{doc} {event}");
                        }
                        hooks = true;
                    }
                    json_command_lines(&value, &mut lines);
                }
                "yaml" => {
                    let config: serde_json::Value = serde_saphyr::from_str(&block.text)
                        .unwrap_or_else(|e| panic!("{doc}:{}: {e}", block.line));
                    let declared: serde_json::Value =
                        serde_saphyr::from_str(&read(".pre-commit-hooks.yaml"))
                            .expect(".pre-commit-hooks.yaml parses");
                    let hook = &config["repos"][0]["hooks"][0];
                    for key in ["id", "entry", "language", "files", "pass_filenames"] {
                        assert_eq!(hook[key], declared[0][key], "{doc}:{}: {key}", block.line);
                    }
                    assert!(!block.text.contains("OWNER"), "{doc}:{}", block.line);
                    pre_commit = true;
                }
                _ => {}
            }
        }
        let checked = lines.iter().filter(|args| accepted(&env, args)).count();
        assert!(checked >= 5, "{doc}: only {checked} memctl lines");
    }
    assert!(
        hooks && pre_commit,
        "hooks {hooks}, pre-commit {pre_commit}"
    );
}
