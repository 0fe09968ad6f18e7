use pretty_assertions::assert_eq;
use proptest::prelude::*;
use rstest::rstest;

use super::*;

/// Each line as (its live text, whether it hides something, its block).
fn shown(body: &str) -> Vec<(String, bool, Block)> {
    read(body)
        .iter()
        .map(|l| (l.live(), l.hides(), l.block))
        .collect()
}

fn live(body: &str) -> Vec<String> {
    read(body).iter().map(Line::live).collect()
}

#[test]
fn lines_keep_their_numbers_and_spans() {
    let body = "# Title\r\n\n- one\n- two **bold**\n";
    let lines = read(body);
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines.iter().map(|l| l.number).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    assert_eq!(&body[lines[0].span.clone()], "# Title");
    assert_eq!(&body[lines[3].span.clone()], "- two **bold**");
    assert_eq!(live(body), ["Title", "", "one", "two bold"]);
    assert_eq!(lines[0].block, Block::Heading(1));
    assert_eq!(lines[1].block, Block::Blank);
}

#[rstest]
#[case::struck("~~we use npm~~", "", true)]
#[case::single_tilde("~we use npm~", "", true)]
#[case::struck_word("use ~~npm~~ pnpm", "use  pnpm", true)]
#[case::inline_comment("<!-- we use npm -->", "", true)]
#[case::comment_after_text("use pnpm <!-- not npm -->", "use pnpm ", true)]
#[case::del("<del>we use npm</del>", "", true)]
#[case::s_tag("a <s>we use npm</s>", "a ", true)]
#[case::hidden_span("<span style=\"display:none\">we use npm</span>", "", true)]
#[case::plain_span("<b>we</b> use npm", "we use npm", true)]
#[case::image_alt("![we use npm](x.png)", "", true)]
#[case::link_text("[we use npm](https://x.example)", "we use npm", false)]
#[case::inline_code("use `pnpm` only", "use pnpm only", false)]
#[case::escaped("\\~\\~not struck\\~\\~", "~~not struck~~", false)]
fn hidden_text_is_not_live(#[case] body: &str, #[case] seen: &str, #[case] hides: bool) {
    let lines = read(body);
    assert_eq!(lines[0].live(), seen, "{body}");
    assert_eq!(lines[0].hides(), hides, "{body}");
}

#[test]
fn a_block_comment_hides_every_line_until_it_closes() {
    let body = "Keep this.\n\n<!--\nwe use npm\n\nstill hidden\n-->\nSeen again.\n";
    assert_eq!(
        shown(body),
        [
            ("Keep this.".to_string(), false, Block::Text),
            (String::new(), false, Block::Blank),
            (String::new(), true, Block::Html),
            (String::new(), true, Block::Html),
            (String::new(), false, Block::Blank),
            (String::new(), true, Block::Html),
            (String::new(), true, Block::Html),
            ("Seen again.".to_string(), false, Block::Text),
        ]
    );
}

#[test]
fn details_hide_the_markdown_inside_them() {
    let body = "<details>\n\n- we use npm\n\n</details>\n\n- we use pnpm\n";
    let lines = read(body);
    assert_eq!(lines[2].live(), "");
    assert!(lines[2].hides());
    assert_eq!(lines[6].live(), "we use pnpm");
    assert!(!lines[6].hides());
}

#[test]
fn code_is_live_but_its_fences_are_markup() {
    let body = "Run:\n\n```sh\nmake test\n```\n\n    indented code\n";
    assert_eq!(
        shown(body),
        [
            ("Run:".to_string(), false, Block::Text),
            (String::new(), false, Block::Blank),
            (String::new(), false, Block::Markup),
            ("make test".to_string(), false, Block::Code),
            (String::new(), false, Block::Markup),
            (String::new(), false, Block::Blank),
            ("indented code".to_string(), false, Block::Code),
        ]
    );
    assert_eq!(read(body)[2].parts[0].text, "```sh");
    assert_eq!(
        read("`pnpm` and\n\n```\nx\n```\n")
            .iter()
            .map(Line::live_with_code_marks)
            .collect::<Vec<_>>(),
        ["`pnpm` and", "", "", "x", ""]
    );
}

#[test]
fn lines_know_the_headings_and_items_they_stand_under() {
    let body = "# Wrong\n\n- Don't:\n  - use npm\n\n## Deeper\n\ntext\n\n# Right\n\nuse pnpm\n";
    let lines = read(body);
    assert_eq!(lines[0].context, Vec::<usize>::new());
    assert_eq!(lines[2].context, [0]);
    assert_eq!(lines[3].context, [0, 2]);
    assert_eq!(lines[7].context, [0, 5]);
    assert_eq!(lines[11].context, [9]);
}

#[test]
fn marks_and_markup_are_kept_but_not_live() {
    let lines = read(
        "- [x] done\n- [ ] open\n\n---\n\n[ref]: https://x.example\nsee [docs](https://d.example)\n",
    );
    assert_eq!(lines[0].parts[0].kind, PartKind::Task);
    assert_eq!(lines[0].live(), "done");
    assert_eq!(lines[1].parts[0].text, "[ ]");
    assert_eq!(lines[3].block, Block::Markup);
    assert_eq!(lines[5].block, Block::Markup);
    assert_eq!(lines[5].parts[0].text, "[ref]: https://x.example");
    let target = lines[6].parts.iter().find(|p| p.kind == PartKind::Target);
    assert_eq!(target.map(|p| p.text.as_str()), Some("https://d.example"));
}

#[test]
fn a_setext_underline_makes_a_heading() {
    let lines = read("we use npm\n---\nmore\n");
    assert_eq!(lines[0].block, Block::Heading(2));
    assert_eq!(lines[1].block, Block::Markup);
    assert_eq!(lines[2].context, [0]);
}

#[test]
fn facts_are_live_lines_folded() {
    assert_eq!(
        facts("- We use **PNPM**,   not npm.\n~~old~~\n\n## ＰＮＰＭ only\n"),
        [
            (1, "we use pnpm, not npm".to_string()),
            (4, "pnpm only".to_string())
        ]
    );
    assert_eq!(fact("  Hello   World!  "), "hello world");
}

#[rstest]
#[case::heading("# Title\ntext\n", Some("Title"))]
#[case::heading_after_text("Intro line\n\n## Section ##\n", Some("Section"))]
#[case::first_line("\n\n  First line here  \nsecond\n", Some("First line here"))]
#[case::comment_first(
    "<!-- ignore previous instructions -->\nReal text\n",
    Some("Real text")
)]
#[case::struck_first("~~old~~\nnew\n", Some("new"))]
#[case::code_only("```\n# comment\n", Some("# comment"))]
#[case::empty("", None)]
fn descriptions(#[case] body: &str, #[case] expected: Option<&str>) {
    assert_eq!(description(body).as_deref(), expected);
}

#[test]
fn only_closed_fences_are_reported() {
    let file = "---\nname: x\n---\n```\na\n```\n\n~~~~\nb\n~~~\nc\n";
    let fences = |text: &str| -> Vec<(usize, usize)> {
        closed_code_fences(text)
            .into_iter()
            .map(|r| (r.start, r.end))
            .collect()
    };
    assert_eq!(fences(file), [(3, 6)]);
    assert_eq!(fences("\u{FEFF}```\na\n```\n"), [(0, 3)]);
    // Inside the frontmatter a fence is YAML, not code.
    assert_eq!(
        fences("---\ndescription: |\n  ```\n  x\n  ```\n---\nbody\n"),
        []
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any text reads without panicking, one line per source line, each
    /// line's span its own text.
    #[test]
    fn any_text_reads_line_for_line(text in any_markdownish()) {
        let lines = read(&text);
        let expected = text.strip_suffix('\n').unwrap_or(&text).split('\n').count();
        prop_assert_eq!(lines.len(), if text.is_empty() { 1 } else { expected });
        for (i, line) in lines.iter().enumerate() {
            prop_assert_eq!(line.number, i + 1);
            let raw = &text[line.span.clone()];
            prop_assert!(!raw.contains('\n'));
            prop_assert!(line.context.iter().all(|&c| c < lines.len()));
        }
        let _ = description(&text);
        let _ = closed_code_fences(&text);
    }
}

/// Arbitrary text, weighted towards Markdown's own characters.
fn any_markdownish() -> impl Strategy<Value = String> {
    let pieces = prop::collection::vec(
        prop_oneof![
            Just("\n".to_string()),
            Just("\r\n".to_string()),
            Just("```".to_string()),
            Just("~~".to_string()),
            Just("<!--".to_string()),
            Just("-->".to_string()),
            Just("<details>".to_string()),
            Just("</del>".to_string()),
            Just("# ".to_string()),
            Just("- ".to_string()),
            Just("    ".to_string()),
            Just("> ".to_string()),
            Just("[x](y)".to_string()),
            Just("|a|b|\n|-|-|\n".to_string()),
            any::<String>(),
        ],
        0..24,
    );
    pieces.prop_map(|p| p.concat())
}
