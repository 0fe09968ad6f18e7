//! Parsing rules of SPEC §2, one test each, through the public functions.

use pretty_assertions::assert_eq;
use rstest::rstest;

use super::*;
use crate::record::{RecordType, Severity, Source};

/// Parses, checks that rendering gives the text back, and returns the parse.
fn parse_ok(text: &str) -> ParsedFile {
    let parsed = parse(text);
    if let Some(frontmatter) = &parsed.frontmatter {
        assert_eq!(render(frontmatter, &text[parsed.body_offset..]), text);
    }
    parsed
}

fn frontmatter(parsed: &ParsedFile) -> &Frontmatter {
    parsed.frontmatter.as_ref().expect("frontmatter")
}

const SPEC_RECORD: &str = "---
name: prefer-pytest
description: Tests in this project use pytest, never unittest
type: feedback
created: 2026-11-29T14:32:05Z
updated: 2026-11-29T14:32:05Z
revision: 1
source: user
---
New tests use pytest functions and fixtures.
";

#[test]
fn the_spec_record() {
    let parsed = parse_ok(SPEC_RECORD);
    let at = "2026-11-29T14:32:05Z".parse().ok();
    assert_eq!(
        parsed.meta,
        Meta {
            name: Some("prefer-pytest".into()),
            description: Some("Tests in this project use pytest, never unittest".into()),
            record_type: Some(RecordType::Feedback),
            created: at,
            updated: at,
            revision: Some(1),
            source: Some(Source::User),
            ..Meta::default()
        }
    );
    assert_eq!(parsed.problems, vec![]);
    assert!(frontmatter(&parsed).is_strict());
    assert_eq!(
        &SPEC_RECORD[parsed.body_offset..],
        "New tests use pytest functions and fixtures.\n"
    );
}

#[test]
fn bom_before_the_fence() {
    let text = "\u{FEFF}---\nname: a\ndescription: d\nrevision: 0\n---\nbody\n";
    let parsed = parse_ok(text);
    assert_eq!(parsed.meta.description.as_deref(), Some("d"));
    assert_eq!(&text[parsed.body_offset..], "body\n");
    assert_eq!(parsed.problems[0].line, Some(4));
}

#[test]
fn crlf_file() {
    let text =
        "---\r\nname: a\r\ndescription: |\r\n  two\r\n  lines\r\ntags: [x, y]\r\n---\r\nbody\r\n";
    let parsed = parse_ok(text);
    assert_eq!(parsed.meta.description.as_deref(), Some("two lines"));
    assert_eq!(parsed.meta.tags, vec!["x", "y"]);
    assert_eq!(&text[parsed.body_offset..], "body\r\n");
    let mut fm = frontmatter(&parsed).clone();
    fm.set("revision", FieldValue::Integer(2));
    fm.set("tags", FieldValue::List(vec!["z".into()]));
    assert_eq!(
        render(&fm, "body\r\n"),
        "---\r\nname: a\r\ndescription: |\r\n  two\r\n  lines\r\ntags:\r\n  - z\r\nrevision: 2\r\n---\r\nbody\r\n"
    );
}

#[test]
fn trailing_spaces_on_the_opening_fence() {
    let parsed = parse_ok("---  \nname: a\n---\n");
    assert_eq!(parsed.meta.name.as_deref(), Some("a"));
}

#[test]
fn dots_close_and_are_kept() {
    let text = "---\nname: a\n...\nbody";
    let parsed = parse_ok(text);
    let mut fm = frontmatter(&parsed).clone();
    fm.set("name", FieldValue::Text("b".into()));
    assert_eq!(render(&fm, "body"), "---\nname: b\n...\nbody");
}

#[test]
fn fence_inside_a_block_scalar() {
    let text = "---\ndescription: |\n  before\n  ---\n  after\nname: a\n---\n---\nbody\n";
    let parsed = parse_ok(text);
    assert_eq!(parsed.meta.description.as_deref(), Some("before --- after"));
    assert_eq!(parsed.meta.name.as_deref(), Some("a"));
    assert_eq!(&text[parsed.body_offset..], "---\nbody\n");
}

#[test]
fn unclosed_frontmatter_is_body() {
    let parsed = parse("---\nname: a\n# Title\n");
    assert!(parsed.frontmatter.is_none());
    assert_eq!(parsed.body_offset, 0);
    assert_eq!(parsed.meta, Meta::default());
    assert_eq!(parsed.problems.len(), 1);
    assert_eq!(parsed.problems[0].line, Some(1));
    assert!(
        parsed.problems[0].message.contains("never closes"),
        "{:?}",
        parsed.problems
    );
}

#[test]
fn no_frontmatter() {
    let parsed = parse("# Title\n\ntext\n");
    assert!(parsed.frontmatter.is_none());
    assert_eq!((parsed.body_offset, parsed.problems.len()), (0, 0));
}

#[rstest]
#[case::strict("---\nname: a\nmetadata:\n  model: x\n  type: reference\n---\n", true)]
#[case::lenient(
    "---\nname: a\ndescription: a: b\nmetadata:\n  type: reference\n---\n",
    false
)]
#[case::lenient_entry_broken(
    "---\ndescription: a: b\nmetadata:\n  x: a: b\n  type: reference\n---\n",
    false
)]
fn type_under_metadata(#[case] text: &str, #[case] strict: bool) {
    let parsed = parse_ok(text);
    assert_eq!(parsed.meta.record_type, Some(RecordType::Reference));
    assert_eq!(frontmatter(&parsed).is_strict(), strict);
}

#[test]
fn top_level_type_wins_over_metadata() {
    let parsed = parse_ok("---\nmetadata:\n  type: reference\ntype: user\n---\n");
    assert_eq!(parsed.meta.record_type, Some(RecordType::User));
}

#[rstest]
#[case::comma_string("tags: rust, cli ,, testing\n", &["rust", "cli", "testing"])]
#[case::flow("tags: [rust, \"a, b\"]\n", &["rust", "a, b"])]
#[case::block("tags:\n- rust\n- 1.10\n-\n", &["rust", "1.10"])]
#[case::number("tags: 2024\n", &["2024"])]
#[case::lenient_comma("tags: a, b\ndescription: x: y\n", &["a", "b"])]
#[case::lenient_flow("tags: [a, b]\ndescription: x: y\n", &["a", "b"])]
#[case::lenient_block("tags:\n  - a\n  - 'b'\ndescription: x: y\n", &["a", "b"])]
fn tags(#[case] block: &str, #[case] expected: &[&str]) {
    let parsed = parse_ok(&format!("---\n{block}---\n"));
    assert_eq!(parsed.meta.tags, expected);
}

#[test]
fn merged_from_list() {
    let parsed = parse_ok("---\nmerged_from:\n  - a\n  - b\n---\n");
    assert_eq!(parsed.meta.merged_from, vec!["a", "b"]);
}

#[test]
fn lenient_read_of_a_colon_in_a_description() {
    let text = "---\nname: reviewer\ndescription: Use this agent when: reviewing code\ntype: project\n---\nbody\n";
    let parsed = parse_ok(text);
    assert!(!frontmatter(&parsed).is_strict());
    assert_eq!(parsed.meta.name.as_deref(), Some("reviewer"));
    assert_eq!(
        parsed.meta.description.as_deref(),
        Some("Use this agent when: reviewing code")
    );
    assert_eq!(parsed.meta.record_type, Some(RecordType::Project));
    assert_eq!(parsed.problems.len(), 1);
    let problem = &parsed.problems[0];
    assert_eq!((problem.severity, problem.line), (Severity::Error, Some(3)));
    assert!(problem.message.contains("not strict YAML"), "{problem:?}");
    assert!(problem.message.contains("line 3"), "{problem:?}");
}

#[rstest]
#[case::quoted_then_text("description: \"Quoted\" then text\n", "\"Quoted\" then text", 2)]
#[case::alias_glob(
    "globs: **/*.ts\ndescription: TypeScript rules\n",
    "TypeScript rules",
    2
)]
#[case::percent("description: %d percent\n", "%d percent", 2)]
#[case::bad_escape("name: x\ndescription: \"C:\\path\"\n", "C:\\path", 3)]
#[case::block_scalar(
    "description: >-\n  folded: text\n  more\nbad: a: b\n",
    "folded: text more",
    5
)]
#[case::stray_continuation("description: first\nsecond line\n", "first second line", 3)]
fn lenient_values(#[case] block: &str, #[case] description: &str, #[case] line: usize) {
    let parsed = parse_ok(&format!("---\n{block}---\n"));
    assert!(!frontmatter(&parsed).is_strict());
    assert_eq!(parsed.meta.description.as_deref(), Some(description));
    assert_eq!(
        parsed.problems.iter().map(|p| p.line).collect::<Vec<_>>(),
        vec![Some(line)]
    );
}

#[test]
fn duplicate_keys_are_not_strict() {
    let parsed = parse_ok("---\nname: a\nname: b\n---\n");
    assert!(!frontmatter(&parsed).is_strict());
    assert_eq!(parsed.meta.name.as_deref(), Some("a"));
    assert_eq!(parsed.problems[0].line, Some(3));
    assert!(
        parsed.problems[0].message.contains("duplicate"),
        "{:?}",
        parsed.problems
    );
}

#[rstest]
#[case::list("---\n- a\n- b\n---\n")]
#[case::scalar("---\njust text\n---\n")]
fn a_block_that_is_not_a_map_is_not_strict(#[case] text: &str) {
    let parsed = parse_ok(text);
    assert!(!frontmatter(&parsed).is_strict());
    assert_eq!(parsed.problems.len(), 1);
    assert_eq!(parsed.problems[0].line, Some(2));
}

#[rstest]
#[case::empty("---\n---\nbody")]
#[case::comments_only("---\n# nothing yet\n\n---\n")]
fn empty_blocks_are_strict(#[case] text: &str) {
    let parsed = parse_ok(text);
    assert!(frontmatter(&parsed).is_strict());
    assert_eq!(
        (parsed.meta.clone(), parsed.problems.len()),
        (Meta::default(), 0)
    );
}

#[test]
fn a_known_key_with_an_odd_value_keeps_the_block_strict() {
    let parsed = parse_ok("---\nname: a\ndescription: [one, two]\n---\n");
    assert!(frontmatter(&parsed).is_strict());
    assert_eq!(parsed.meta.name.as_deref(), Some("a"));
    assert_eq!(parsed.meta.description.as_deref(), Some("[one, two]"));
    assert_eq!(parsed.problems.len(), 1);
    assert_eq!(parsed.problems[0].line, Some(3));
    assert!(
        parsed.problems[0]
            .message
            .starts_with("`description` holds an unexpected value: expected string scalar"),
        "{:?}",
        parsed.problems
    );
}

#[rstest]
#[case::created("created: yesterday\n", "`created` is not an RFC 3339 timestamp")]
#[case::updated("updated: 2026-11-29\n", "`updated` is not an RFC 3339 timestamp")]
#[case::revision_zero("revision: 0\n", "`revision` must be a whole number from 1")]
#[case::revision_text("revision: two\n", "`revision` must be a whole number from 1")]
#[case::revision_negative("revision: -1\n", "`revision` must be a whole number from 1")]
#[case::type_unknown(
    "type: agent\n",
    "unknown `type` \"agent\"; expected one of user, feedback, project, reference"
)]
#[case::source_unknown(
    "source: rumour\n",
    "unknown `source` \"rumour\"; expected one of user, verified, inferred"
)]
#[case::expires("expires: someday\n", "`expires` is neither a date")]
fn value_problems_name_their_line(#[case] entry: &str, #[case] message: &str) {
    let parsed = parse_ok(&format!("---\nname: a\n# comment\n{entry}---\n"));
    assert_eq!(parsed.problems.len(), 1, "{:?}", parsed.problems);
    let problem = &parsed.problems[0];
    assert_eq!((problem.severity, problem.line), (Severity::Error, Some(4)));
    assert!(problem.message.starts_with(message), "{problem:?}");
}

#[test]
fn invalid_values_are_left_out_and_valid_ones_kept() {
    let parsed = parse_ok(
        "---\ncreated: nope\nupdated: 2026-01-02T03:04:05+01:00\nexpires: 2026-12-31\n---\n",
    );
    assert_eq!(parsed.meta.created, None);
    assert_eq!(parsed.meta.updated, "2026-01-02T02:04:05Z".parse().ok());
    assert_eq!(parsed.meta.expires.as_deref(), Some("2026-12-31"));
}

#[rstest]
#[case::folded("description: >\n  one\n  two\n", Some("one two"))]
#[case::literal("description: |\n  one\n\n  two\n", Some("one two"))]
#[case::quoted_newline("description: \"a\\nb\"\n", Some("a b"))]
#[case::padded("description: '  a  '\n", Some("a"))]
#[case::empty("description: ''\n", None)]
#[case::null("description:\n", None)]
#[case::number("description: 1.10\n", Some("1.10"))]
fn descriptions_are_one_line(#[case] block: &str, #[case] expected: Option<&str>) {
    let parsed = parse_ok(&format!("---\n{block}---\n"));
    assert_eq!(parsed.meta.description.as_deref(), expected);
}

#[test]
fn set_keeps_everything_else_as_written() {
    let text = "---\n# leading comment\nname: old # trailing comment\nx-custom: 'single'   # kept\nnested:\n  a: [1, 2]\n  b: |\n    text\ndescription: old\n---\nbody";
    let parsed = parse_ok(text);
    let mut fm = frontmatter(&parsed).clone();
    fm.set("name", FieldValue::Text("new".into()));
    fm.set("description", FieldValue::Text("new: desc".into()));
    fm.set("revision", FieldValue::Integer(2));
    assert_eq!(
        render(&fm, "body"),
        "---\n# leading comment\nname: new\nx-custom: 'single'   # kept\nnested:\n  a: [1, 2]\n  b: |\n    text\ndescription: \"new: desc\"\nrevision: 2\n---\nbody"
    );
    assert_eq!(
        fm.keys(),
        vec!["name", "x-custom", "nested", "description", "revision"]
    );
    fm.remove("nested");
    assert_eq!(
        fm.keys(),
        vec!["name", "x-custom", "description", "revision"]
    );
}

#[test]
fn set_can_make_a_block_strict() {
    let parsed = parse_ok("---\nname: a\ndescription: a: b\n---\n");
    let mut fm = frontmatter(&parsed).clone();
    assert!(!fm.is_strict());
    fm.set("description", FieldValue::Text("a: b".into()));
    assert!(fm.is_strict());
    let again = parse(&render(&fm, ""));
    assert_eq!(again.meta.description.as_deref(), Some("a: b"));
}

#[test]
fn set_meta_writes_known_keys_in_spec_order_and_removes_absent_ones() {
    let parsed = parse_ok("---\nx: 1\ntags: [a]\nname: a\n---\n");
    let mut fm = frontmatter(&parsed).clone();
    let meta = Meta {
        name: Some("b".into()),
        description: Some("d".into()),
        record_type: Some(RecordType::User),
        revision: Some(3),
        ..Meta::default()
    };
    fm.set_meta(&meta);
    assert_eq!(
        render(&fm, ""),
        "---\nx: 1\nname: b\ndescription: d\ntype: user\nrevision: 3\n---\n"
    );
}

#[test]
fn new_frontmatter_renders_fences() {
    let mut fm = Frontmatter::new();
    assert!(fm.is_strict());
    assert_eq!(render(&fm, "body\n"), "---\n---\nbody\n");
    fm.set("name", FieldValue::Text("a".into()));
    assert_eq!(render(&fm, ""), "---\nname: a\n---\n");
}

#[test]
fn a_new_body_after_a_fence_at_end_of_file_starts_on_its_own_line() {
    let parsed = parse_ok("---\nname: a\n---");
    assert_eq!(
        render(frontmatter(&parsed), "body"),
        "---\nname: a\n---\nbody"
    );
}

#[rstest]
#[case::closed("---\nname: a\n---\nbody", HeaderEnd::Closed { body_offset: 16 })]
#[case::closed_crlf("---\r\nname: a\r\n---\r\nbody", HeaderEnd::Closed { body_offset: 19 })]
#[case::bom("\u{FEFF}---\n---\n", HeaderEnd::Closed { body_offset: 11 })]
#[case::cut_in_block("---\nname: a\ndescr", HeaderEnd::Unclosed)]
#[case::cut_at_fence("---\nname: a\n---", HeaderEnd::Unclosed)]
#[case::none("# Title\n", HeaderEnd::NoFrontmatter)]
#[case::empty("", HeaderEnd::NoFrontmatter)]
fn header_end_in_a_prefix(#[case] text: &str, #[case] expected: HeaderEnd) {
    assert_eq!(find_header_end(text), expected);
}

#[test]
fn header_end_agrees_with_parse() {
    let HeaderEnd::Closed { body_offset } = find_header_end(SPEC_RECORD) else {
        panic!("not closed");
    };
    assert_eq!(body_offset, parse(SPEC_RECORD).body_offset);
}

#[test]
fn hostile_yaml_is_refused_not_followed() {
    let deep = format!("---\nname: a\nx: {}\n---\n", "[".repeat(100_000));
    let parsed = parse_ok(&deep);
    assert!(!frontmatter(&parsed).is_strict());
    assert_eq!(parsed.meta.name.as_deref(), Some("a"));

    let mut laughs = String::from("---\nname: a\nl0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..10 {
        let refs = vec![format!("*l{}", level - 1); 10].join(", ");
        laughs.push_str(&format!("l{level}: &l{level} [{refs}]\n"));
    }
    laughs.push_str("---\n");
    let parsed = parse_ok(&laughs);
    assert!(!frontmatter(&parsed).is_strict());
    assert!(
        parsed.problems[0]
            .message
            .contains("too large or too complex"),
        "{:?}",
        parsed.problems
    );
    assert_eq!(parsed.meta.name.as_deref(), Some("a"));
}

/// A hand-written block whose quoted string spans lines that look like keys.
const QUOTED_STRING_SPANNING_KEY_LINES: &str = "---
title: 'A note that goes on
description: not a key, part of the title
expires: nor this'
---
body
";

#[test]
fn a_value_set_went_into_a_quoted_string_that_mentions_its_key() {
    // Found by fuzzing: `set` replaced the line inside the string, so the
    // description read back was none.
    let parsed = parse_ok(QUOTED_STRING_SPANNING_KEY_LINES);
    assert_eq!(parsed.meta.description, None);
    let mut changed = frontmatter(&parsed).clone();
    changed.set("description", FieldValue::Text("set: here".to_string()));
    let rendered = render(&changed, "body\n");
    assert!(
        rendered.contains("description: not a key, part of the title\n"),
        "{rendered}"
    );
    assert_eq!(
        parse(&rendered).meta.description.as_deref(),
        Some("set: here")
    );
}

#[test]
fn removing_a_key_left_a_quoted_string_that_mentions_it_whole() {
    let parsed = parse_ok(QUOTED_STRING_SPANNING_KEY_LINES);
    let mut changed = frontmatter(&parsed).clone();
    changed.remove("expires");
    assert_eq!(render(&changed, "body\n"), QUOTED_STRING_SPANNING_KEY_LINES);
}

#[test]
fn a_value_set_over_a_line_that_closed_a_quote_left_open_was_swallowed_into_it() {
    // Found by fuzzing: not YAML as written (the quote opened on line 2
    // closes early on line 3), YAML once line 3 is replaced, and then the
    // new line was inside line 2's string.
    let text = "---\napplyTo: '**/\ndescription: 'old\ncreated: x'\n---\nbody\n";
    let parsed = parse_ok(text);
    assert_eq!(parsed.meta.description.as_deref(), Some("'old"));
    let mut changed = frontmatter(&parsed).clone();
    changed.set("description", FieldValue::Text("new: one".to_string()));
    let rendered = render(&changed, "body\n");
    assert_eq!(
        parse(&rendered).meta.description.as_deref(),
        Some("new: one"),
        "{rendered}"
    );
}
