//! The server's standard input and output, with a thin line filter in
//! front of rmcp. rmcp drops a line that is not JSON without a word,
//! answers a batch or any JSON that is not an object with -32600 but no
//! `id` at all, and answers a `tools/call` whose `params` are malformed
//! with -32601 "method not found", which misleads a client's author. The
//! filter answers those lines itself as JSON-RPC asks (-32700 and -32600
//! with a null id, -32602 naming the field) and passes every other line to
//! rmcp untouched. All output goes
//! through one writer that writes whole lines, so an answer of the filter
//! never lands inside one of rmcp's, and that escapes DEL and C1 as all of
//! memctl's JSON does.

use rmcp::model::ErrorData;
use rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt as _, AsyncRead, AsyncReadExt as _, AsyncWrite,
    AsyncWriteExt as _, BufReader, DuplexStream,
};
use tokio::sync::mpsc;

use super::strict::{self, StrictError};

/// A line longer than this is answered with an error and never held whole
/// (rmcp's own limit, so that what passes the filter also passes rmcp).
const MAX_LINE_BYTES: usize = DEFAULT_MAX_LINE_LENGTH;
/// Bytes buffered between the filter, rmcp and the writer.
const PIPE_BYTES: usize = 64 * 1024;
/// Error answers waiting for the writer; past this the filter stops
/// reading, so a client that sends garbage and never reads cannot make the
/// server's memory grow.
const ERRORS_QUEUED: usize = 64;
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The two ends rmcp serves on, and the tasks that feed and drain them.
pub struct Pipes {
    /// rmcp reads the lines that passed the filter from here.
    pub to_rmcp: DuplexStream,
    /// rmcp writes its answers here.
    pub from_rmcp: DuplexStream,
    /// Ends when rmcp's answers end; everything is written then.
    pub writer: tokio::task::JoinHandle<std::io::Result<()>>,
    pub filter: tokio::task::JoinHandle<()>,
}

/// Starts the filter on `input` and the writer on `output` (standard input
/// and output in the server; pipes in tests). Call within a Tokio runtime.
pub fn start<R, W>(input: R, output: W) -> Pipes
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (to_rmcp, feed) = tokio::io::duplex(PIPE_BYTES);
    let (from_rmcp, answers) = tokio::io::duplex(PIPE_BYTES);
    let (errors, error_lines) = mpsc::channel(ERRORS_QUEUED);
    let filter = tokio::spawn(filter(BufReader::new(input), feed, errors));
    let writer = tokio::spawn(write_out(BufReader::new(answers), error_lines, output));
    Pipes {
        to_rmcp,
        from_rmcp,
        writer,
        filter,
    }
}

/// Reads `input` line by line: a line rmcp would mishandle is answered
/// through `errors`, any other goes to `feed`. Ends at the end of input
/// (rmcp sees its end then) or when rmcp stops reading.
async fn filter<R: AsyncBufRead + Unpin>(
    mut input: R,
    mut feed: DuplexStream,
    errors: mpsc::Sender<String>,
) {
    let mut line = Vec::new();
    loop {
        let answer = match read_line(&mut input, &mut line).await {
            Ok(Line::End) | Err(_) => return,
            Ok(Line::TooLong) => Some(error_line(
                &Value::Null,
                ErrorData::parse_error(
                    format!(
                        "Parse error: a message longer than {} MiB was not read",
                        MAX_LINE_BYTES / 1024 / 1024
                    ),
                    None,
                ),
            )),
            Ok(Line::Whole) => verdict(&line),
        };
        match answer {
            // The writer is gone only when the session is over.
            Some(answer) => {
                if errors.send(answer).await.is_err() {
                    return;
                }
            }
            None => {
                if feed.write_all(&line).await.is_err() {
                    return;
                }
            }
        }
    }
}

enum Line {
    Whole,
    TooLong,
    End,
}

/// The next line of `input` in `line` (with its newline), never holding
/// more than [`MAX_LINE_BYTES`] of it: the rest of a longer line is read
/// and dropped.
async fn read_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
) -> std::io::Result<Line> {
    line.clear();
    // rmcp's limit counts the newline: a line it would drop never passes.
    let limit = MAX_LINE_BYTES as u64;
    if (&mut *input).take(limit).read_until(b'\n', line).await? == 0 {
        return Ok(Line::End);
    }
    if line.ends_with(b"\n") || line.len() < MAX_LINE_BYTES {
        return Ok(Line::Whole);
    }
    line.clear();
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(Line::TooLong);
        }
        let (used, ended) = match available.iter().position(|b| *b == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        input.consume(used);
        if ended {
            return Ok(Line::TooLong);
        }
    }
}

/// The answer to `line` when rmcp would drop or mislabel it; `None` to
/// pass it on.
fn verdict(line: &[u8]) -> Option<String> {
    let text = line.strip_suffix(b"\n").unwrap_or(line);
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    let text = text.strip_prefix(UTF8_BOM).unwrap_or(text);
    if text.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let message: Value = match strict::parse(text) {
        Ok(message) => message,
        // serde_json's message names the line and column, never the text.
        Err(StrictError::Syntax(e)) => {
            return Some(error_line(
                &Value::Null,
                ErrorData::parse_error(format!("Parse error: the message is not JSON ({e})"), None),
            ));
        }
        Err(StrictError::Duplicate(duplicate)) => return Some(duplicate_answer(text, &duplicate)),
    };
    if !message.is_object() {
        return Some(error_line(&Value::Null, not_a_request(&message)));
    }
    if let Some(id) = message.get("id")
        && !is_request_id(id)
    {
        // rmcp answers these without any `id`; JSON-RPC asks for `null`.
        return Some(error_line(
            &Value::Null,
            ErrorData::invalid_request(
                format!(
                    "Invalid Request: `id` must be a string or a whole number, not {}",
                    id_kind(id)
                ),
                None,
            ),
        ));
    }
    let id = message.get("id")?;
    let method = message.get("method").and_then(Value::as_str)?;
    let problem = params_problem(method, message.get("params"))?;
    Some(error_line(
        id,
        ErrorData::invalid_params(format!("Invalid params: {problem}"), None),
    ))
}

/// A request id rmcp reads: a string, or a number it holds as an `i64`.
fn is_request_id(id: &Value) -> bool {
    id.is_string() || id.as_i64().is_some()
}

fn id_kind(id: &Value) -> &'static str {
    match id {
        Value::Number(_) => "a number with a fraction or beyond 64 bits",
        other => kind(other),
    }
}

/// The answer to a message that names a key twice: which value a reader
/// takes is up to it (serde_json the last, a client showing a call for
/// approval perhaps the first), so nothing in it is done. Inside `params`
/// it is -32602 "Invalid params" with the request's id; elsewhere -32600,
/// with the id when the id itself is not in doubt.
fn duplicate_answer(text: &[u8], duplicate: &strict::Duplicate) -> String {
    let plain: Value = serde_json::from_slice(text).unwrap_or(Value::Null);
    let id_in_doubt = duplicate.path.is_empty() && duplicate.key == "\"id\"";
    let id = match plain.get("id") {
        Some(id) if is_request_id(id) && !id_in_doubt => id.clone(),
        _ => Value::Null,
    };
    let error = if duplicate.path.first().is_some_and(|k| k == "params") {
        ErrorData::invalid_params(format!("Invalid params: {duplicate}"), None)
    } else {
        ErrorData::invalid_request(format!("Invalid Request: {duplicate}"), None)
    };
    error_line(&id, error)
}

/// The answer to a message that is not an object: JSON-RPC's -32600, with
/// the `null` id it asks for when the request's id cannot be known.
fn not_a_request(message: &Value) -> ErrorData {
    let why = match message {
        Value::Array(_) => {
            "a batch (a JSON array) is not accepted: MCP has no batches; send one message a line"
                .to_string()
        }
        other => format!("a message is a JSON object, not {}", kind(other)),
    };
    ErrorData::invalid_request(format!("Invalid Request: {why}"), None)
}

/// What is wrong with a request's `params`, for the methods whose malformed
/// params rmcp would answer as an unknown method.
fn params_problem(method: &str, params: Option<&Value>) -> Option<String> {
    let fields: &[(&str, Shape, bool)] = match method {
        "tools/call" => &[
            ("name", Shape::Text, true),
            ("arguments", Shape::Object, false),
        ],
        "resources/read" => &[("uri", Shape::Text, true)],
        _ => return None,
    };
    let Some(Value::Object(params)) = params else {
        return Some(format!(
            "{method} needs `params`, a JSON object, not {}",
            kind(params.unwrap_or(&Value::Null))
        ));
    };
    for &(field, shape, required) in fields {
        match params.get(field) {
            None | Some(Value::Null) if required => {
                return Some(format!("{method} needs `{field}`, {}", shape.name()));
            }
            None | Some(Value::Null) => {}
            Some(value) if shape.fits(value) => {}
            Some(other) => {
                return Some(format!(
                    "`{field}` of {method} must be {}, not {}",
                    shape.name(),
                    kind(other)
                ));
            }
        }
    }
    None
}

/// What a field of `params` must be.
#[derive(Clone, Copy)]
enum Shape {
    Text,
    /// A tool's arguments: a JSON object of name and value.
    Object,
}

impl Shape {
    fn fits(self, value: &Value) -> bool {
        match self {
            Shape::Text => value.is_string(),
            Shape::Object => value.is_object(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Shape::Text => "a string",
            Shape::Object => "a JSON object of argument names and values",
        }
    }
}

/// A JSON type's name, for a message that never repeats the value.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON-RPC error answer as one line. The id is the request's own, and a
/// control character in it is escaped like any in memctl's JSON.
fn error_line(id: &Value, error: ErrorData) -> String {
    let answer = json!({"jsonrpc": "2.0", "id": id, "error": error});
    mdstore::escape::escape_json_controls(&answer.to_string()) + "\n"
}

/// Writes rmcp's answers and the filter's, each line whole, until rmcp's
/// answers end.
async fn write_out<A, W>(
    mut answers: A,
    mut error_lines: mpsc::Receiver<String>,
    mut output: W,
) -> std::io::Result<()>
where
    A: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut line = Vec::new();
    loop {
        tokio::select! {
            // A cancelled read keeps its bytes in `line`: the next read
            // goes on with the same answer.
            read = answers.read_until(b'\n', &mut line) => {
                if read? == 0 {
                    output.write_all(escaped(&line).as_bytes()).await?;
                    // The filter queued its answers before rmcp saw the
                    // end of input: they are written too.
                    error_lines.close();
                    while let Some(error) = error_lines.recv().await {
                        output.write_all(error.as_bytes()).await?;
                    }
                    return output.flush().await;
                }
                if line.ends_with(b"\n") {
                    output.write_all(escaped(&line).as_bytes()).await?;
                    output.flush().await?;
                    line.clear();
                }
            }
            Some(error) = error_lines.recv() => {
                output.write_all(error.as_bytes()).await?;
                output.flush().await?;
            }
        }
    }
}

/// An answer of rmcp's with DEL and C1 escaped: rmcp repeats an unknown
/// method's name in its error, and serde_json writes those raw.
fn escaped(line: &[u8]) -> String {
    mdstore::escape::escape_json_controls(&String::from_utf8_lossy(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer_of(line: &str) -> Option<Value> {
        verdict(line.as_bytes()).map(|text| {
            assert!(
                text.ends_with('\n') && text.matches('\n').count() == 1,
                "{text:?}"
            );
            serde_json::from_str(&text).unwrap()
        })
    }

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    /// Issue 25 item 5: `{"name":"dupkey","name":"other"}` wrote `other`,
    /// while a client showing the first key for approval showed `dupkey`.
    #[test]
    fn mcp_arguments_with_a_duplicated_key_were_applied() {
        let line = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"remember","arguments":{"name":"dupkey","name":"other","type":"project"}}}"#;
        let answer = answer_of(line).unwrap();
        assert_eq!(answer["id"], 7, "{answer}");
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        assert_eq!(
            answer["error"]["message"],
            "Invalid params: the key \"name\" appears twice in one object (in \"params\" → \"arguments\")"
        );
        let line = r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","method":"tools/list"}"#;
        let answer = answer_of(line).unwrap();
        assert_eq!(
            (answer["id"].clone(), answer["error"]["code"].clone()),
            (8.into(), (-32600).into())
        );
        let line = r#"{"jsonrpc":"2.0","id":8,"id":9,"method":"tools/list"}"#;
        let answer = answer_of(line).unwrap();
        assert_eq!(answer["id"], Value::Null, "the id is in doubt: {answer}");
        assert_eq!(answer["error"]["code"], -32600);
    }

    /// Issue 25 item 5: rmcp answered an id that is not a string or a
    /// whole number with -32600 and no `id` at all.
    #[test]
    fn a_request_id_that_is_not_a_string_or_a_whole_number_had_no_null_id() {
        for id in [
            "true",
            "null",
            "1.5",
            "{\"a\":1}",
            "[1]",
            "99999999999999999999",
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
            let answer = answer_of(&line).unwrap_or_else(|| panic!("{id} passed"));
            assert_eq!(answer["id"], Value::Null, "{id}: {answer}");
            assert!(answer.as_object().unwrap().contains_key("id"), "{answer}");
            assert_eq!(answer["error"]["code"], -32600, "{id}: {answer}");
        }
        for id in ["1", "-3", "\"abc\""] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
            assert_eq!(answer_of(&line), None, "{id} is a good id");
        }
    }

    #[test]
    fn a_line_that_is_not_json_is_a_parse_error_with_a_null_id() {
        for line in [
            "not json\n",
            "{\"id\": 1,\n",
            "\u{1b}[2J\n",
            "{\"a\":\"\0\"}\n",
        ] {
            let answer = answer_of(line).unwrap();
            assert_eq!(answer["id"], Value::Null, "{line:?}: {answer}");
            assert_eq!(answer["error"]["code"], -32700, "{line:?}: {answer}");
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(
                !message.contains("[2J"),
                "the line is not repeated: {message}"
            );
        }
    }

    #[test]
    fn tools_call_arguments_that_are_not_an_object_are_invalid_params_naming_arguments() {
        for (arguments, kind) in [
            ("\"x\"", "a string"),
            ("[1]", "an array"),
            ("7", "a number"),
            ("true", "a boolean"),
        ] {
            let line = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":\"c1\",\"method\":\"tools/call\",\"params\":{{\"name\":\"search\",\"arguments\":{arguments}}}}}\n"
            );
            let answer = answer_of(&line).unwrap();
            assert_eq!(answer["id"], "c1");
            assert_eq!(answer["error"]["code"], -32602);
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(
                message.contains("`arguments`") && message.ends_with(kind),
                "{message}"
            );
        }
        let answer =
            answer_of("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":[]}")
                .unwrap();
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("`params`")
        );
        let answer = answer_of(
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":1}}",
        )
        .unwrap();
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("`uri`")
        );
    }

    #[test]
    fn well_formed_lines_and_what_rmcp_answers_well_pass_untouched() {
        for line in [
            "\n",
            "  \r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":{\"query\":\"x\"}}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"list\"}}\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"list\",\"arguments\":null}}\n",
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":\"a notification gets no answer\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\",\"params\":7}\n",
        ] {
            assert_eq!(answer_of(line), None, "{line:?}");
        }
    }

    #[test]
    fn a_batch_or_any_json_but_an_object_is_an_invalid_request_with_a_null_id() {
        for line in [
            "[{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}]\n",
            "[]\n",
            "5\n",
            "\"ping\"\n",
            "null\n",
            "true\n",
        ] {
            let answer = answer_of(line).unwrap();
            assert_eq!(answer["id"], Value::Null, "{line:?}: {answer}");
            assert!(answer.as_object().unwrap().contains_key("id"), "{answer}");
            assert_eq!(answer["error"]["code"], -32600, "{line:?}: {answer}");
        }
    }

    #[test]
    fn an_error_answer_escapes_every_control_character_of_the_id() {
        let line = "{\"jsonrpc\":\"2.0\",\"id\":\"\u{9b}2J\\u001b\",\"method\":\"tools/call\"}\n";
        let text = verdict(line.as_bytes()).unwrap();
        assert!(text.trim_end().chars().all(|c| !c.is_control()), "{text:?}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["id"], "\u{9b}2J\u{1b}");
    }

    #[test]
    fn a_line_longer_than_rmcps_limit_is_answered_never_held_and_the_next_line_read() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\n{}\n");
        // One byte more than rmcp takes, its newline counted.
        let mut one_too_many = vec![b'z'; MAX_LINE_BYTES];
        one_too_many.push(b'\n');
        input.extend_from_slice(&one_too_many);
        let mut exact = vec![b'y'; MAX_LINE_BYTES - 1];
        exact.push(b'\n');
        input.extend_from_slice(&exact);
        let mut reader = BufReader::new(input.as_slice());
        let mut line = Vec::new();
        block_on(async {
            assert!(matches!(
                read_line(&mut reader, &mut line).await.unwrap(),
                Line::TooLong
            ));
            assert!(line.is_empty(), "a long line is never held whole");
            assert!(matches!(
                read_line(&mut reader, &mut line).await.unwrap(),
                Line::Whole
            ));
            assert_eq!(line, b"{}\n");
            assert!(matches!(
                read_line(&mut reader, &mut line).await.unwrap(),
                Line::TooLong
            ));
            assert!(matches!(
                read_line(&mut reader, &mut line).await.unwrap(),
                Line::Whole
            ));
            assert_eq!(line, exact);
            assert!(matches!(
                read_line(&mut reader, &mut line).await.unwrap(),
                Line::End
            ));
        });
    }

    #[test]
    fn an_error_answer_never_lands_inside_one_of_rmcps() {
        let (mut rmcp, answers) = tokio::io::duplex(PIPE_BYTES);
        let (errors, error_lines) = mpsc::channel(ERRORS_QUEUED);
        let mut output = Vec::new();
        block_on(async {
            let drive = async {
                rmcp.write_all(b"{\"id\":1,").await.unwrap();
                for _ in 0..10 {
                    tokio::task::yield_now().await;
                }
                errors.send("{\"id\":null}\n".to_string()).await.unwrap();
                for _ in 0..10 {
                    tokio::task::yield_now().await;
                }
                rmcp.write_all(b"\"result\":{}}\n").await.unwrap();
                drop(rmcp);
            };
            let (written, ()) = tokio::join!(
                write_out(BufReader::new(answers), error_lines, &mut output),
                drive
            );
            written.unwrap();
        });
        assert_eq!(
            String::from_utf8(output).unwrap(),
            "{\"id\":null}\n{\"id\":1,\"result\":{}}\n"
        );
    }

    #[test]
    fn a_client_that_sends_garbage_and_never_reads_cannot_grow_the_queue() {
        let input = "not json\n".repeat(ERRORS_QUEUED * 10);
        let (feed, _rmcp) = tokio::io::duplex(PIPE_BYTES);
        let (errors, error_lines) = mpsc::channel(ERRORS_QUEUED);
        block_on(async {
            let filtering = tokio::spawn(filter(
                BufReader::new(std::io::Cursor::new(input)),
                feed,
                errors,
            ));
            for _ in 0..1_000 {
                tokio::task::yield_now().await;
            }
            assert_eq!(error_lines.len(), ERRORS_QUEUED);
            assert!(!filtering.is_finished(), "the filter waits for the writer");
            filtering.abort();
        });
    }
}
