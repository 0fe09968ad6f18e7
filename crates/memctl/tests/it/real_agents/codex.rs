//! Codex (`codex exec`), configured as docs/agents.md says: the block
//! `memctl setup codex --print` prints (MCP server and hooks), as printed,
//! in `~/.codex/config.toml`, after a provider that points at the fake.

use std::fs;
use std::process::Command;

use serde_json::{Value, json};
use sha2::Digest as _;

use super::fake_api::{Logged, Step};
use super::{
    CODEX_VERSION, Clis, World, assert_origins, first_call, installed, memctl_parts, succeed,
};

/// docs/agents.md's block that lets `codex exec` call `remember`, as the
/// page shows it.
fn remember_approved() -> String {
    let page = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/agents.md");
    let page = fs::read_to_string(page).unwrap();
    let block = page
        .split("```toml\n")
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap_or_default())
        .find(|block| block.starts_with("[mcp_servers.memctl.tools.remember]"))
        .expect("docs/agents.md shows how to approve remember");
    format!("\n{block}")
}

/// The variable Codex reads the fake provider's key from.
const KEY_VAR: &str = "MEMCTL_TEST_MODEL_KEY";

impl World {
    /// `node codex.js ARGS…`: Codex's own launcher, which finds its binary.
    fn codex(&self, clis: &Clis, args: &[&str]) -> Command {
        let node = std::path::Path::new("node");
        let mut command = self.command(node);
        command
            .arg(&clis.codex_js)
            .args(args)
            .env(KEY_VAR, "test-key-for-the-loopback-fake");
        command
    }

    /// One `codex exec PROMPT` session.
    fn codex_session(&self, clis: &Clis, prompt: &str) {
        succeed(
            self.codex(clis, &["exec", "--skip-git-repo-check", prompt]),
            "codex exec",
        );
    }

    fn codex_config(&self) -> std::path::PathBuf {
        self.home().join(".codex/config.toml")
    }

    /// `~/.codex/config.toml`: the fake as the model provider, Codex's own
    /// traffic off (update checks, analytics, the plugin marketplace, which
    /// it fetches from github.com and chatgpt.com), then `block` as given.
    fn write_codex_config(&self, block: &str) {
        let base = format!(
            r#"model = "fake-model"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "loopback fake"
base_url = "{}/v1"
wire_api = "responses"
env_key = "{KEY_VAR}"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false

"#,
            self.api.url()
        );
        fs::create_dir_all(self.home().join(".codex")).unwrap();
        fs::write(self.codex_config(), base + block).unwrap();
    }
}

/// What Codex's `/hooks` writes when the user trusts a hook: under
/// `[hooks.state]`, keyed by the file, the event and the hook's place, the
/// SHA-256 of the hook as Codex read it (codex-rs `hooks` crate: the
/// sorted, compact JSON of its event and its one handler, the timeout as
/// Codex understood it). A hook whose hash differs is skipped: had Codex
/// ignored the block's `timeout` (as it ignores `timeout_sec`), its hash
/// would hold the default of 600 and none of these would match.
fn trusted(config: &std::path::Path, block: &toml::Table) -> String {
    let mut out = String::new();
    for (event, label) in [
        ("SessionStart", "session_start"),
        ("UserPromptSubmit", "user_prompt_submit"),
        ("SessionEnd", "session_end"),
    ] {
        let hook = &block["hooks"][event][0]["hooks"][0];
        let command = hook["command"].as_str().unwrap();
        let timeout = hook["timeout"].as_integer().unwrap();
        let identity = format!(
            r#"{{"event_name":{},"hooks":[{{"async":false,"command":{},"timeout":{timeout},"type":"command"}}]}}"#,
            json!(label),
            json!(command),
        );
        let hash: String = sha2::Sha256::digest(identity.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        out += &format!(
            "\n[hooks.state.{}]\ntrusted_hash = \"sha256:{hash}\"\n",
            json!(format!("{}:{label}:0:0", config.display()))
        );
    }
    out
}

/// What the tools answered in `call`: its `function_call_output` items.
fn tool_results(call: &Logged) -> Vec<String> {
    call.body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|item| item["type"] == "function_call_output")
        .map(|item| item["output"].to_string())
        .collect()
}

fn mcp(name: &str, input: Value) -> Step {
    Step::Tool {
        name: name.to_string(),
        namespace: Some("mcp__memctl".to_string()),
        input,
    }
}

#[test]
#[cfg_attr(
    real_agents_absent,
    ignore = "needs npm and its registry (the real Claude Code and Codex CLIs), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn codex_runs_memctl_from_session_start_to_review() {
    let clis = installed();
    let world = World::new();
    let version = succeed(world.codex(&clis, &["--version"]), "codex --version");
    assert!(
        String::from_utf8_lossy(&version.stdout).contains(CODEX_VERSION),
        "{version:?}"
    );
    let setup = world.env.run(&["setup", "codex", "--print"]);
    setup.assert_success();
    let block: toml::Table = toml::from_str(&setup.stdout).unwrap();

    // Hooks not yet trusted: `codex exec` skips them without a word.
    world.write_codex_config(&setup.stdout);
    world
        .api
        .script("Which test framework", vec![Step::Text("pytest.".into())]);
    let before = world.api.requests().len();
    let first = "Which test framework should new tests use here? From now on, run ruff before every commit.";
    world.codex_session(&clis, first);
    let seen = first_call(&world.api.model_calls_after(before));
    assert!(
        !seen.contains("<memory-catalogue"),
        "an untrusted hook ran: {}",
        memctl_parts(&seen)
    );

    // Trusted as `/hooks` trusts them: the block as printed now runs; and
    // `remember` allowed without a prompt, as docs/agents.md shows (`codex
    // exec` asks nothing: a tool that needs approval is refused).
    world.write_codex_config(
        &(setup.stdout.clone() + &remember_approved() + &trusted(&world.codex_config(), &block)),
    );
    world.api.script(
        "Which test framework",
        vec![Step::Text(
            "Use pytest, as the project's memory says.".into(),
        )],
    );
    let before = world.api.requests().len();
    world.codex_session(&clis, first);
    let seen = first_call(&world.api.model_calls_after(before));
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

    // Its end: extraction on the rollout Codex wrote; the candidates wait.
    world.assert_watched();
    world.wait_for_candidates(1);
    let requests = world.extract_requests();
    assert_eq!(
        requests.last().unwrap()["messages"],
        json!([
            {"role": "user", "text": first},
            {"role": "assistant", "text": "Use pytest, as the project's memory says."},
        ]),
        "what reached the extraction model"
    );

    // Session 2, unrelated: the catalogue, no record; MCP tools answer.
    let unrelated = "Rename the variable tmp to total in report.py.";
    world.api.script(
        "Rename the variable",
        vec![
            mcp("search", json!({"query": "pytest"})),
            mcp("show", json!({"ids": ["prefer-pytest", "team-notes"]})),
            mcp(
                "remember",
                json!({"name": "report-totals", "type": "project",
                       "description": "report.py keeps its running sum in total",
                       "body": "The running sum in report.py is the variable total."}),
            ),
            Step::Text("Renamed.".into()),
        ],
    );
    let before = world.api.requests().len();
    world.codex_session(&clis, unrelated);
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
    assert!(
        seen.contains("new memory candidate") && seen.contains("memctl review"),
        "the session start did not report the candidates: {}",
        memctl_parts(&seen)
    );
    assert_origins(&world);
    world.assert_no_escape();
}
