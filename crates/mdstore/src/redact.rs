//! Keeping secrets out of what memctl shows or sends (SPEC §6: no output
//! may echo a secret, not even one it refuses): the one place where text
//! holding one is replaced by a note naming the rule, never the secret.
//!
//! - a value (an argument, a name, a string in JSON) is replaced whole by
//!   [`value_note`]'s `<hidden: looks like a secret (rule …)>`;
//! - a line of text (a record's lines, a diff, a message) is replaced by
//!   [`line_note`]'s `<a line hidden: it looks like it holds a secret (rule …)>`;
//!   the lines of a private key after its `-----BEGIN … PRIVATE KEY-----`
//!   line (which the rules find alone, SECRETS.md) are hidden with it.

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
    lines_hidden(text, keep).0
}

/// The rule whose match opens a private key block (the key's lines follow).
const KEY_BLOCK_RULE: &str = "pem-private-key";

/// [`lines`], and the rule of each line it hid, in order: for a caller that
/// says what was hidden.
pub fn lines_hidden(text: &str, keep: Keep) -> (String, Vec<&'static str>) {
    let mut out = String::with_capacity(text.len());
    let mut hidden = Vec::new();
    let mut in_key = false;
    for piece in text.split_inclusive('\n') {
        let line = piece.trim_end_matches('\n');
        let line = line.strip_suffix('\r').unwrap_or(line);
        let rule = match find_secrets(line).first() {
            Some(found) => {
                in_key = found.rule == KEY_BLOCK_RULE && !closes_key(line);
                Some(found.rule)
            }
            // A blank line inside a key (after PEM or PGP headers) holds nothing.
            None if in_key && line.trim().is_empty() => None,
            None if in_key && (closes_key(line) || is_key_line(line)) => {
                in_key = !closes_key(line);
                Some(KEY_BLOCK_RULE)
            }
            None => {
                in_key = false;
                None
            }
        };
        match rule {
            None => out += piece,
            Some(rule) => {
                hidden.push(rule);
                out += keep.prefix(line);
                out += &line_note(rule);
                if piece.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
    }
    (out, hidden)
}

/// The last line of a private key block.
fn closes_key(line: &str) -> bool {
    line.contains("-----END") && line.contains("PRIVATE KEY")
}

/// A line of a private key's body: base64, or a header (`Proc-Type: …`,
/// `DEK-Info: …`, PGP's `Version: …`). Anything else (prose after a key's
/// first line quoted alone) ends the block.
fn is_key_line(line: &str) -> bool {
    let line = line.trim();
    let base64 = line
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    let header = line.split_once(": ").is_some_and(|(name, _)| {
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    });
    base64 || header
}

/// The first string in `value` that holds a secret: the top-level field it
/// is in (empty for a bare string) and the rule; never the secret.
pub fn secret_in_json(value: &serde_json::Value) -> Option<(String, &'static str)> {
    fn rule_in(value: &serde_json::Value) -> Option<&'static str> {
        match value {
            serde_json::Value::String(text) => find_secrets(text).first().map(|f| f.rule),
            serde_json::Value::Array(values) => values.iter().find_map(rule_in),
            serde_json::Value::Object(map) => map.values().find_map(rule_in),
            _ => None,
        }
    }
    match value {
        serde_json::Value::Object(map) => map
            .iter()
            .find_map(|(key, value)| Some((key.clone(), rule_in(value)?))),
        other => Some((String::new(), rule_in(other)?)),
    }
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

    /// Issue 15 item 2: a private key's first line was hidden and its
    /// lines of key sent on.
    #[test]
    fn a_private_key_is_hidden_whole_and_the_text_after_it_kept() {
        let header = ["-----BEGIN RSA ", "PRIVATE KEY-----"].concat();
        let footer = ["-----END RSA ", "PRIVATE KEY-----"].concat();
        let text = format!(
            "Here it is:\n{header}\nProc-Type: 4,ENCRYPTED\n\nMIIEowIBAAKCAQEA7x\nq+/Zz==\n{footer}\nThanks.\n"
        );
        let (shown, rules) = lines_hidden(&text, Keep::Nothing);
        let note = line_note(KEY_BLOCK_RULE);
        assert_eq!(
            shown,
            format!("Here it is:\n{note}\n{note}\n\n{note}\n{note}\n{note}\nThanks.\n")
        );
        assert_eq!(rules, [KEY_BLOCK_RULE; 5]);
        // A key's first line quoted in prose: the prose after it is kept.
        let quoted = format!("key.pem starts with {header}\nand ends with the footer.\n");
        assert_eq!(
            lines(&quoted, Keep::Nothing),
            format!("{note}\nand ends with the footer.\n")
        );
    }

    #[test]
    fn a_secret_in_json_names_its_field_and_rule() {
        let value = serde_json::json!({"name": "x", "tags": ["ok", format!("{KEY}")], "n": 1});
        assert_eq!(
            secret_in_json(&value),
            Some(("tags".to_string(), "aws-access-key-id"))
        );
        assert_eq!(secret_in_json(&serde_json::json!({"name": "x"})), None);
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
