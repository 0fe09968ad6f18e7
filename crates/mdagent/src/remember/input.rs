//! Candidates given as JSON (by an agent, `--from-json`): an array of
//! objects, or one object; and the name a candidate given without one
//! takes from its description. A candidate that cannot be read is that
//! candidate's refusal, not the batch's (SPEC §6); only text that is not
//! JSON at all fails the whole batch.

use mdstore::write::{candidate_from_json, json_name};

use super::say::{Parsed, Unreadable, label_candidate};
use crate::write_failure::WriteFailure;

/// What a list of candidates looks like, said when the text is not one.
pub const CANDIDATES_HINT: &str = "expected [{\"name\", \"type\", \"description\", \"body\", \"scope\"?, \"source\"?, \"expires\"?, \"tags\"?}]";

/// The candidates in `text`, read from `label` (a file, standard input).
pub fn candidates_from_json(label: &str, text: &str) -> Result<Vec<Parsed>, WriteFailure> {
    // Editors on Windows save JSON with a byte-order mark; serde_json does not skip it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        WriteFailure::bad_input(format!("{label}:{}:{}: {e}", e.line(), e.column()))
            .with_hint(CANDIDATES_HINT)
    })?;
    let values = match value {
        serde_json::Value::Array(values) => values,
        object @ serde_json::Value::Object(_) => vec![object],
        _ => {
            return Err(WriteFailure::bad_input(format!(
                "{label}: not a JSON array of candidates"
            ))
            .with_hint(CANDIDATES_HINT));
        }
    };
    Ok(values
        .iter()
        .enumerate()
        .map(|(n, value)| {
            candidate_from_json(value).map_err(|e| Unreadable {
                name: json_name(value).unwrap_or_default().to_string(),
                message: format!("{}: {e}", label_candidate(n, json_name(value))),
                dropped: false,
            })
        })
        .collect())
}

/// A name from the first words of a description: `Tests use pytest` → `tests-use-pytest`.
pub fn name_from_description(description: &str) -> String {
    let words: Vec<String> = description
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(6)
        .map(str::to_lowercase)
        .collect();
    words.join("-").chars().take(60).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_the_first_six_words_of_the_description_in_lower_case() {
        assert_eq!(
            name_from_description("Tests use pytest"),
            "tests-use-pytest"
        );
        assert_eq!(
            name_from_description("Deploys: never on Fridays, ever, at all, really"),
            "deploys-never-on-fridays-ever-at"
        );
        assert_eq!(name_from_description("…"), "");
    }
}
