//! Finding the fence lines that open and close a frontmatter block.

/// The UTF-8 byte order mark some editors put at the start of a file.
pub(super) const BOM: char = '\u{FEFF}';

/// Where the parts of a file with frontmatter lie, as byte offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Fences {
    /// Start of the opening fence line (after the BOM, if any).
    pub opening_start: usize,
    /// End of the opening fence line with its line ending: the block starts here.
    pub block_start: usize,
    /// Start of the closing fence line: the block ends here.
    pub block_end: usize,
    /// End of the closing fence line with its line ending: the body starts here.
    pub body_offset: usize,
}

/// How a text starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Split {
    NoFrontmatter,
    Unclosed,
    Closed(Fences),
}

/// Splits `text` at its fences. When `whole_text` is false the text may be
/// a prefix of the file, so a closing fence counts only with its line ending
/// (without it the line might go on past the prefix).
pub(super) fn split(text: &str, whole_text: bool) -> Split {
    let opening_start = if text.starts_with(BOM) {
        BOM.len_utf8()
    } else {
        0
    };
    let mut lines = Lines::new(text, opening_start);
    let Some(opening) = lines.next() else {
        return Split::NoFrontmatter;
    };
    let opening_content = line_content(opening.text).trim_end_matches([' ', '\t']);
    if opening_content != "---" {
        return Split::NoFrontmatter;
    }
    if !opening.has_line_ending() {
        return Split::Unclosed;
    }
    for line in lines {
        let content = line_content(line.text);
        if content == "---" || content == "..." {
            if !line.has_line_ending() && !whole_text {
                return Split::Unclosed;
            }
            return Split::Closed(Fences {
                opening_start,
                block_start: opening.end(),
                block_end: line.start,
                body_offset: line.end(),
            });
        }
    }
    Split::Unclosed
}

/// A line without its `\n` and without one `\r` before it.
pub(super) fn line_content(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

/// One line of a text, with its line ending when it has one.
#[derive(Clone, Copy, Debug)]
pub(super) struct Line<'a> {
    pub start: usize,
    pub text: &'a str,
}

impl Line<'_> {
    pub fn end(&self) -> usize {
        self.start + self.text.len()
    }

    pub fn has_line_ending(&self) -> bool {
        self.text.ends_with('\n')
    }
}

/// The lines of a text from a byte offset on, each with its `\n`.
#[derive(Clone, Debug)]
pub(super) struct Lines<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str, from: usize) -> Lines<'a> {
        Lines { text, pos: from }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        let rest = self.text.get(self.pos..).filter(|rest| !rest.is_empty())?;
        let len = rest.find('\n').map_or(rest.len(), |i| i + 1);
        let line = Line {
            start: self.pos,
            text: &rest[..len],
        };
        self.pos += len;
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use rstest::rstest;

    fn closed(text: &str) -> Fences {
        match split(text, true) {
            Split::Closed(fences) => fences,
            other => panic!("expected closed frontmatter in {text:?}, got {other:?}"),
        }
    }

    #[test]
    fn plain_lf_block() {
        let text = "---\nname: a\n---\nbody\n";
        let fences = closed(text);
        assert_eq!(&text[fences.block_start..fences.block_end], "name: a\n");
        assert_eq!(&text[fences.body_offset..], "body\n");
        assert_eq!(fences.opening_start, 0);
    }

    #[test]
    fn bom_is_skipped_before_the_opening_fence() {
        let text = "\u{FEFF}---\nname: a\n---\nbody";
        let fences = closed(text);
        assert_eq!(fences.opening_start, 3);
        assert_eq!(&text[fences.block_start..fences.block_end], "name: a\n");
        assert_eq!(&text[fences.body_offset..], "body");
    }

    #[test]
    fn crlf_fences() {
        let text = "---\r\nname: a\r\n---\r\nbody\r\n";
        let fences = closed(text);
        assert_eq!(&text[fences.block_start..fences.block_end], "name: a\r\n");
        assert_eq!(&text[fences.body_offset..], "body\r\n");
    }

    #[rstest]
    #[case::spaces("---   \nname: a\n---\n")]
    #[case::tab("---\t\nname: a\n---\n")]
    #[case::spaces_crlf("--- \r\nname: a\r\n---\r\n")]
    fn trailing_space_on_the_opening_fence(#[case] text: &str) {
        let fences = closed(text);
        assert_eq!(fences.body_offset, text.len());
    }

    #[test]
    fn dots_close_the_block() {
        let text = "---\nname: a\n...\nbody";
        assert_eq!(&text[closed(text).body_offset..], "body");
    }

    #[rstest]
    #[case::indented("---\ndescription: |\n  ---\n  more\n---\nbody", "body")]
    #[case::trailing_space("---\na: b\n--- \n---\nbody", "body")]
    #[case::longer("---\na: b\n----\n---\nbody", "body")]
    fn lines_that_are_not_exactly_a_fence_do_not_close(#[case] text: &str, #[case] body: &str) {
        assert_eq!(&text[closed(text).body_offset..], body);
    }

    #[rstest]
    #[case::empty("")]
    #[case::text("hello\n---\n")]
    #[case::indented_fence(" ---\na: b\n---\n")]
    #[case::four_dashes("----\na: b\n---\n")]
    #[case::dots_do_not_open("...\na: b\n...\n")]
    #[case::bom_then_text("\u{FEFF}# Title\n")]
    fn no_frontmatter(#[case] text: &str) {
        assert_eq!(split(text, true), Split::NoFrontmatter);
    }

    #[rstest]
    #[case::never_closed("---\na: b\nbody\n")]
    #[case::only_fence("---")]
    #[case::only_fence_line("---\n")]
    fn unclosed(#[case] text: &str) {
        assert_eq!(split(text, true), Split::Unclosed);
    }

    #[test]
    fn closing_fence_at_end_of_text() {
        let text = "---\na: b\n---";
        assert_eq!(closed(text).body_offset, text.len());
        let text = "---\na: b\n---\r";
        assert_eq!(closed(text).body_offset, text.len());
    }

    #[test]
    fn prefix_needs_the_closing_line_ending() {
        assert_eq!(split("---\na: b\n---", false), Split::Unclosed);
        assert_eq!(split("---\na: b\n---\r", false), Split::Unclosed);
        assert!(matches!(split("---\na: b\n---\n", false), Split::Closed(_)));
    }

    #[test]
    fn empty_block() {
        let text = "---\n---\nbody";
        let fences = closed(text);
        assert_eq!(fences.block_start, fences.block_end);
        assert_eq!(&text[fences.body_offset..], "body");
    }
}
