//! Raw HTML in a body, as far as the reading needs it: which text is an
//! HTML comment, and which text an element hides (`<details>`, `<del>`,
//! `<span style="display:none">`). pulldown-cmark hands HTML over as raw
//! fragments; telling a tag's name and attributes apart is this small
//! scanner's job, not a browser's: whatever it cannot tell is harmless is
//! taken to hide.

use super::PartKind;

/// Elements whose content a reader sees, drawn as it is: formatting and
/// layout. Any other element (`details`, `del`, `s`, `template`, `bdo`,
/// an unknown one) hides or changes what it holds.
const VISIBLE: &[&str] = &[
    "a",
    "abbr",
    "b",
    "big",
    "blockquote",
    "br",
    "caption",
    "center",
    "cite",
    "code",
    "dd",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "img",
    "ins",
    "kbd",
    "li",
    "mark",
    "ol",
    "p",
    "pre",
    "q",
    "samp",
    "small",
    "span",
    "strong",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "tt",
    "u",
    "ul",
    "var",
    "wbr",
];

/// Attributes that change nothing about what is shown. Any other (`style`,
/// `hidden`, `class`, `dir`) makes its element hide.
const HARMLESS_ATTRIBUTES: &[&str] = &[
    "href", "title", "alt", "src", "lang", "align", "width", "height", "colspan", "rowspan", "id",
    "name",
];

/// Elements that have no content and so no closing tag.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// What the HTML seen so far leaves open: a comment, and elements (with
/// whether each hides its content). It lasts across blocks: a `<details>`
/// line hides the Markdown after it until `</details>`.
#[derive(Debug, Default)]
pub(super) struct HtmlState {
    in_comment: bool,
    open: Vec<(String, bool)>,
}

impl HtmlState {
    /// Whether text read now is hidden by an open element.
    pub(super) fn hiding(&self) -> bool {
        self.open.iter().any(|(_, hides)| *hides)
    }

    /// Splits a raw HTML fragment into comment text and the rest (tags and
    /// the text an HTML block holds), in order, every byte once.
    pub(super) fn scan<'t>(&mut self, fragment: &'t str, emit: &mut impl FnMut(PartKind, &'t str)) {
        let mut rest = fragment;
        while !rest.is_empty() {
            if self.in_comment {
                let end = match rest.find("-->") {
                    Some(at) => {
                        self.in_comment = false;
                        at + 3
                    }
                    None => rest.len(),
                };
                emit(PartKind::Comment, &rest[..end]);
                rest = &rest[end..];
                continue;
            }
            let Some(start) = rest.find('<') else {
                emit(PartKind::Html, rest);
                return;
            };
            if start > 0 {
                emit(PartKind::Html, &rest[..start]);
                rest = &rest[start..];
            }
            if rest.starts_with("<!--") {
                self.in_comment = true;
                emit(PartKind::Comment, "<!--");
                rest = &rest[4..];
                continue;
            }
            let end = rest.find('>').map_or(rest.len(), |at| at + 1);
            self.tag(&rest[..end]);
            emit(PartKind::Html, &rest[..end]);
            rest = &rest[end..];
        }
    }

    /// Opens or closes the element `tag` (`<x …>`, `</x>`, `<x/>`) names.
    fn tag(&mut self, tag: &str) {
        let inner = tag.trim_start_matches('<').trim_end_matches('>');
        let (closing, inner) = match inner.strip_prefix('/') {
            Some(rest) => (true, rest),
            None => (false, inner),
        };
        let name_len = inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(inner.len());
        let name = inner[..name_len].to_ascii_lowercase();
        if name.is_empty() {
            return;
        }
        if closing {
            if let Some(at) = self.open.iter().rposition(|(open, _)| *open == name) {
                self.open.truncate(at);
            }
            return;
        }
        let attributes = inner[name_len..].trim_end_matches('/');
        if VOID.contains(&name.as_str()) || inner.ends_with('/') {
            return;
        }
        let harmless = attributes.split_whitespace().all(|attribute| {
            let key = attribute.split('=').next().unwrap_or_default();
            HARMLESS_ATTRIBUTES.contains(&key.to_ascii_lowercase().as_str())
        });
        let hides = !harmless || !VISIBLE.contains(&name.as_str());
        self.open.push((name, hides));
    }
}
