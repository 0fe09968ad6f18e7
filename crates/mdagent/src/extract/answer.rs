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
pub const ANSWER_SHAPE: &str = "the model command must print only a JSON array of {\"name\", \"type\", \"description\", \"body\", \"scope\": \"persistent\"|\"current_task\"} (optionally inside one ```json fence)";

/// Reads the model's answer: a JSON array of objects, each with a `scope`
/// of `persistent` or `current_task`. The array may stand inside one
/// Markdown code fence (models add one even when told not to); anything
/// else around it, or any element without a valid scope, makes the whole
/// answer unreadable. The other fields are checked as `remember
/// --from-json` checks them, candidate by candidate.
pub fn parse(answer: &str) -> Result<Vec<Proposal>, String> {
    let text = unfenced(answer.trim());
    let value: Value = serde_json::from_str(text).map_err(|e| format!("it is not JSON ({e})"))?;
    let Value::Array(elements) = value else {
        return Err("it is JSON but not an array".to_string());
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
            "it is JSON but not an array"
        );
    }
}
