//! A model API on the loopback address for the real agents: Anthropic's
//! Messages API (`POST /v1/messages`, streamed as server-sent events when
//! asked) for Claude Code, OpenAI's Responses API (`POST /v1/responses`,
//! streamed) for Codex's custom model provider. Every request is logged
//! for the test to read. What it answers is scripted: a [`Rule`] whose
//! phrase appears in the conversation picks the reply, one step per tool
//! result the conversation already holds, so that "call search, then
//! show, then answer" plays out over the agent's requests.
//!
//! The agents are also given it as their HTTP(S) proxy: a request for any
//! other host arrives here as a `CONNECT` (or an absolute URL), is refused
//! and logged, and [`FakeApi::escapes`] lists it, so that a test proves
//! the agent reached nothing but the loopback fake.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// One request the fake received.
#[derive(Clone, Debug)]
pub struct Logged {
    pub method: String,
    pub path: String,
    /// The body as JSON (`Value::Null` when it was not JSON).
    pub body: Value,
}

impl Logged {
    /// A request for a model's answer (not a token count or anything else).
    pub fn is_model_call(&self) -> bool {
        let messages = self.path == "/v1/messages" || self.path.starts_with("/v1/messages?");
        self.method == "POST" && (messages || self.path.starts_with("/v1/responses"))
    }

    /// The conversation the request carries, as text: Anthropic's `system`
    /// and `messages`, or OpenAI's `instructions` and `input`.
    pub fn conversation(&self) -> String {
        let parts = ["system", "messages", "instructions", "input"];
        parts
            .iter()
            .filter_map(|key| self.body.get(*key))
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// What the model does at one step of a scripted exchange.
#[derive(Clone, Debug)]
pub enum Step {
    Text(String),
    /// A tool call: its name, Codex's namespace for an MCP server's tools
    /// (`mcp__memctl`), and its input.
    Tool {
        name: String,
        namespace: Option<String>,
        input: Value,
    },
}

/// When the conversation holds `phrase`, the model plays `steps`.
#[derive(Clone, Debug)]
pub struct Rule {
    pub phrase: String,
    pub steps: Vec<Step>,
}

#[derive(Default)]
struct State {
    log: Vec<Logged>,
    rules: Vec<Rule>,
    replies: u64,
}

/// The running fake; it stops with the test process.
pub struct FakeApi {
    pub port: u16,
    state: Arc<Mutex<State>>,
}

impl FakeApi {
    pub fn start() -> FakeApi {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().expect("its address").port();
        let state = Arc::new(Mutex::new(State::default()));
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = Arc::clone(&shared);
                std::thread::spawn(move || serve(stream, &state));
            }
        });
        FakeApi { port, state }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Scripts the model: later rules are tried first.
    pub fn script(&self, phrase: &str, steps: Vec<Step>) {
        let mut state = self.state.lock().unwrap();
        state.rules.insert(
            0,
            Rule {
                phrase: phrase.to_string(),
                steps,
            },
        );
    }

    pub fn requests(&self) -> Vec<Logged> {
        self.state.lock().unwrap().log.clone()
    }

    /// The model calls since the `skip` first requests.
    pub fn model_calls_after(&self, skip: usize) -> Vec<Logged> {
        self.requests()
            .into_iter()
            .skip(skip)
            .filter(Logged::is_model_call)
            .collect()
    }

    /// Requests for anything but the loopback fake: hosts an agent tried
    /// to reach through its proxy.
    pub fn escapes(&self) -> Vec<String> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == "CONNECT" || r.path.starts_with("http"))
            .map(|r| format!("{} {}", r.method, r.path))
            .collect()
    }
}

/// Text for a tool call's step.
pub fn tool(name: &str, input: Value) -> Step {
    Step::Tool {
        name: name.to_string(),
        namespace: None,
        input,
    }
}

/// One connection: requests one after another (keep-alive) until it closes.
fn serve(stream: TcpStream, state: &Mutex<State>) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        let Some((method, path, headers)) = read_head(&mut reader) else {
            return;
        };
        let body = read_body(&mut reader, &headers);
        let logged = Logged {
            method: method.clone(),
            path: path.clone(),
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        };
        state.lock().unwrap().log.push(logged.clone());
        let keep_open = answer(&mut writer, &logged, state);
        if !keep_open {
            return;
        }
    }
}

/// A request's method, target and headers (names lower-cased).
type Head = (String, String, Vec<(String, String)>);

/// The request line and the headers; `None` at the end.
fn read_head(reader: &mut impl BufRead) -> Option<Head> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut words = line.split_whitespace();
    let method = words.next()?.to_string();
    let path = words.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    Some((method, path, headers))
}

fn read_body(reader: &mut impl BufRead, headers: &[(String, String)]) -> Vec<u8> {
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let mut body = Vec::new();
    if let Some(length) = header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(length, 0);
        let _ = reader.read_exact(&mut body);
    } else if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        loop {
            let mut size = String::new();
            if reader.read_line(&mut size).unwrap_or(0) == 0 {
                break;
            }
            let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            let mut chunk = vec![0; size + 2];
            if size == 0 || reader.read_exact(&mut chunk).is_err() {
                let mut end = String::new();
                let _ = reader.read_line(&mut end);
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    }
    body
}

/// Writes the answer to `request`; false when the connection is to close.
fn answer(writer: &mut TcpStream, request: &Logged, state: &Mutex<State>) -> bool {
    if request.method == "CONNECT" || request.path.starts_with("http") {
        let _ = writer
            .write_all(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        return false;
    }
    if request.path.starts_with("/v1/messages/count_tokens") {
        return json_reply(writer, 200, &json!({"input_tokens": 100}));
    }
    if request.method != "POST" || !request.is_model_call() {
        return json_reply(
            writer,
            404,
            &json!({"error": {"type": "not_found", "message": "not here"}}),
        );
    }
    let (step, n) = {
        let mut state = state.lock().unwrap();
        state.replies += 1;
        (next_step(&state.rules, request), state.replies)
    };
    if request.path.starts_with("/v1/responses") {
        sse_reply(writer, &openai_events(&step, n))
    } else if request.body["stream"] == true {
        sse_reply(writer, &anthropic_events(&step, n, request))
    } else {
        json_reply(writer, 200, &anthropic_message(&step, n, request))
    }
}

/// The step of the first rule whose phrase the conversation holds, chosen
/// by how many tool results the conversation already carries.
fn next_step(rules: &[Rule], request: &Logged) -> Step {
    let conversation = request.conversation();
    let results = conversation.matches("\"tool_result\"").count()
        + conversation.matches("\"function_call_output\"").count();
    rules
        .iter()
        .find(|rule| conversation.contains(&rule.phrase))
        .and_then(|rule| {
            rule.steps
                .get(results.min(rule.steps.len().saturating_sub(1)))
                .cloned()
        })
        .unwrap_or_else(|| Step::Text("OK.".to_string()))
}

fn json_reply(writer: &mut TcpStream, status: u16, body: &Value) -> bool {
    let body = body.to_string();
    let head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        if status == 200 { "OK" } else { "Not Found" },
        body.len()
    );
    writer
        .write_all(head.as_bytes())
        .and_then(|()| writer.write_all(body.as_bytes()))
        .is_ok()
}

/// A stream of server-sent events, then the connection closed.
fn sse_reply(writer: &mut TcpStream, events: &[(&str, Value)]) -> bool {
    let mut out = String::from(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
    );
    for (name, data) in events {
        out += &format!("event: {name}\ndata: {data}\n\n");
    }
    let _ = writer.write_all(out.as_bytes());
    let _ = writer.flush();
    false
}

fn anthropic_content(step: &Step, n: u64) -> (Value, &'static str) {
    match step {
        Step::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
        Step::Tool { name, input, .. } => (
            json!({"type": "tool_use", "id": format!("toolu_{n}"), "name": name, "input": input}),
            "tool_use",
        ),
    }
}

fn anthropic_message(step: &Step, n: u64, request: &Logged) -> Value {
    let (content, stop) = anthropic_content(step, n);
    json!({
        "id": format!("msg_{n}"), "type": "message", "role": "assistant",
        "model": request.body["model"], "content": [content],
        "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    })
}

fn anthropic_events(step: &Step, n: u64, request: &Logged) -> Vec<(&'static str, Value)> {
    let (content, stop) = anthropic_content(step, n);
    let (start, delta) = match step {
        Step::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
        ),
        Step::Tool { input, .. } => {
            let mut start = content.clone();
            start["input"] = json!({});
            (
                start,
                json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            )
        }
    };
    vec![
        (
            "message_start",
            json!({"type": "message_start", "message": {
                "id": format!("msg_{n}"), "type": "message", "role": "assistant",
                "model": request.body["model"], "content": [], "stop_reason": null,
                "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                   "usage": {"output_tokens": 5}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]
}

fn openai_events(step: &Step, n: u64) -> Vec<(&'static str, Value)> {
    let id = format!("resp_{n}");
    let item = match step {
        Step::Text(text) => json!({
            "type": "message", "role": "assistant", "id": format!("msg_{n}"),
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }),
        Step::Tool {
            name,
            namespace,
            input,
        } => {
            let mut item = json!({
                "type": "function_call", "id": format!("fc_{n}"), "call_id": format!("call_{n}"),
                "name": name, "arguments": input.to_string(),
            });
            if let Some(namespace) = namespace {
                item["namespace"] = json!(namespace);
            }
            item
        }
    };
    vec![
        (
            "response.created",
            json!({"type": "response.created", "response": {"id": id}}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {"id": id, "usage": {
                "input_tokens": 10, "input_tokens_details": null, "output_tokens": 5,
                "output_tokens_details": null, "total_tokens": 15}}}),
        ),
    ]
}
