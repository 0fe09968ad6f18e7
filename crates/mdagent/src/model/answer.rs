//! What a model command printed, as the answer it carries. Runners wrap
//! their answer in their own JSON: `claude -p --output-format json` prints
//! one object, `{"type": "result", "subtype": "success", "is_error": false,
//! "result": "<the model's text>", "session_id": …, "total_cost_usd": …}`,
//! with `structured_output` beside `result` when it was given a JSON
//! Schema (`--json-schema`). Both `extract` and `dream` read the answer
//! through [`unwrapped`] first, so that the one rule lives here.

use std::borrow::Cow;

use serde_json::Value;

/// The answer inside `output`: a runner's result wrapper's text (or its
/// structured output), else `output` itself. A wrapper that says the run
/// failed (`is_error: true`) is an error carrying what it said, escaped.
pub fn unwrapped(output: &str) -> Result<Cow<'_, str>, String> {
    let trimmed = output.trim();
    if !trimmed.starts_with('{') {
        return Ok(Cow::Borrowed(output));
    }
    let Ok(Value::Object(wrapper)) = serde_json::from_str::<Value>(trimmed) else {
        return Ok(Cow::Borrowed(output));
    };
    if wrapper.get("type").and_then(Value::as_str) != Some("result") {
        return Ok(Cow::Borrowed(output));
    }
    let result = wrapper.get("result").and_then(Value::as_str);
    if wrapper.get("is_error").and_then(Value::as_bool) == Some(true) {
        let said = result.unwrap_or("no message");
        let said: String = said.chars().take(300).collect();
        return Err(format!(
            "the runner reported an error: {}",
            mdstore::escape::escape_controls(&said)
        ));
    }
    if let Some(structured) = wrapper.get("structured_output").filter(|v| !v.is_null()) {
        return Ok(Cow::Owned(structured.to_string()));
    }
    match result {
        Some(text) => Ok(Cow::Owned(text.to_string())),
        None => Err("the runner's result wrapper holds no \"result\" text".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_result_wrapper_gives_its_result_text() {
        let output = r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":2100,"num_turns":1,"result":"```json\n[]\n```","session_id":"s","total_cost_usd":0.01}"#;
        assert_eq!(unwrapped(output).unwrap(), "```json\n[]\n```");
    }

    #[test]
    fn structured_output_is_preferred_to_the_text() {
        let output = r#"{"type":"result","is_error":false,"result":"done","structured_output":{"candidates":[]}}"#;
        assert_eq!(unwrapped(output).unwrap(), r#"{"candidates":[]}"#);
    }

    #[test]
    fn an_error_wrapper_is_an_error_escaped() {
        let output = r#"{"type":"result","subtype":"error_during_execution","is_error":true,"result":"rate \u001b[31mlimited"}"#;
        let err = unwrapped(output).unwrap_err();
        assert!(err.contains("rate \\x1b[31mlimited"), "{err}");
    }

    #[test]
    fn other_answers_are_left_as_they_are() {
        for output in [
            "[]",
            "{\"version\":1,\"operations\":[]}",
            "{\"type\":\"user\"}",
            "not json",
        ] {
            assert_eq!(unwrapped(output).unwrap(), output);
        }
    }
}
