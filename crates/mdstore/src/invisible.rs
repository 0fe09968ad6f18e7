//! Format characters that change what a person sees without being seen
//! (SPEC §2): bidi controls, which make text show in another order than a
//! program (or a model) reads it ("Trojan Source", CVE-2021-42574), and
//! invisible characters (zero-width spaces, word joiners, Unicode tags,
//! which smuggle ASCII past a reader). memctl refuses them on write in every
//! field and shows them escaped (`\u{202e}`) when a hand-written file holds
//! them; this module is the one rule for which ones.
//!
//! The rule is Unicode's general category Cf (format), from the
//! `unicode-general-category` crate, less the three uses of it that are
//! visible text: the prepended concatenation marks (Arabic number signs,
//! which are drawn), a zero-width joiner or non-joiner between two
//! non-ASCII characters (emoji sequences, Persian and Indic words need
//! them; between ASCII letters they only hide a difference, `ad\u{200d}min`),
//! and the tag characters of an emoji flag sequence (🏴 + tags + cancel tag).

use unicode_general_category::{GeneralCategory, get_general_category};

use crate::record::{Meta, Problem};

/// What a refused format character does, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatKind {
    /// Reorders the text around it on screen.
    Bidi,
    /// Takes no space on screen.
    Invisible,
}

impl FormatKind {
    pub fn describe(self) -> &'static str {
        match self {
            FormatKind::Bidi => {
                "a bidi control (it makes text show in another order than it is read)"
            }
            FormatKind::Invisible => "an invisible format character",
        }
    }
}

/// The kind of a bidi control: the embeddings, overrides and isolates
/// (U+202A–U+202E, U+2066–U+2069) and the three marks (U+061C, U+200E,
/// U+200F).
fn kind_of(c: char) -> FormatKind {
    match c {
        '\u{061C}'
        | '\u{200E}'
        | '\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}' => FormatKind::Bidi,
        _ => FormatKind::Invisible,
    }
}

/// Format characters that are drawn: they sit before digits and span them.
fn is_prepended_mark(c: char) -> bool {
    matches!(
        c,
        '\u{0600}'..='\u{0605}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{110BD}'
            | '\u{110CD}'
    )
}

/// Whether `c` is of general category Cf, allowed in context or not.
pub fn is_format(c: char) -> bool {
    // Cf holds nothing below U+00AD: ASCII text skips the table.
    c >= '\u{AD}' && get_general_category(c) == GeneralCategory::Format
}

const ZWNJ: char = '\u{200C}';
const ZWJ: char = '\u{200D}';
const BLACK_FLAG: char = '\u{1F3F4}';
const CANCEL_TAG: char = '\u{E007F}';

fn is_tag(c: char) -> bool {
    ('\u{E0020}'..='\u{E007E}').contains(&c)
}

/// Every refused format character of `text`: its byte offset, the
/// character, and what it does.
pub fn hidden_format_chars(text: &str) -> Vec<(usize, char, FormatKind)> {
    if text.is_ascii() {
        return Vec::new();
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        if c == BLACK_FLAG {
            // A flag's tag sequence is emoji: skip it when it is whole.
            let tags = chars[i + 1..]
                .iter()
                .take_while(|(_, t)| is_tag(*t))
                .count();
            if tags > 0
                && chars
                    .get(i + 1 + tags)
                    .is_some_and(|(_, t)| *t == CANCEL_TAG)
            {
                i += tags + 2;
                continue;
            }
        }
        if is_format(c) && !is_prepended_mark(c) && !(matches!(c, ZWNJ | ZWJ) && joins(&chars, i)) {
            found.push((at, c, kind_of(c)));
        }
        i += 1;
    }
    found
}

/// Whether the joiner at `chars[i]` stands between two visible non-ASCII
/// characters.
fn joins(chars: &[(usize, char)], i: usize) -> bool {
    let visible = |c: char| !c.is_ascii() && !c.is_whitespace() && !is_format(c);
    let before = i.checked_sub(1).and_then(|b| chars.get(b));
    let after = chars.get(i + 1);
    before.is_some_and(|(_, c)| visible(*c)) && after.is_some_and(|(_, c)| visible(*c))
}

/// The first refused format character of `text`, if any.
pub fn first_hidden_format_char(text: &str) -> Option<(usize, char, FormatKind)> {
    hidden_format_chars(text).into_iter().next()
}

/// What `check` says of a hand-written record holding refused format
/// characters: a warning per field (the body's with its line in the file,
/// `body_line` being the file line the body starts on). The record is still
/// read; every command shows the characters escaped.
pub fn problems(meta: &Meta, body: &str, body_line: usize) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut field = |what: &str, text: &str, line: Option<usize>| {
        if let Some((offset, c, kind)) = first_hidden_format_char(text) {
            let line = line.map(|first| first + text[..offset].matches('\n').count());
            out.push(Problem::warning(
                line,
                format!(
                    "the {what} holds U+{:04X}, {}: it is shown escaped; remove it",
                    u32::from(c),
                    kind.describe()
                ),
            ));
        }
    };
    if let Some(name) = &meta.name {
        field("name", name, None);
    }
    if let Some(description) = &meta.description {
        field("description", description, None);
    }
    for tag in &meta.tags {
        field("tag", tag, None);
    }
    field("body", body, Some(body_line));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case::rlo("a\u{202E}b", '\u{202E}', FormatKind::Bidi)]
    #[case::lri("\u{2066}x", '\u{2066}', FormatKind::Bidi)]
    #[case::pdi("x\u{2069}", '\u{2069}', FormatKind::Bidi)]
    #[case::rlm("a\u{200F}b", '\u{200F}', FormatKind::Bidi)]
    #[case::alm("\u{061C}", '\u{061C}', FormatKind::Bidi)]
    #[case::zwsp("pass\u{200B}word", '\u{200B}', FormatKind::Invisible)]
    #[case::word_joiner("a\u{2060}b", '\u{2060}', FormatKind::Invisible)]
    #[case::invisible_times("a\u{2062}b", '\u{2062}', FormatKind::Invisible)]
    #[case::bom_inside("a\u{FEFF}b", '\u{FEFF}', FormatKind::Invisible)]
    #[case::soft_hyphen("pass\u{AD}word", '\u{AD}', FormatKind::Invisible)]
    #[case::zwj_between_ascii("ad\u{200D}min", '\u{200D}', FormatKind::Invisible)]
    #[case::zwnj_at_the_end("ﻻ\u{200C}", '\u{200C}', FormatKind::Invisible)]
    #[case::lone_tag("hi\u{E0069}\u{E0067}", '\u{E0069}', FormatKind::Invisible)]
    #[case::tags_without_cancel("\u{1F3F4}\u{E0067}\u{E0062}", '\u{E0067}', FormatKind::Invisible)]
    fn refused(#[case] text: &str, #[case] c: char, #[case] kind: FormatKind) {
        let first = first_hidden_format_char(text).map(|(_, found, k)| (found, k));
        assert_eq!(first, Some((c, kind)), "{text:?}");
    }

    #[rstest]
    #[case::ascii("plain text")]
    #[case::cjk("部署冻结到3月1日")]
    #[case::persian_zwnj("می\u{200C}خواهم")]
    #[case::family_emoji("👨\u{200D}👩\u{200D}👧")]
    #[case::emoji_after_variation_selector("❤\u{FE0F}\u{200D}🔥")]
    #[case::scotland_flag("\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}")]
    #[case::arabic_number_sign("\u{0600}١٢")]
    #[case::hebrew("שלום עולם")]
    fn allowed(#[case] text: &str) {
        assert_eq!(hidden_format_chars(text), Vec::new(), "{text:?}");
    }
}
