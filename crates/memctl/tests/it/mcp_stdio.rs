//! `memctl mcp` on input no client library would send: lines that are not
//! JSON, malformed params, batches, huge lines and terminal escapes. The
//! server answers as JSON-RPC asks and goes on serving.

use serde_json::{Value, json};

use crate::env::TestEnv;
use crate::mcp::RawSession;

/// The session still answers a ping.
#[track_caller]
fn assert_alive(session: &mut RawSession, id: u64) {
    let pong = session.request(id, "ping", json!({}));
    assert_eq!(pong["result"], json!({}), "{pong}");
}

#[track_caller]
fn error_of(message: &Value) -> (i64, String) {
    let code = message["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error answer: {message}"));
    let text = message["error"]["message"].as_str().unwrap_or_default();
    (code, text.to_string())
}

#[test]
fn mcp_a_line_that_is_not_json_gets_a_parse_error_and_the_session_goes_on() {
    let env = TestEnv::new();
    let mut session = RawSession::start(&env);
    for line in [
        "not json\n",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\n",
        "\u{1b}]0;title\u{7}\n",
    ] {
        session.send_raw(line.as_bytes());
        let answer = session.next_message();
        assert_eq!(answer["id"], Value::Null, "{line:?}: {answer}");
        let (code, message) = error_of(&answer);
        assert_eq!(code, -32700, "{line:?}: {message}");
        assert!(message.starts_with("Parse error"), "{message}");
    }
    assert_alive(&mut session, 9);
    let (status, stderr) = session.close_with_stderr();
    assert!(status.success(), "{status}");
    assert_eq!(stderr, "");
}

#[test]
fn mcp_tools_call_with_arguments_not_an_object_is_invalid_params_naming_arguments() {
    let env = TestEnv::new();
    let mut session = RawSession::start(&env);
    for (n, arguments) in [json!("x"), json!([1]), json!(7), json!(true)]
        .into_iter()
        .enumerate()
    {
        let id = n as u64 + 10;
        let answer = session.request(
            id,
            "tools/call",
            json!({"name": "search", "arguments": arguments}),
        );
        let (code, message) = error_of(&answer);
        assert_eq!(code, -32602, "{arguments}: {answer}");
        assert!(message.contains("`arguments`"), "{message}");
    }
    let answer = session.request(20, "tools/call", json!("search"));
    let (code, message) = error_of(&answer);
    assert!(code == -32602 && message.contains("`params`"), "{answer}");
    let answer = session.request(21, "tools/call", json!({"name": 7}));
    let (code, message) = error_of(&answer);
    assert!(code == -32602 && message.contains("`name`"), "{answer}");
    let answer = session.request(22, "resources/read", json!({"uri": ["x"]}));
    let (code, message) = error_of(&answer);
    assert!(code == -32602 && message.contains("`uri`"), "{answer}");
    let (text, is_error) = session.call(23, "list", json!({}));
    assert!(!is_error, "a good call after bad ones: {text}");
    assert!(session.close().success());
}

#[test]
fn mcp_a_batch_or_a_huge_line_leaves_the_server_answering() {
    let env = TestEnv::new();
    let mut session = RawSession::start(&env);
    session.send_raw(b"[{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}]\n");
    let (code, _) = error_of(&session.next_message());
    assert_eq!(code, -32600, "MCP has no batches: an invalid request");
    assert_alive(&mut session, 6);

    let mut huge = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"pad\":\"".to_vec();
    huge.resize(17 * 1024 * 1024, b'a');
    huge.extend_from_slice(b"\"}\n");
    session.send_raw(&huge);
    let answer = session.next_message();
    let (code, message) = error_of(&answer);
    assert!(
        answer["id"] == Value::Null && code == -32700 && message.contains("16 MiB"),
        "{answer}"
    );
    assert_alive(&mut session, 8);

    let query = "pytest ".repeat(150_000);
    let (text, _) = session.call(9, "search", json!({"query": query}));
    assert!(text.len() < 10_000, "the answer does not echo the query");
    assert_alive(&mut session, 10);
    assert!(session.close().success());
}

#[test]
fn mcp_terminal_escapes_and_nul_in_methods_and_arguments_never_reach_a_terminal_raw() {
    let env = TestEnv::new();
    let mut session = RawSession::start(&env);
    let evil = "\u{1b}[31mevil\u{9b}2J\u{7f}\u{0}";
    let mut id = 10;
    let mut answers = Vec::new();
    for (method, params) in [
        (evil.to_string(), json!({})),
        (
            "tools/call".to_string(),
            json!({"name": evil, "arguments": {}}),
        ),
        (
            "tools/call".to_string(),
            json!({"name": "search", "arguments": {evil: evil}}),
        ),
        (
            "tools/call".to_string(),
            json!({"name": "show", "arguments": {"ids": [evil]}}),
        ),
        ("resources/read".to_string(), json!({"uri": evil})),
    ] {
        id += 1;
        session.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        answers.push(session.next_line());
    }
    // Raw bytes no JSON holds: an escape, a NUL, bytes that are not UTF-8.
    session.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":30,\"method\":\"\x1b[2J\x00\xff\"}\n");
    answers.push(session.next_line());
    assert_alive(&mut session, 40);
    for answer in &answers {
        let answer = answer.strip_suffix('\n').expect("a whole line");
        assert!(
            !answer.chars().any(char::is_control),
            "a raw control character in {answer:?}"
        );
        serde_json::from_str::<Value>(answer).expect("JSON-RPC");
    }
    let (status, stderr) = session.close_with_stderr();
    assert!(status.success(), "{status}");
    assert!(
        stderr.chars().all(|c| c == '\n' || !c.is_control()),
        "{stderr:?}"
    );
}

#[test]
fn mcp_a_parse_error_just_before_the_input_ends_is_still_answered() {
    let env = TestEnv::new();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    let run = env.run_stdin(&["mcp"], &format!("{initialize}\nnot json\n"));
    assert_eq!(run.code, 0, "{}", run.render());
    let answers: Vec<Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON-RPC"))
        .collect();
    assert_eq!(answers.len(), 2, "{}", run.stdout);
    assert!(
        answers
            .iter()
            .any(|a| a["id"] == Value::Null && a["error"]["code"] == -32700),
        "{}",
        run.stdout
    );
    // Input that ends before `initialize` is still answered, then exits 5.
    let run = env.run_stdin(&["mcp"], "not json\n");
    assert_eq!(run.code, 5, "{}", run.render());
    assert!(run.stdout.contains("-32700"), "{}", run.render());
}

/// Issue 25 item 5: `{"name":"dupkey","name":"other",…}` wrote `other`,
/// while a client that shows the first key when it asks the user for
/// approval showed `dupkey`. Now nothing is written and the error names
/// the key; the session goes on.
#[test]
fn mcp_arguments_with_a_duplicated_key_wrote_the_last_one() {
    let env = TestEnv::new();
    let mut session = RawSession::start(&env);
    session.send_raw(
        concat!(
            r#"{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"remember","#,
            r#""arguments":{"name":"dupkey","name":"other","type":"project","description":"d","body":"b"}}}"#,
            "\n"
        )
        .as_bytes(),
    );
    let answer = session.next_message();
    assert_eq!(answer["id"], 31, "{answer}");
    let (code, message) = error_of(&answer);
    assert_eq!(code, -32602, "{answer}");
    assert!(message.contains("\"name\" appears twice"), "{message}");
    assert_alive(&mut session, 32);
    assert!(session.close().success());
    let records: Vec<_> = ["dupkey.md", "other.md"]
        .into_iter()
        .filter(|f| env.store().join(f).exists())
        .collect();
    assert!(records.is_empty(), "written: {records:?}");
}

/// Issue 25 item 5: a request whose `id` is not a string or a whole
/// number was answered with -32600 and no `id` at all; JSON-RPC asks for
/// `"id": null`.
#[test]
fn mcp_a_request_id_that_is_not_a_string_or_number_was_answered_without_an_id() {
    let env = TestEnv::new();
    let mut session = RawSession::start(&env);
    for id in ["true", "null", "1.5", "{\"a\":1}", "[2]"] {
        let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/list\"}}\n");
        session.send_raw(line.as_bytes());
        let answer = session.next_message();
        assert!(
            answer
                .as_object()
                .is_some_and(|a| a.get("id") == Some(&Value::Null)),
            "{id}: {answer}"
        );
        assert_eq!(error_of(&answer).0, -32600, "{id}: {answer}");
    }
    assert_alive(&mut session, 40);
    assert!(session.close().success());
}
