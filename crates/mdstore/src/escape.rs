//! Text from record files made safe to show (SPEC §2): memctl refuses
//! control characters, bidi controls and invisible format characters on
//! write, but a hand-written file can hold them: printed raw an ESC or BEL
//! can retitle, recolour or scroll a terminal, and a bidi override makes a
//! line show in another order than it is read (`crate::invisible`). Every
//! command that prints a name, description, tag or path, and `MEMORY.md`,
//! goes through [`escape_controls`] (or [`escape_controls_keep_lines`] for a
//! whole file), so there is one rule for what is shown.

use std::borrow::Cow;
use std::fmt::Write;

use crate::invisible::hidden_format_chars;

/// `text` with every control character (C0, DEL, C1) written as `\x1b`
/// and every refused format character as `\u{202e}`. For one-line fields:
/// a newline or tab is escaped too.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// Like [`escape_controls`], but a tab, a newline and the `\r` of a CRLF are
/// kept: for showing a whole file or a body.
pub fn escape_controls_keep_lines(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// `text` for an error message: escaped, and cut to `max_chars` characters
/// with `…` so that a 5,000-character argument is not echoed whole.
pub fn for_message(text: &str, max_chars: usize) -> String {
    let escaped = escape_controls(text);
    if escaped.chars().count() <= max_chars {
        return escaped.into_owned();
    }
    let kept: String = escaped.chars().take(max_chars.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// Whether `text` holds a character [`escape_controls`] would escape.
pub fn has_controls(text: &str) -> bool {
    text.chars().any(char::is_control) || !hidden_format_chars(text).is_empty()
}

fn escape(text: &str, keep_lines: bool) -> Cow<'_, str> {
    let hidden = hidden_format_chars(text);
    let mut hidden = hidden.iter().map(|&(at, _, _)| at).peekable();
    let mut out: Option<String> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let line_end = match c {
            '\n' | '\t' => true,
            '\r' => chars.peek().is_some_and(|&(_, next)| next == '\n'),
            _ => false,
        };
        let is_hidden = hidden.next_if_eq(&at).is_some();
        if c.is_control() && !(keep_lines && line_end) {
            let out = out.get_or_insert_with(|| text[..at].to_string());
            // Every control character is below U+00A0: two hex digits do.
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else if is_hidden {
            let out = out.get_or_insert_with(|| text[..at].to_string());
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else if let Some(out) = out.as_mut() {
            out.push(c);
        }
    }
    out.map_or(Cow::Borrowed(text), Cow::Owned)
}

/// JSON text made safe to print: serde_json escapes C0 control characters
/// but writes DEL and C1 (U+0080 to U+009F, of which U+009B is a
/// terminal's CSI) and format characters (bidi controls, zero-width and tag
/// characters: `crate::invisible`) raw; they are escaped as `\u` too, which
/// JSON readers decode to the same text (SPEC §2: never raw to a terminal).
pub fn escape_json_controls(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if ('\u{7f}'..='\u{9f}').contains(&c) || crate::invisible::is_format(c) {
            for unit in c.encode_utf16(&mut [0; 2]) {
                out += &format!("\\u{unit:04x}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use rstest::rstest;

    use super::*;

    #[rstest]
    #[case::plain("Tests use pytest", "Tests use pytest")]
    #[case::osc_title("\u{1b}]0;TITLE\u{7}x", "\\x1b]0;TITLE\\x07x")]
    #[case::sgr("\u{1b}[31mred\u{1b}[0m", "\\x1b[31mred\\x1b[0m")]
    #[case::c1_csi("a\u{9b}31m", "a\\x9b31m")]
    #[case::del("a\u{7f}", "a\\x7f")]
    #[case::newline_and_tab("a\nb\tc", "a\\x0ab\\x09c")]
    #[case::cjk("한국어 설명", "한국어 설명")]
    #[case::trojan_source("access \u{202e}nimda\u{2066}", "access \\u{202e}nimda\\u{2066}")]
    #[case::zero_width("ad\u{200b}min", "ad\\u{200b}min")]
    #[case::unicode_tags("hi\u{e0069}", "hi\\u{e0069}")]
    #[case::emoji_joiner_kept("👨\u{200d}👩", "👨\u{200d}👩")]
    fn one_line_fields_escape_every_control(#[case] text: &str, #[case] shown: &str) {
        assert_eq!(escape_controls(text), shown);
    }

    #[rstest]
    #[case::lines_kept("a\nb\tc\r\n", "a\nb\tc\r\n")]
    #[case::escape_in_body("x \u{1b}[2J y\n", "x \\x1b[2J y\n")]
    #[case::lone_cr("done\rfake\n", "done\\x0dfake\n")]
    #[case::lone_cr_among_crlf("a\r\nb\rc\r\n", "a\r\nb\\x0dc\r\n")]
    #[case::bidi_in_body("if x \u{202e} y\n", "if x \\u{202e} y\n")]
    fn whole_files_keep_their_lines(#[case] text: &str, #[case] shown: &str) {
        assert_eq!(escape_controls_keep_lines(text), shown);
    }

    #[test]
    fn clean_text_is_not_copied() {
        assert!(matches!(escape_controls("clean"), Cow::Borrowed(_)));
        assert!(matches!(
            escape_controls_keep_lines("a\r\nb\n"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn long_text_is_cut_for_a_message() {
        let long = "a".repeat(5_000);
        let shown = for_message(&long, 40);
        assert_eq!(shown.chars().count(), 40);
        assert!(shown.ends_with('…'));
        assert_eq!(for_message("short\u{7}", 40), "short\\x07");
    }

    #[test]
    fn json_escapes_del_and_c1() {
        let value = serde_json::json!({"d": "a\u{7f}b\u{9b}31mc\u{1b}\u{202e}d\u{e0069}"});
        let raw = serde_json::to_string_pretty(&value).unwrap();
        assert!(raw.contains('\u{9b}'), "serde_json writes C1 raw: {raw:?}");
        let escaped = escape_json_controls(&raw);
        assert!(
            escaped
                .chars()
                .all(|c| c == '\n' || !(c.is_control() || crate::invisible::is_format(c))),
            "{escaped:?}"
        );
        let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back, value);
    }
}
