//! `memctl mcp` (SPEC §8): driven by the official MCP Python SDK through
//! crates/memctl/tests/mcp/client.py, and by hand-written JSON-RPC for what
//! a client library would not send.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::env::{TestEnv, target_dir};

/// The folder with the client script and its pinned requirements.
fn client_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp")
}

/// A venv under the target folder with the pinned `mcp`, made once and
/// kept while requirements.txt is unchanged. Fails (never skips) when
/// python3 or pip cannot be had: CI has the package registries. Made under
/// a lock: the tests that need it run in parallel, and a second `venv
/// --clear` would empty the venv under the first one's feet.
fn python_with_mcp() -> PathBuf {
    static MADE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _made = MADE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let requirements = std::fs::read_to_string(client_dir().join("requirements.txt"))
        .expect("tests/mcp/requirements.txt");
    let venv = target_dir().join("mcp-venv");
    let python = venv.join("bin/python");
    let stamp = venv.join("memctl-requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(requirements.as_str()) {
        return python;
    }
    let made = Command::new("python3")
        .args(["-m", "venv", "--clear"])
        .arg(&venv)
        .output();
    match made {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "the MCP test needs python3 with venv (apt-get install python3-venv): `python3 -m venv` failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!("the MCP test needs python3 on PATH to install the MCP client: {e}"),
    }
    let installed = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
        ])
        .arg(client_dir().join("requirements.txt"))
        .output()
        .expect("the venv's python runs");
    assert!(
        installed.status.success(),
        "the MCP test could not install its Python client (pip install -r crates/memctl/tests/mcp/requirements.txt):\n{}",
        String::from_utf8_lossy(&installed.stderr)
    );
    std::fs::write(&stamp, requirements).expect("the venv's stamp");
    python
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the official MCP Python client), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn mcp_server_passes_the_python_sdk_client() {
    let env = TestEnv::new();
    env.run(&[
        "remember",
        "--yes",
        "--name",
        "prefer-pytest",
        "--type",
        "feedback",
        "--description",
        "Tests use pytest",
        "New tests use pytest.",
    ])
    .assert_success();
    let out = run_python_client(&env, "client.py", &[env.store().as_os_str()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("mcp client: all checks passed"),
        "the MCP client failed\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"
    );
}

/// Runs `script` (in tests/mcp/) with the official client's Python, as
/// `python SCRIPT MEMCTL ARGS…`, in `env`'s environment and project folder.
pub(crate) fn run_python_client(
    env: &TestEnv,
    script: &str,
    args: &[&std::ffi::OsStr],
) -> std::process::Output {
    let python = python_with_mcp();
    let template = without_watcher_job(env.std_command());
    let mut client = Command::new(python);
    client
        .arg(client_dir().join(script))
        .arg(env!("CARGO_BIN_EXE_memctl"))
        .args(args)
        .current_dir(env.work())
        .env_clear();
    for (name, value) in template.get_envs() {
        if let Some(value) = value {
            client.env(name, value);
        }
    }
    client.output().expect("the client script runs")
}

/// `command` with `MEMCTL_AUTO_WATCH=off` unless the test set it: the
/// server then watches its stores itself while it lives, and leaves no
/// detached watcher behind it (mcp_watch.rs tests that one).
pub(crate) fn without_watcher_job(mut command: Command) -> Command {
    if command
        .get_envs()
        .all(|(name, _)| name != "MEMCTL_AUTO_WATCH")
    {
        command.env("MEMCTL_AUTO_WATCH", "off");
    }
    command
}

/// A server started by hand, spoken to one JSON-RPC line at a time.
pub(crate) struct RawSession {
    child: std::process::Child,
    stdout: BufReader<std::process::ChildStdout>,
}

impl RawSession {
    pub(crate) fn start(env: &TestEnv) -> RawSession {
        RawSession::start_with(env, &[])
    }

    /// With global options before `mcp` (`--store DIR`).
    pub(crate) fn start_with(env: &TestEnv, options: &[&str]) -> RawSession {
        let mut child = without_watcher_job(env.std_command())
            .args(options)
            .arg("mcp")
            .current_dir(env.work())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("memctl mcp starts");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut session = RawSession { child, stdout };
        let init = session.request(
            1,
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            }),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "memctl", "{init}");
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    pub(crate) fn send(&mut self, message: &Value) {
        self.send_raw(format!("{message}\n").as_bytes());
    }

    /// Sends `bytes` as they are (a line that is not JSON, say).
    pub(crate) fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        stdin.write_all(bytes).expect("the server reads");
        stdin.flush().expect("the server reads");
    }

    /// The next line the server writes, as it is written.
    pub(crate) fn next_line(&mut self) -> String {
        let mut line = String::new();
        let read = self
            .stdout
            .read_line(&mut line)
            .expect("the server answers");
        assert!(read > 0, "the server closed its output");
        line
    }

    /// The next message the server writes.
    pub(crate) fn next_message(&mut self) -> Value {
        serde_json::from_str(&self.next_line()).expect("JSON-RPC")
    }

    pub(crate) fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.next_message();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// A tool call's text and whether it is an error.
    pub(crate) fn call(&mut self, id: u64, tool: &str, arguments: Value) -> (String, bool) {
        let answer = self.request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        );
        let result = &answer["result"];
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("a text result: {answer}"))
            .to_string();
        (text, result["isError"] == json!(true))
    }

    /// Closes stdin and waits for the server to exit by itself.
    pub(crate) fn close(self) -> std::process::ExitStatus {
        self.close_with_stderr().0
    }

    /// [`RawSession::close`], and what the server wrote on standard error.
    pub(crate) fn close_with_stderr(mut self) -> (std::process::ExitStatus, String) {
        drop(self.child.stdin.take());
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                let mut stderr = String::new();
                if let Some(mut pipe) = self.child.stderr.take() {
                    std::io::Read::read_to_string(&mut pipe, &mut stderr).expect("stderr");
                }
                return (status, stderr);
            }
            if started.elapsed() > Duration::from_secs(20) {
                let _ = self.child.kill();
                panic!("memctl mcp did not exit when its standard input closed");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn mcp_server_exits_cleanly_when_stdin_closes() {
    let env = TestEnv::new();
    let session = RawSession::start(&env);
    let status = session.close();
    assert!(status.success(), "exit status {status}");
}

/// A read_hash of the right shape that no record has.
const HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

#[test]
fn mcp_secret_in_any_argument_is_never_echoed() {
    let env = TestEnv::new();
    let mut session = RawSession::start(&env);
    let key = "AKIAIOSFODNN7EXAMPLF";
    let calls = [
        ("search", json!({ "query": format!("type:{key}") })),
        ("search", json!({ "query": "x", "scope": key })),
        ("search", json!({ "query": "x", key: 1 })),
        ("show", json!({ "ids": [key] })),
        ("show", json!({ "ids": [format!("{key}\u{1b}")] })),
        ("list", json!({ "type": key })),
        (
            "remember",
            json!({ "name": key, "body": "b", "description": "d" }),
        ),
        ("remember", json!({ "name": "n", "type": key })),
        ("remember", json!({ "name": "n", "expires": key })),
        (
            "remember",
            json!({ "name": "n", "tags": [format!("{key}\u{0}")] }),
        ),
        (
            "forget",
            json!({ "id": key, "revision": 1, "read_hash": HASH }),
        ),
        (
            "forget",
            json!({ "id": "n", "revision": 1, "read_hash": HASH, "scope": key }),
        ),
        (
            "forget",
            json!({ "id": "n", "revision": 1, "read_hash": key }),
        ),
        ("context", json!({ "prompt": "p", "max": key })),
    ];
    for (n, (tool, arguments)) in calls.iter().enumerate() {
        let (text, is_error) = session.call(n as u64 + 10, tool, arguments.clone());
        assert!(is_error, "{tool} {arguments}: {text}");
        assert!(
            !text.contains(key),
            "{tool} {arguments} echoed the secret: {text}"
        );
        assert!(
            text.chars().all(|c| c == '\n' || !c.is_control()),
            "{tool}: a raw control character in {text:?}"
        );
    }
    assert!(session.close().success());
}

#[test]
fn mcp_remember_without_a_store_creates_none() {
    let env = TestEnv::bare();
    std::fs::create_dir(env.work().join(".git")).expect("a git folder");
    let mut session = RawSession::start(&env);
    let (text, is_error) = session.call(
        5,
        "remember",
        json!({"name": "n", "type": "project", "description": "d", "body": "b"}),
    );
    assert!(is_error, "{text}");
    assert!(text.contains("memctl init"), "{text}");
    assert!(!env.work().join(".memory").exists());
    assert!(session.close().success());
}

#[test]
fn mcp_forget_without_reading_leaves_the_record() {
    let env = TestEnv::new();
    let mut session = RawSession::start(&env);
    let (text, is_error) = session.call(
        4,
        "remember",
        json!({"name": "keep-me", "type": "project", "description": "d", "body": "Body text."}),
    );
    assert!(!is_error && text.contains("\"ADD\""), "{text}");
    let (text, is_error) = session.call(5, "forget", json!({"id": "keep-me"}));
    assert!(is_error && text.contains("revision"), "{text}");
    let (text, is_error) = session.call(6, "forget", json!({"id": "keep-me", "revision": 1}));
    assert!(is_error && text.contains("read_hash"), "{text}");
    let (text, _) = session.call(7, "show", json!({"ids": ["keep-me"]}));
    let shown: Value = serde_json::from_str(&text).expect("JSON");
    let hash = shown["records"][0]["read_hash"]
        .as_str()
        .expect("a read_hash");
    let (text, is_error) = session.call(
        8,
        "forget",
        json!({"id": "keep-me", "revision": 2, "read_hash": hash}),
    );
    assert!(is_error && text.contains("REFUSED"), "{text}");
    let (text, is_error) = session.call(
        9,
        "forget",
        json!({"id": "keep-me", "revision": 1, "read_hash": HASH}),
    );
    assert!(
        is_error && text.contains("changed since you read it"),
        "{text}"
    );
    let (text, is_error) = session.call(
        10,
        "forget",
        json!({"id": "../keep-me", "revision": 1, "read_hash": hash}),
    );
    assert!(is_error && text.contains("no record"), "{text}");
    assert!(env.store().join("keep-me.md").exists());
    let (text, is_error) = session.call(
        11,
        "forget",
        json!({"id": "KEEP-ME", "revision": 1, "read_hash": hash}),
    );
    assert!(!is_error && text.contains("FORGOTTEN"), "{text}");
    assert!(!env.store().join("keep-me.md").exists());
    assert!(session.close().success());
}

#[test]
fn mcp_remember_keeps_a_hand_made_memory_md_of_a_claude_code_folder() {
    let env = TestEnv::bare();
    let folder = env.root().join("claude-memory");
    std::fs::create_dir(&folder).expect("the memory folder");
    std::fs::write(
        folder.join("feedback_testing.md"),
        "---\nname: testing preference\ndescription: Use pytest, not unittest\ntype: feedback\n---\nAlways write tests with pytest.\n",
    )
    .expect("a memory file");
    let hand_made = "# Memory index\n\n- [Testing](feedback_testing.md) - pytest, not unittest\n";
    std::fs::write(folder.join("MEMORY.md"), hand_made).expect("MEMORY.md");
    let store = folder.to_str().expect("a UTF-8 path");
    let mut session = RawSession::start_with(&env, &["--store", store]);

    let catalog = session.request(
        3,
        "resources/read",
        json!({"uri": "memctl://workspace/MEMORY.md"}),
    );
    assert_eq!(
        catalog["result"]["contents"][0]["text"], hand_made,
        "{catalog}"
    );
    let (text, is_error) = session.call(4, "search", json!({"query": "unittest"}));
    assert!(!is_error && text.contains("feedback_testing"), "{text}");

    let (text, is_error) = session.call(
        5,
        "remember",
        json!({"name": "ci-runner", "type": "project", "description": "CI runs on GitHub Actions", "body": "The CI workflow is .github/workflows/ci.yml."}),
    );
    assert!(!is_error && text.contains("\"ADD\""), "{text}");
    assert!(
        text.contains("MEMORY.md.before-memctl"),
        "the answer says where the hand-made file went: {text}"
    );
    let kept = std::fs::read_to_string(folder.join("MEMORY.md.before-memctl")).expect("kept");
    assert_eq!(kept, hand_made);
    let now = std::fs::read_to_string(folder.join("MEMORY.md")).expect("MEMORY.md");
    assert!(
        now.contains("ci-runner") && now.contains("feedback_testing"),
        "{now}"
    );
    assert!(session.close().success());
}

#[test]
fn mcp_answers_hold_no_raw_terminal_control_from_a_hand_written_record() {
    let env = TestEnv::new();
    let body = "Colour \u{1b}[31mred\u{1b}[0m, CSI \u{9b}2J, DEL \u{7f}, bell \u{7}.\n";
    std::fs::write(
        env.store().join("hostile.md"),
        format!("---\nname: hostile\ntype: project\ndescription: esc \u{1b}]0;title\u{7} here\n---\n{body}"),
    )
    .expect("a hand-written record");
    let mut session = RawSession::start(&env);
    for (n, (tool, arguments)) in [
        ("show", json!({"ids": ["hostile"]})),
        ("list", json!({})),
        ("search", json!({"query": "colour red"})),
    ]
    .into_iter()
    .enumerate()
    {
        let (text, is_error) = session.call(n as u64 + 5, tool, arguments);
        assert!(!is_error, "{tool}: {text}");
        assert!(
            text.chars().all(|c| c == '\n' || !c.is_control()),
            "{tool}: a raw control character in {text:?}"
        );
        let value: Value = serde_json::from_str(&text).expect("JSON");
        if tool == "show" {
            assert_eq!(
                value["records"][0]["body"], body,
                "the JSON decodes to the record's text"
            );
        }
    }
    let catalog = session.request(
        9,
        "resources/read",
        json!({"uri": "memctl://workspace/MEMORY.md"}),
    );
    let text = catalog["result"]["contents"][0]["text"]
        .as_str()
        .expect("text");
    assert!(
        text.chars().all(|c| c == '\n' || !c.is_control()),
        "MEMORY.md: {text:?}"
    );
    assert!(session.close().success());
}

#[test]
fn mcp_search_takes_a_query_spanning_lines_but_no_escape() {
    let env = TestEnv::new();
    env.remembering("deploys")
        .kind("project")
        .description("How we deploy")
        .body("Deploys go through make release.")
        .ok();
    let mut session = RawSession::start(&env);
    let (text, is_error) = session.call(5, "search", json!({"query": "how do we\n\tdeploy"}));
    assert!(!is_error && text.contains("\"deploys\""), "{text}");
    let (text, is_error) = session.call(6, "search", json!({"query": "deploy\u{1b}[2J"}));
    assert!(is_error && text.contains("U+001B"), "{text}");
    let (text, is_error) = session.call(7, "search", json!({}));
    assert!(is_error && text.contains("query\\\" is required"), "{text}");
    assert!(session.close().success());
}

#[test]
fn mcp_agent_cannot_overwrite_what_the_user_stated() {
    let env = TestEnv::new();
    env.remembering("prefer-pytest")
        .kind("feedback")
        .description("Tests use pytest")
        .body("New tests use pytest.")
        .ok();
    let before = std::fs::read_to_string(env.store().join("prefer-pytest.md")).expect("record");
    let mut session = RawSession::start(&env);
    let candidate = json!({
        "name": "prefer-pytest", "type": "feedback", "description": "Tests use unittest",
        "body": "New tests use unittest.",
    });
    for (n, source) in [None, Some("inferred"), Some("verified")]
        .into_iter()
        .enumerate()
    {
        let mut call = candidate.clone();
        if let Some(source) = source {
            call["source"] = json!(source);
        }
        let (text, is_error) = session.call(n as u64 + 5, "remember", call);
        assert!(
            is_error && text.contains("REFUSED") && text.contains("source user"),
            "{text}"
        );
    }
    let (text, is_error) = session.call(
        9,
        "remember",
        json!({"name": "prefer-pytest", "force": true}),
    );
    assert!(
        is_error && text.contains("force"),
        "there is no force: {text}"
    );
    let after = std::fs::read_to_string(env.store().join("prefer-pytest.md")).expect("record");
    assert_eq!(before, after);
    assert!(session.close().success());
}

#[test]
fn mcp_answers_never_send_a_hand_written_secret_to_the_agent() {
    let env = TestEnv::new();
    let token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
    let key = "AKIAIOSFODNN7EXAMPLF";
    std::fs::write(
        env.store().join("staging.md"),
        format!("---\nname: staging\ntype: reference\ndescription: staging token {token}\n---\nThe staging key is {key}.\n"),
    )
    .expect("a hand-written record");
    std::fs::write(
        env.store().join("MEMORY.md"),
        format!("# Memory\n- [Staging](staging.md) — token {token}\n"),
    )
    .expect("a hand-made MEMORY.md");
    let mut session = RawSession::start(&env);
    for (n, (tool, arguments)) in [
        ("show", json!({"ids": ["staging"]})),
        ("list", json!({})),
        ("search", json!({"query": "staging key"})),
    ]
    .into_iter()
    .enumerate()
    {
        let (text, is_error) = session.call(n as u64 + 5, tool, arguments);
        assert!(!is_error, "{tool}: {text}");
        assert!(text.contains("staging"), "{tool}: {text}");
        assert!(
            !text.contains(token) && !text.contains(key),
            "{tool}: {text}"
        );
        assert!(text.contains("looks like a secret"), "{tool}: {text}");
    }
    let catalog = session.request(
        9,
        "resources/read",
        json!({"uri": "memctl://workspace/MEMORY.md"}),
    );
    let text = catalog["result"]["contents"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.starts_with("# Memory\n"), "{text}");
    assert!(!text.contains(token), "MEMORY.md: {text}");
    assert!(session.close().success());
}
