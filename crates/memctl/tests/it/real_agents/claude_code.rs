//! Claude Code (`claude -p`), configured as docs/agents.md says: the hook
//! block `memctl setup claude-code --print` prints, in `~/.claude/settings.json`
//! as printed, and the MCP server added with the command that setup names.

use std::fs;
use std::process::Command;

use serde_json::{Value, json};

use super::fake_api::{Logged, Step, tool};
use super::{
    CLAUDE_CODE_VERSION, Clis, World, assert_origins, first_call, installed, memctl_parts, succeed,
};

/// The tools the fake model calls, allowed as a user allows them.
const ALLOWED: &str = "mcp__memctl__search,mcp__memctl__show,mcp__memctl__remember";

impl World {
    /// `claude ARGS…` against the fake, with its own telemetry, error
    /// reports, update checks and other traffic turned off.
    fn claude(&self, clis: &Clis, args: &[&str]) -> Command {
        let mut command = self.command(&clis.claude);
        command
            .args(args)
            .env("ANTHROPIC_BASE_URL", self.api.url())
            .env("ANTHROPIC_API_KEY", "test-key-for-the-loopback-fake")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_BUG_COMMAND", "1");
        command
    }

    /// One `claude -p PROMPT` session; its JSON result.
    fn claude_session(&self, clis: &Clis, prompt: &str) -> Value {
        let out = succeed(
            self.claude(
                clis,
                &[
                    "-p",
                    prompt,
                    "--output-format",
                    "json",
                    "--allowedTools",
                    ALLOWED,
                ],
            ),
            "claude -p",
        );
        // memctl's tool schemas are plain JSON Schema: Claude Code's
        // validator once warned of `format: uint64` at every call.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("unknown format"), "{stderr}");
        serde_json::from_slice(&out.stdout).expect("claude -p --output-format json")
    }

    /// The session file Claude Code wrote for `session_id`.
    fn claude_transcript(&self, session_id: &str) -> String {
        let projects = self.home().join(".claude/projects");
        for project in fs::read_dir(&projects)
            .expect("~/.claude/projects")
            .flatten()
        {
            let path = project.path().join(format!("{session_id}.jsonl"));
            if path.is_file() {
                return fs::read_to_string(path).unwrap();
            }
        }
        panic!(
            "no transcript for session {session_id} under {}",
            projects.display()
        );
    }
}

/// What the tools answered in `call`: the text of its `tool_result` blocks.
fn tool_results(call: &Logged) -> Vec<String> {
    let mut out = Vec::new();
    for message in call.body["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                out.push(block["content"].to_string());
            }
        }
    }
    out
}

/// What the hooks of `event` printed, as Claude Code keeps it in its
/// session file (`attachment` lines of type `hook_success`).
fn hook_outputs(transcript: &str, event: &str) -> Vec<String> {
    transcript
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| {
            line["attachment"]["type"] == "hook_success" && line["attachment"]["hookEvent"] == event
        })
        .map(|line| {
            line["attachment"]["stdout"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

#[test]
#[cfg_attr(
    real_agents_absent,
    ignore = "needs npm and its registry (the real Claude Code and Codex CLIs), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn claude_code_runs_memctl_from_session_start_to_review() {
    let clis = installed();
    let world = World::new();
    let version = succeed(world.claude(&clis, &["--version"]), "claude --version");
    assert!(
        String::from_utf8_lossy(&version.stdout).starts_with(CLAUDE_CODE_VERSION),
        "{version:?}"
    );

    // The block as printed, and the MCP server as setup says to add it.
    let setup = world.env.run(&["setup", "claude-code", "--print"]);
    setup.assert_success();
    fs::create_dir_all(world.home().join(".claude")).unwrap();
    fs::write(world.home().join(".claude/settings.json"), &setup.stdout).unwrap();
    let add = setup
        .stderr
        .split("run: ")
        .nth(1)
        .expect("setup names the MCP command");
    let words = shell_words::split(add.trim()).unwrap();
    assert_eq!(words[0], "claude", "{add}");
    succeed(
        world.claude(
            &clis,
            &words[1..].iter().map(String::as_str).collect::<Vec<_>>(),
        ),
        "claude mcp add",
    );

    // Session 1: the catalogue at its start, the record the prompt needs.
    let first = "Which test framework should new tests use here? From now on, run ruff before every commit.";
    world.api.script(
        "Which test framework",
        vec![Step::Text(
            "Use pytest, as the project's memory says.".into(),
        )],
    );
    world.claude_session(&clis, first);
    let calls = world.api.model_calls_after(0);
    let seen = first_call(&calls);
    assert!(
        seen.contains("<memory-catalogue"),
        "no catalogue: {}",
        memctl_parts(&seen)
    );
    assert!(
        seen.contains("<memory-record") && seen.contains("Write new tests with pytest fixtures"),
        "the relevant record was not recalled: {}",
        memctl_parts(&seen)
    );
    assert!(
        !seen.contains("it tags and uploads"),
        "an unrelated record was recalled"
    );

    // Its end: extraction on the transcript Claude Code wrote; the
    // candidates wait, nothing is written.
    world.assert_watched();
    let waiting = world.wait_for_candidates(1);
    let sent = &world.extract_requests()[0]["messages"];
    assert_eq!(
        sent,
        &json!([
            {"role": "user", "text": first},
            {"role": "assistant", "text": "Use pytest, as the project's memory says."},
        ]),
        "what reached the extraction model"
    );
    assert!(
        !world.env.store().join("ruff-before-commit.md").exists(),
        "{waiting:?}"
    );

    // Session 2, on an unrelated prompt: the catalogue, no record; the
    // start reports what waits; the model uses the MCP tools.
    let unrelated = "Rename the variable tmp to total in report.py.";
    world.api.script(
        "Rename the variable",
        vec![
            tool(
                "ToolSearch",
                json!({"query": "select:mcp__memctl__search,mcp__memctl__show,mcp__memctl__remember"}),
            ),
            tool("mcp__memctl__search", json!({"query": "pytest"})),
            tool("mcp__memctl__show", json!({"ids": ["prefer-pytest", "team-notes"]})),
            tool(
                "mcp__memctl__remember",
                json!({"name": "report-totals", "type": "project",
                       "description": "report.py keeps its running sum in total",
                       "body": "The running sum in report.py is the variable total."}),
            ),
            Step::Text("Renamed.".into()),
        ],
    );
    let before = world.api.requests().len();
    let result = world.claude_session(&clis, unrelated);
    let calls = world.api.model_calls_after(before);
    let seen = first_call(&calls);
    assert!(
        seen.contains("<memory-catalogue"),
        "no catalogue: {}",
        memctl_parts(&seen)
    );
    assert!(
        !seen.contains("<memory-record"),
        "a record was recalled for an unrelated prompt: {}",
        memctl_parts(&seen)
    );
    let results = tool_results(calls.last().unwrap()).join("\n");
    assert!(
        results.contains("\\\"id\\\":\\\"prefer-pytest\\\""),
        "search: {results}"
    );
    assert!(
        results.contains("Write new tests with pytest fixtures"),
        "show: {results}"
    );
    assert!(
        results.contains("\\\"operation\\\":\\\"ADD\\\""),
        "remember: {results}"
    );
    let saved = world.env.read_store_file("report-totals.md");
    assert!(saved.contains("source: inferred"), "{saved}");
    let session = result["session_id"].as_str().expect("a session id");
    let started = hook_outputs(&world.claude_transcript(session), "SessionStart").join("\n");
    assert!(
        started.contains("new memory candidate") && started.contains("memctl review"),
        "the session start did not report the candidates: {started}"
    );
    assert_origins(&world);
    world.assert_no_escape();
}
