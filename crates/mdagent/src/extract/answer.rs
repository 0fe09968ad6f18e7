//! How the model command's answer is read: strictly, so that an answer
//! memctl cannot read writes nothing.

use serde_json::Value;

/// One element of the answer: the candidate's fields for `remember`, and
/// whether it is meant to outlive the session.
#[derive(Debug)]
pub struct Proposal {
    pub fields: Value,
    pub persistent: bool,
}

impl Proposal {
    /// The description and body as the model gave them, when they are strings.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        ["description", "body"]
            .into_iter()
            .filter_map(|key| self.fields.get(key).and_then(Value::as_str))
    }
}

/// The shape of an answer, for hints.
pub const ANSWER_SHAPE: &str = "the model command must print only JSON: {\"candidates\": [...]} or a bare array of {\"name\", \"type\", \"description\", \"body\", \"scope\": \"persistent\"|\"current_task\"} (optionally inside one ```json fence, or as claude -p --output-format json's result); the request's answer_schema is its JSON Schema";

/// Reads the model's answer: `{"candidates": [...]}` (JSON modes such as
/// `llm -o json_object 1` and `ollama --format json` cannot print a
/// top-level array) or the bare array, of objects each with a `scope` of
/// `persistent` or `current_task`. A runner's result wrapper is taken off
/// first ([`crate::model::answer`]); the JSON may stand inside one Markdown
/// code fence (models add one even when told not to). Anything else around
/// it, any other key beside `candidates`, or any element without a valid
/// scope makes the whole answer unreadable. The other fields are checked
/// as `remember --from-json` checks them, candidate by candidate.
pub fn parse(answer: &str) -> Result<Vec<Proposal>, String> {
    let answer = crate::model::answer::unwrapped(answer)?;
    let text = unfenced(answer.trim());
    let value: Value = serde_json::from_str(text).map_err(|e| format!("it is not JSON ({e})"))?;
    let elements = match value {
        Value::Array(elements) => elements,
        Value::Object(mut object) => match object.remove("candidates") {
            Some(Value::Array(elements)) if object.is_empty() => elements,
            Some(Value::Array(_)) => {
                return Err("its object holds other keys beside \"candidates\"".to_string());
            }
            Some(_) => return Err("its \"candidates\" is not an array".to_string()),
            None => return Err("it is a JSON object without \"candidates\"".to_string()),
        },
        _ => return Err("it is JSON but neither an array nor {\"candidates\": [...]}".to_string()),
    };
    elements
        .into_iter()
        .enumerate()
        .map(|(n, element)| proposal(element).map_err(|e| format!("element {}: {e}", n + 1)))
        .collect()
}

fn proposal(element: Value) -> Result<Proposal, String> {
    let Value::Object(mut fields) = element else {
        return Err("not an object".to_string());
    };
    let persistent = match fields.remove("scope") {
        Some(Value::String(scope)) if scope == "persistent" => true,
        Some(Value::String(scope)) if scope == "current_task" => false,
        Some(_) => return Err("scope must be \"persistent\" or \"current_task\"".to_string()),
        None => return Err("no scope (\"persistent\" or \"current_task\")".to_string()),
    };
    Ok(Proposal {
        fields: Value::Object(fields),
        persistent,
    })
}

/// The inside of one ```/```json fence wrapping the whole answer, or the answer.
fn unfenced(answer: &str) -> &str {
    let Some(rest) = answer.strip_prefix("```") else {
        return answer;
    };
    let Some((info, inside)) = rest.split_once('\n') else {
        return answer;
    };
    if !matches!(info.trim(), "" | "json") {
        return answer;
    }
    inside
        .trim_end()
        .strip_suffix("```")
        .filter(|inside| !inside.contains("```"))
        .unwrap_or(answer)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fenced_array_is_read_and_scope_is_taken_out() {
        let answer = "```json\n[{\"name\":\"a\",\"scope\":\"persistent\"},{\"name\":\"b\",\"scope\":\"current_task\"}]\n```\n";
        let proposals = parse(answer).unwrap();
        assert_eq!(proposals.len(), 2);
        assert!(proposals[0].persistent && !proposals[1].persistent);
        assert_eq!(proposals[0].fields, json!({"name": "a"}));
    }

    #[test]
    fn prose_around_the_json_is_malformed() {
        let err = parse("Sure! Here are the memories:\n[]").unwrap_err();
        assert!(err.starts_with("it is not JSON"), "{err}");
        let err = parse("```json\n[]\n```\nand more ```").unwrap_err();
        assert!(err.starts_with("it is not JSON"), "{err}");
    }

    #[test]
    fn missing_or_unknown_scope_makes_the_answer_unreadable() {
        let err = parse(r#"[{"name":"a"}]"#).unwrap_err();
        assert_eq!(
            err,
            "element 1: no scope (\"persistent\" or \"current_task\")"
        );
        let err = parse(r#"[{"name":"a","scope":"forever"}]"#).unwrap_err();
        assert!(err.starts_with("element 1: scope must be"), "{err}");
        assert_eq!(
            parse(r#"{"name":"a"}"#).unwrap_err(),
            "it is a JSON object without \"candidates\""
        );
        assert!(parse("3").unwrap_err().contains("neither an array"));
    }

    #[test]
    fn json_mode_object_and_claude_wrapper_are_read() {
        let object = r#"{"candidates":[{"name":"a","scope":"persistent"}]}"#;
        assert_eq!(parse(object).unwrap().len(), 1);
        let wrapped = serde_json::json!({"type": "result", "is_error": false,
            "result": format!("```json\n{object}\n```")})
        .to_string();
        assert_eq!(parse(&wrapped).unwrap()[0].fields, json!({"name": "a"}));
        let err = parse(r#"{"candidates":[],"note":"x"}"#).unwrap_err();
        assert!(err.contains("other keys"), "{err}");
        let err = parse(r#"{"candidates":{}}"#).unwrap_err();
        assert!(err.contains("not an array"), "{err}");
    }
}
