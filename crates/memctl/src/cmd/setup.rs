//! `memctl setup CLIENT --print`: a ready configuration snippet for an
//! agent or MCP client, naming this memctl by its absolute path (a GUI
//! client started from the desktop does not see `~/.cargo/bin` on its
//! PATH), printed on standard output, with where it goes on standard
//! error. Nothing is written: the snippet is merged by hand into a file
//! that may hold other settings. Formats: docs/agents.md.

use std::path::Path;

use anyhow::Context as _;
use serde_json::{Value, json};

use mdagent::Config;

use crate::cli::{SetupArgs, SetupClient};
use crate::failure::{Exit, Failure};
use crate::ui::{self, Ui};

/// Seconds each hook may take. `SessionEnd` answers at once but Claude
/// Code gives it only 1.5 s by default; the others search the stores.
const HOOK_TIMEOUT_SECS: u64 = 10;
const SESSION_END_TIMEOUT_SECS: u64 = 5;
/// Codex cuts a longer `SessionEnd` limit back to 3 s, with a warning at
/// every start (seen in Codex 0.169.1).
const CODEX_SESSION_END_TIMEOUT_SECS: u64 = 3;

pub fn run(config: &Config, ui: &Ui, args: &SetupArgs) -> anyhow::Result<Exit> {
    let program = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .context("cannot find the path of this memctl")?;
    let program = utf8(&program)?;
    let store_args = match mdagent::stores::hook_store(config)? {
        Some(dir) => vec!["--store".to_string(), utf8(&dir)?],
        None if config.global => vec!["--global".to_string()],
        None => Vec::new(),
    };
    let snippet = Snippet {
        program: &program,
        store_args: &store_args,
    };
    let (text, where_) = match args.client {
        SetupClient::ClaudeCode => (
            pretty(&snippet.claude_code_hooks())?,
            claude_code_note(&snippet),
        ),
        SetupClient::Codex => (snippet.codex_toml(), CODEX_NOTE.to_string()),
        SetupClient::Cursor => (pretty(&snippet.mcp_servers())?, CURSOR_NOTE.to_string()),
        SetupClient::ClaudeDesktop => (pretty(&snippet.mcp_servers())?, DESKTOP_NOTE.to_string()),
        SetupClient::Vscode => (pretty(&snippet.vscode())?, VSCODE_NOTE.to_string()),
    };
    ui::print(&text)?;
    ui.note(&where_);
    Ok(Exit::Ok)
}

/// A path as JSON and TOML can hold it.
fn utf8(path: &Path) -> anyhow::Result<String> {
    path.to_str().map(str::to_string).ok_or_else(|| {
        Failure::bad_input(format!(
            "{} is not valid UTF-8, which a JSON or TOML configuration cannot hold",
            path.display()
        ))
        .with_hint("install memctl under a folder whose name is plain text")
        .into()
    })
}

fn pretty(value: &Value) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(value)? + "\n")
}

struct Snippet<'a> {
    program: &'a str,
    /// `--store DIR` or `--global`, when given to `setup`.
    store_args: &'a [String],
}

impl Snippet<'_> {
    /// The MCP server's arguments.
    fn mcp_args(&self) -> Vec<String> {
        let mut args = self.store_args.to_vec();
        args.push("mcp".to_string());
        args
    }

    /// The hook's command line, as a shell reads it (agents run hook
    /// commands through a shell): the program and store quoted.
    fn hook_command(&self, agent: &str) -> String {
        let mut words = vec![self.program.to_string()];
        words.extend(self.store_args.iter().cloned());
        words.extend(["hook".to_string(), agent.to_string()]);
        shell_words::join(words)
    }

    /// Claude Code's `settings.json`: the one hook entry for each event.
    fn claude_code_hooks(&self) -> Value {
        let group = |timeout: u64| {
            json!([{ "hooks": [{
                "type": "command",
                "command": self.hook_command("claude-code"),
                "timeout": timeout,
            }]}])
        };
        json!({ "hooks": {
            "SessionStart": group(HOOK_TIMEOUT_SECS),
            "UserPromptSubmit": group(HOOK_TIMEOUT_SECS),
            "SessionEnd": group(SESSION_END_TIMEOUT_SECS),
        }})
    }

    /// Cursor's and Claude Desktop's `mcpServers`.
    fn mcp_servers(&self) -> Value {
        json!({ "mcpServers": { "memctl": {
            "command": self.program,
            "args": self.mcp_args(),
        }}})
    }

    /// VS Code's `mcp.json`: `servers`, each with a `type`.
    fn vscode(&self) -> Value {
        json!({ "servers": { "memctl": {
            "type": "stdio",
            "command": self.program,
            "args": self.mcp_args(),
        }}})
    }

    /// Codex's `config.toml`: the MCP server and the hooks. A JSON string
    /// is a valid TOML basic string (the same escapes), so values are
    /// written with serde_json rather than with a TOML serialiser this
    /// program would carry for this alone; the tests parse the result.
    fn codex_toml(&self) -> String {
        let quoted = |text: &str| Value::from(text).to_string();
        let args: Vec<String> = self.mcp_args().iter().map(|a| quoted(a)).collect();
        let mut out = format!(
            "[mcp_servers.memctl]\ncommand = {}\nargs = [{}]\n",
            quoted(self.program),
            args.join(", ")
        );
        for (event, timeout) in [
            ("SessionStart", HOOK_TIMEOUT_SECS),
            ("UserPromptSubmit", HOOK_TIMEOUT_SECS),
            ("SessionEnd", CODEX_SESSION_END_TIMEOUT_SECS),
        ] {
            // `timeout`, which Codex reads (codex-rs
            // `config/src/hook_config.rs`); it ignores `timeout_sec`.
            out += &format!(
                "\n[[hooks.{event}]]\n[[hooks.{event}.hooks]]\ntype = \"command\"\ncommand = {}\ntimeout = {timeout}\n",
                quoted(&self.hook_command("codex"))
            );
        }
        out
    }
}

fn claude_code_note(snippet: &Snippet<'_>) -> String {
    let mcp: Vec<String> = snippet.mcp_args();
    format!(
        "Merge this into ~/.claude/settings.json (every project) or .claude/settings.json (one project's, shared with its team). For the MCP tools as well, run: claude mcp add --scope user memctl -- {}",
        shell_words::join(std::iter::once(snippet.program.to_string()).chain(mcp))
    )
}

const CODEX_NOTE: &str = "Merge this into ~/.codex/config.toml (or a trusted project's .codex/config.toml). Codex runs the hooks once you have reviewed them (it may ask).";
const CURSOR_NOTE: &str = "Merge this into ~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project's), then restart Cursor and check it under Settings, MCP.";
const DESKTOP_NOTE: &str = "Merge this into claude_desktop_config.json (Settings, Developer, Edit Config: ~/Library/Application Support/Claude/ on macOS, %APPDATA%\\Claude\\ on Windows, ~/.config/Claude/ on Linux), then quit Claude Desktop fully and start it again.";
const VSCODE_NOTE: &str = "Merge this into .vscode/mcp.json (the workspace's) or the file the command \"MCP: Open User Configuration\" opens.";
