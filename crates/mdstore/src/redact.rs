//! Keeping secrets out of what memctl shows or sends (SPEC §6: no output
//! may echo a secret, not even one it refuses): the one place where text
//! holding one is replaced by a note naming the rule, never the secret.
//!
//! - a value (an argument, a name, a string in JSON) is replaced whole by
//!   [`value_note`]'s `<hidden: looks like a secret (rule …)>`;
//! - a line of text (a record's lines, a diff, a message) is replaced by
//!   [`line_note`]'s `<a line hidden: it looks like it holds a secret (rule …)>`.

use std::ffi::OsStr;

use crate::escape::for_message;
use crate::guard::secrets::find_secrets;
pub use crate::guard::secrets::secret_note as value_note;

/// What stands instead of a line that holds a secret matching `rule`.
pub fn line_note(rule: &str) -> String {
    format!("<a line hidden: it looks like it holds a secret (rule {rule})>")
}

/// What of a hidden line's start is kept before the note, so that the
/// text around it still reads as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Nothing: the whole line is the note.
    Nothing,
    /// Its indentation (an indented block of a plan).
    Indent,
    /// A unified diff's `+`, `-` or space.
    DiffMarker,
}

impl Keep {
    fn prefix(self, line: &str) -> &str {
        match self {
            Keep::Nothing => "",
            Keep::Indent => &line[..line.len() - line.trim_start().len()],
            Keep::DiffMarker => match line.as_bytes().first() {
                Some(b'+' | b'-' | b' ') => &line[..1],
                _ => "",
            },
        }
    }
}

/// `text` with every line that holds a secret replaced by [`line_note`],
/// keeping what `keep` says of its start; other lines, and line endings,
/// as they were.
pub fn lines(text: &str, keep: Keep) -> String {
    let mut out = String::with_capacity(text.len());
    for piece in text.split_inclusive('\n') {
        let line = piece.trim_end_matches('\n');
        let line = line.strip_suffix('\r').unwrap_or(line);
        match find_secrets(line).first() {
            None => out += piece,
            Some(found) => {
                out += keep.prefix(line);
                out += &line_note(found.rule);
                if piece.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// Every string in `value` that holds a secret replaced by [`value_note`].
pub fn json_strings(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) => {
            if let Some(note) = value_note(text) {
                *text = note;
            }
        }
        serde_json::Value::Array(values) => values.iter_mut().for_each(json_strings),
        serde_json::Value::Object(map) => map.values_mut().for_each(json_strings),
        _ => {}
    }
}

/// The widths messages cut an echoed value to ([`for_message`]).
const MESSAGE_CUTS: [usize; 3] = [40, 60, 80];

/// `text` (a message about a command's or a call's arguments) with every
/// one of `given` that holds a secret replaced by [`value_note`]: whole,
/// its value after the first `=` (`--type=VALUE`, echoed alone), and as
/// messages cut it; then any line still holding a secret hidden whole
/// ([`lines`]).
pub fn arguments(text: &str, given: &[impl AsRef<OsStr>]) -> String {
    let mut out = text.to_string();
    for given in given {
        let given = given.as_ref().to_string_lossy();
        let Some(note) = value_note(&given) else {
            continue;
        };
        let value = given.split_once('=').map(|(_, value)| value.to_string());
        let cuts = MESSAGE_CUTS.map(|cut| for_message(&given, cut));
        let echoes = std::iter::once(given.as_ref())
            .chain(value.as_deref())
            .chain(cuts.iter().map(|cut| cut.trim_end_matches('…')));
        for echoed in echoes {
            if !echoed.is_empty() {
                out = out.replace(echoed, &note);
            }
        }
    }
    lines(&out, Keep::Nothing)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "AKIAIOSFODNN7EXAMPLF";

    #[test]
    fn a_hidden_line_keeps_what_it_is_told_and_its_line_ending() {
        let text = format!("ok\n   key {KEY}\r\n+{KEY}\nend");
        let note = line_note("aws-access-key-id");
        assert_eq!(
            lines(&text, Keep::Nothing),
            format!("ok\n{note}\n{note}\nend")
        );
        assert_eq!(
            lines(&text, Keep::Indent),
            format!("ok\n   {note}\n{note}\nend")
        );
        assert_eq!(
            lines(&text, Keep::DiffMarker),
            format!("ok\n {note}\n+{note}\nend")
        );
        assert_eq!(lines("no secret\r\n", Keep::Nothing), "no secret\r\n");
    }

    #[test]
    fn json_strings_holding_a_secret_become_notes() {
        let mut value = serde_json::json!({"a": [format!("key {KEY}"), "fine"], "n": 1});
        json_strings(&mut value);
        assert_eq!(value["a"][1], "fine");
        assert!(
            value["a"][0]
                .as_str()
                .is_some_and(|s| s.starts_with("<hidden: looks like a secret"))
        );
    }

    #[test]
    fn an_argument_is_hidden_whole_and_cut() {
        let long = format!("{KEY} {}", "x".repeat(60));
        let message = format!("no record \"{}\"", for_message(&long, 40));
        let hidden = arguments(&message, &[long.as_str()]);
        assert!(!hidden.contains("AKIA"), "{hidden}");
        assert!(hidden.contains("<hidden: looks like a secret"), "{hidden}");
        assert_eq!(arguments("no record \"x\"", &["x"]), "no record \"x\"");
    }
}
