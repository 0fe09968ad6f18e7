//! The description a body gives when its frontmatter has none.

use super::fence::{BOM, Lines, line_content};
use super::fields::one_line;

/// The first ATX heading outside code blocks, else the first line of text
/// outside them, else the first line inside one. Fence and thematic break
/// lines (`---` of a frontmatter that never closes, say) say nothing.
pub(super) fn description_from_body(body: &str) -> Option<String> {
    let body = body.strip_prefix(BOM).unwrap_or(body);
    let mut first_outside = None;
    let mut first_inside = None;
    let mut code_fence: Option<(char, usize)> = None;
    for line in Lines::new(body, 0) {
        let content = line_content(line.text);
        if let Some(marker) = fence_marker(content) {
            match code_fence {
                None => code_fence = Some(marker),
                Some((c, len)) if marker.0 == c && marker.1 >= len && is_bare_fence(content) => {
                    code_fence = None
                }
                Some(_) => {}
            }
            continue;
        }
        if content.trim().is_empty() || is_thematic_break(content) {
            continue;
        }
        if code_fence.is_some() {
            first_inside.get_or_insert(content);
            continue;
        }
        if let Some(heading) = atx_heading(content).map(one_line).filter(|h| !h.is_empty()) {
            return Some(heading);
        }
        first_outside.get_or_insert(content);
    }
    first_outside
        .or(first_inside)
        .map(one_line)
        .filter(|line| !line.is_empty())
}

/// `---`, `***`, `_ _ _`: a line of three or more of one of these and spaces.
fn is_thematic_break(content: &str) -> bool {
    let Some(trimmed) = strip_indent(content) else {
        return false;
    };
    ['-', '*', '_'].into_iter().any(|mark| {
        trimmed.chars().filter(|&c| c == mark).count() >= 3
            && trimmed.chars().all(|c| c == mark || c == ' ' || c == '\t')
    })
}

/// The text of an ATX heading line (`## Title ##` gives `Title`).
fn atx_heading(content: &str) -> Option<&str> {
    let trimmed = strip_indent(content)?;
    let level = trimmed.chars().take_while(|&c| c == '#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &trimmed[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let rest = rest.trim();
    // A closing run of `#`s is not part of the text when a space precedes it.
    let without_closing = rest.trim_end_matches('#');
    let text = if without_closing.is_empty() || without_closing.ends_with([' ', '\t']) {
        without_closing
    } else {
        rest
    };
    Some(text.trim())
}

/// A code fence opening or closing line: its character and length.
fn fence_marker(content: &str) -> Option<(char, usize)> {
    let trimmed = strip_indent(content)?;
    let c = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = trimmed.chars().take_while(|&x| x == c).count();
    // A backtick fence's info string may not hold a backtick.
    let info_ok = c == '~' || !trimmed[len..].contains('`');
    (len >= 3 && info_ok).then_some((c, len))
}

fn is_bare_fence(content: &str) -> bool {
    let trimmed = content.trim();
    trimmed.chars().all(|c| c == '`') || trimmed.chars().all(|c| c == '~')
}

/// The line without its indentation, if that is at most three spaces.
fn strip_indent(content: &str) -> Option<&str> {
    let indent = content.len() - content.trim_start_matches(' ').len();
    (indent <= 3).then(|| &content[indent..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use rstest::rstest;

    #[rstest]
    #[case::heading("# Title\ntext\n", Some("Title"))]
    #[case::heading_after_text("Intro line\n\n## Section ##\n", Some("Section"))]
    #[case::closing_hashes_need_space("# C#\n", Some("C#"))]
    #[case::indented_heading("   ### Deep\n", Some("Deep"))]
    #[case::four_spaces_is_code("    # not a heading\nplain\n", Some("# not a heading"))]
    #[case::hashtag_is_not_heading("#tag line\n", Some("#tag line"))]
    #[case::first_line("\n\n  First line here  \nsecond\n", Some("First line here"))]
    #[case::empty_heading_skipped("#\n# Real\n", Some("Real"))]
    #[case::heading_in_code_skipped("```bash\n# comment\n```\n# Title\n", Some("Title"))]
    #[case::tilde_code("~~~\n# comment\n~~~\ntext\n", Some("text"))]
    #[case::only_code("```\n# comment\n", Some("# comment"))]
    #[case::unclosed_frontmatter("---\nname: a\n", Some("name: a"))]
    #[case::thematic_break("* * *\n___\nText\n", Some("Text"))]
    #[case::dashes_then_heading("---\n## Title\n", Some("Title"))]
    #[case::list_item_is_text("- item\n", Some("- item"))]
    #[case::bom("\u{FEFF}Hello\n", Some("Hello"))]
    #[case::crlf("# Title\r\nx\r\n", Some("Title"))]
    #[case::seven_hashes("####### x\n", Some("####### x"))]
    #[case::empty("", None)]
    #[case::blank("  \n\t\n", None)]
    fn descriptions(#[case] body: &str, #[case] expected: Option<&str>) {
        assert_eq!(description_from_body(body).as_deref(), expected);
    }
}
