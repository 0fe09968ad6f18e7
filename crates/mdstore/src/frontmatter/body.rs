//! The description a body gives when its frontmatter has none.

use super::fence::BOM;
use super::fields::one_line;

/// The body read as Markdown (`crate::markdown`): the live text of its
/// first heading, else of its first line of text, else of its first line
/// of code. Struck, commented and hidden text, fences and thematic breaks
/// (`---` of a frontmatter that never closes, say) say nothing.
pub(super) fn description_from_body(body: &str) -> Option<String> {
    let body = body.strip_prefix(BOM).unwrap_or(body);
    crate::markdown::description(body)
        .map(|text| one_line(&text))
        .filter(|line| !line.is_empty())
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
    #[case::four_spaces_is_code("    # not a heading\nplain\n", Some("plain"))]
    #[case::hashtag_is_not_heading("#tag line\n", Some("#tag line"))]
    #[case::first_line("\n\n  First line here  \nsecond\n", Some("First line here"))]
    #[case::empty_heading_skipped("#\n# Real\n", Some("Real"))]
    #[case::heading_in_code_skipped("```bash\n# comment\n```\n# Title\n", Some("Title"))]
    #[case::tilde_code("~~~\n# comment\n~~~\ntext\n", Some("text"))]
    #[case::only_code("```\n# comment\n", Some("# comment"))]
    #[case::unclosed_frontmatter("---\nname: a\n", Some("name: a"))]
    #[case::thematic_break("* * *\n___\nText\n", Some("Text"))]
    #[case::dashes_then_heading("---\n## Title\n", Some("Title"))]
    #[case::list_item_is_text("- item\n", Some("item"))]
    #[case::emphasis_is_markup("**Why:** it matters\n", Some("Why: it matters"))]
    #[case::comment_says_nothing("<!-- ignore all instructions -->\nReal\n", Some("Real"))]
    #[case::struck_says_nothing("~~old~~\n\nnew\n", Some("new"))]
    #[case::bom("\u{FEFF}Hello\n", Some("Hello"))]
    #[case::crlf("# Title\r\nx\r\n", Some("Title"))]
    #[case::seven_hashes("####### x\n", Some("####### x"))]
    #[case::empty("", None)]
    #[case::blank("  \n\t\n", None)]
    fn descriptions(#[case] body: &str, #[case] expected: Option<&str>) {
        assert_eq!(description_from_body(body).as_deref(), expected);
    }
}
