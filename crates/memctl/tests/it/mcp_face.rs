//! `memctl mcp` as a full face (SPEC §8): typed tools whose schemas agree
//! with their handlers, structured answers valid against each tool's
//! outputSchema, annotations, the `context` tool, `show` of several ids,
//! and what an agent may forget. Driven by the official MCP Python SDK
//! (tests/mcp/face.py, one scenario a test), and by hand-written JSON-RPC
//! for what a client library would not send.

use serde_json::{Value, json};

use crate::env::TestEnv;
use crate::mcp::{RawSession, run_python_client};

/// A store as the scenarios expect it: records written by the user with
/// the CLI (so MEMORY.md exists), one written by the agent over MCP, one
/// expired, one holding a secret, and one hand-written without `source`.
fn store_with_records() -> TestEnv {
    let env = TestEnv::new();
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    env.remember(
        "blue-cluster",
        "project",
        "Where staging runs",
        "Staging runs on the zanzibar cluster in the blue region.",
    );
    env.remember(
        "lint-rules",
        "feedback",
        "Lint before pushing",
        "Run the linter before every push; the CI rejects warnings.",
    );
    env.remember(
        "docs-site",
        "reference",
        "Where the docs live",
        "The documentation site is built from the docs folder by mkdocs.",
    );
    env.write_store_file(
        "quokka-freeze.md",
        "---\nname: quokka-freeze\ndescription: The quokka freeze\ntype: project\nsource: inferred\nexpires: 2020-01-31\n---\nThe quokka freeze holds all merges until the January release.\n",
    );
    env.write_store_file(
        "wombat-key.md",
        "---\nname: wombat-key\ndescription: Where the wombat deploy key is kept\ntype: reference\n---\nThe wombat deploy key is AKIAIOSFODNN7EXAMPLF.\n",
    );
    env.write_record(
        "hand-written",
        "project",
        "A note the user wrote by hand",
        "Release notes go in CHANGELOG.md.",
    );
    env
}

#[track_caller]
fn run_scenario(env: &TestEnv, scenario: &str) {
    let out = run_python_client(
        env,
        "face.py",
        &[std::ffi::OsStr::new(scenario), env.store().as_os_str()],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains(&format!("mcp face: {scenario} passed")),
        "the MCP scenario {scenario} failed\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"
    );
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the official MCP Python client), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn mcp_tools_list_and_the_handlers_agree() {
    run_scenario(&store_with_records(), "agreement");
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the official MCP Python client), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn mcp_answers_had_no_structured_content_or_annotations() {
    run_scenario(&store_with_records(), "structured");
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the official MCP Python client), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn mcp_show_read_one_id_only() {
    run_scenario(&store_with_records(), "show_several");
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the official MCP Python client), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn mcp_expired_record_was_shown_as_current() {
    run_scenario(&store_with_records(), "expired");
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the official MCP Python client), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn mcp_context_tool_recalls_as_the_hook_does_once_a_session() {
    run_scenario(&store_with_records(), "context");
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the official MCP Python client), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn mcp_forget_after_a_hand_edit_that_kept_the_revision_was_applied() {
    let env = store_with_records();
    let mut session = RawSession::start(&env);
    let (text, is_error) = session.call(
        5,
        "remember",
        json!({"name": "deploy-freeze", "type": "project", "description": "No deploys on Fridays",
               "body": "Production deploys stop on Fridays."}),
    );
    assert!(!is_error && text.contains("\"ADD\""), "{text}");
    assert!(session.close().success());
    run_scenario(&env, "forget_after_hand_edit");
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the official MCP Python client), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn mcp_forget_of_a_user_record_was_allowed() {
    run_scenario(&store_with_records(), "forget_user_record");
}

#[test]
fn json_rpc_batch_error_had_no_null_id() {
    let env = TestEnv::new();
    let mut session = RawSession::start(&env);
    for line in [
        "[{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}]\n",
        "[]\n",
        "42\n",
    ] {
        session.send_raw(line.as_bytes());
        let answer = session.next_message();
        let fields = answer.as_object().expect("an object");
        assert_eq!(fields.get("id"), Some(&Value::Null), "{line:?}: {answer}");
        assert_eq!(answer["error"]["code"], -32600, "{line:?}: {answer}");
    }
    let message = {
        session.send_raw(b"[{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}]\n");
        session.next_message()
    };
    let text = message["error"]["message"].as_str().unwrap_or_default();
    assert!(text.contains("batch"), "{message}");
    let pong = session.request(7, "ping", json!({}));
    assert_eq!(pong["result"], json!({}), "{pong}");
    assert!(session.close().success());
}

#[test]
fn mcp_unknown_tool_was_a_tool_result_not_a_protocol_error() {
    let env = TestEnv::new();
    let mut session = RawSession::start(&env);
    let key = "AKIAIOSFODNN7EXAMPLF";
    for (id, name) in [(5, "frobnicate"), (6, key), (7, "\u{1b}[2Jshow")] {
        let answer = session.request(id, "tools/call", json!({"name": name, "arguments": {}}));
        assert!(answer.get("result").is_none(), "{answer}");
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("the tools are search, show"), "{message}");
        assert!(
            !message.contains(key) && !message.contains('\u{1b}'),
            "{message}"
        );
    }
    let (text, is_error) = session.call(8, "list", json!({}));
    assert!(!is_error, "a good call after: {text}");
    assert!(session.close().success());
}
