//! Property tests of the frontmatter: what memctl writes reads back the
//! same, what it did not write survives, and no text makes it panic.

use std::collections::BTreeMap;

use mdstore::frontmatter::{self, FieldValue, Frontmatter, HeaderEnd};
use mdstore::{Meta, RecordType, Source};
use proptest::prelude::*;
use proptest::sample::select;

/// Text that YAML parsers and people are likely to trip on.
const AWKWARD: [&str; 40] = [
    "a: b",
    ": ",
    " #",
    "#",
    "# x",
    "'",
    "\"",
    "''",
    "\\",
    "- ",
    "-",
    "* ",
    "*",
    "&a",
    "!tag",
    "|",
    ">",
    "%",
    "@",
    "`",
    "[",
    "]",
    "{",
    "}",
    ",",
    "?",
    "123",
    "-1.5e3",
    "0x1F",
    "true",
    "no",
    "null",
    "~",
    "2026-01-01",
    "---",
    "...",
    "é",
    "漢字",
    "🦀",
    "\t",
];

/// Printable text mixed with awkward fragments.
fn awkward_text(max_parts: usize) -> impl Strategy<Value = String> {
    let part = prop_oneof![
        select(AWKWARD.to_vec()).prop_map(str::to_string),
        "\\PC{1,12}",
        "[ a-zA-Z0-9]{1,12}"
    ];
    proptest::collection::vec(part, 1..=max_parts).prop_map(|parts| parts.concat())
}

/// Characters that end a line for `description`.
fn has_line_break(text: &str) -> bool {
    text.contains([
        '\n', '\r', '\u{0B}', '\u{0C}', '\u{85}', '\u{2028}', '\u{2029}',
    ])
}

/// A value memctl would write for `name` or `description`: one line, no
/// space at either end.
fn one_line_text(max_parts: usize) -> impl Strategy<Value = String> {
    awkward_text(max_parts).prop_filter("one trimmed line", |t| {
        !t.is_empty() && t.trim() == t && !has_line_break(t)
    })
}

fn timestamp() -> impl Strategy<Value = jiff::Timestamp> {
    let seconds = jiff::Timestamp::MIN.as_second()..=jiff::Timestamp::MAX.as_second();
    (seconds, prop_oneof![Just(0i32), 0..1_000_000_000i32])
        .prop_filter_map("in range", |(s, n)| jiff::Timestamp::new(s, n).ok())
}

fn expires() -> impl Strategy<Value = String> {
    prop_oneof![
        (1i16..=9999, 1i8..=12, 1i8..=28)
            .prop_map(|(y, m, d)| jiff::civil::date(y, m, d).to_string()),
        timestamp().prop_map(|t| t.to_string()),
    ]
}

fn list() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(awkward_text(3), 0..4)
}

prop_compose! {
    fn meta()(
        name in proptest::option::of(prop_oneof![one_line_text(3), "[a-z0-9][a-z0-9._-]{0,30}"]),
        description in proptest::option::of(one_line_text(8)),
        record_type in proptest::option::of(select(RecordType::ALL.to_vec())),
        created in proptest::option::of(timestamp()),
        updated in proptest::option::of(timestamp()),
        revision in proptest::option::of(1..=u64::MAX),
        source in proptest::option::of(select(vec![Source::User, Source::Verified, Source::Inferred])),
        expires in proptest::option::of(expires()),
        tags in list(),
        merged_from in list(),
    ) -> Meta {
        Meta { name, description, record_type, created, updated, revision, source, expires, tags, merged_from }
    }
}

/// Frontmatter to start from: new, or read from files with a BOM, CRLF,
/// `...` or unknown keys.
fn starting_frontmatter() -> impl Strategy<Value = Frontmatter> {
    select(vec![
        "",
        "\u{FEFF}---\r\n---\r\n",
        "---  \nx-tool: keep # me\nname: old\n...\n",
        "---\r\n# comment\r\nglobs: **/*\r\ndescription: was: broken\r\n---\r\n",
    ])
    .prop_map(|text| frontmatter::parse(text).frontmatter.unwrap_or_default())
}

/// Arbitrary text with frontmatter-looking lines, so that the fences and
/// the entry splitting get exercised, not only the no-frontmatter path.
fn file_like_text() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        select(vec![
            "---",
            "--- ",
            "...",
            "",
            " ",
            "# c",
            "name: x",
            "description: a: b",
            "description: |",
            "  indented",
            "  ---",
            "- item",
            "tags: a, b",
            "globs: **/*",
            "\"q\" then",
            "metadata:",
            "  type: user",
            "type: nope",
            "revision: 0",
            "created: x",
            "\u{FEFF}",
            "key: 'open",
            "\t tab",
            "? k",
            "&a x: *a",
        ])
        .prop_map(str::to_string),
        "\\PC{0,16}",
        any::<String>(),
    ];
    let ending = select(vec!["\n", "\r\n", "\r", ""]);
    (
        select(vec!["", "\u{FEFF}"]),
        proptest::collection::vec((line, ending), 0..12),
    )
        .prop_map(|(bom, lines)| {
            let mut text = format!("{bom}---\n");
            for (line, ending) in lines {
                text.push_str(&line);
                text.push_str(ending);
            }
            text
        })
}

/// An unknown key and the YAML lines that hold its value, in one of the
/// shapes people write.
fn unknown_entry() -> impl Strategy<Value = (String, String)> {
    let key = prop_oneof![
        "[a-z][a-z0-9_-]{0,12}",
        awkward_text(3).prop_filter("not empty", |k| !k.trim().is_empty())
    ]
    .prop_filter("not a known key", |k| !KNOWN.contains(&k.as_str()));
    let simple_key = "x-[a-z0-9_-]{1,12}";
    prop_oneof![
        (key, awkward_text(5)).prop_map(|(key, value)| {
            let yaml =
                serde_saphyr::to_string(&BTreeMap::from([(key.clone(), value)])).expect("yaml");
            (key, yaml)
        }),
        (
            simple_key,
            proptest::collection::vec("[a-z :#'\"-]{1,20}", 1..4)
        )
            .prop_map(|(key, lines)| {
                let body: String = lines.iter().map(|l| format!("  {}\n", l.trim())).collect();
                let yaml = format!("# about {key}\n{key}: |\n{body}");
                (key, yaml)
            }),
        simple_key.prop_map(|key| {
            let yaml = format!("{key}:\n  a: 1   # kept\n  b: [x, \"y\"]\n\n  c:\n    - d\n");
            (key, yaml)
        }),
        simple_key.prop_map(|key| (key.clone(), format!("{key}: [1, 'two']   # note\n"))),
    ]
}

const KNOWN: [&str; 11] = [
    "name",
    "description",
    "type",
    "created",
    "updated",
    "revision",
    "source",
    "expires",
    "tags",
    "merged_from",
    "metadata",
];

/// The block of a rendered file (between the fences).
fn block_of(text: &str) -> &str {
    let block = text.strip_prefix("---\n").expect("an opening fence");
    &block[..block.find("\n---\n").map_or(block.len(), |i| i + 1)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_meta_reads_back_the_same(meta in meta(), start in starting_frontmatter(), body in any::<String>()) {
        let mut fm = start;
        fm.set_meta(&meta);
        let text = frontmatter::render(&fm, &body);
        let parsed = frontmatter::parse(&text);
        prop_assert_eq!(&parsed.meta, &meta, "{}", text);
        prop_assert_eq!(&text[parsed.body_offset..], body.as_str());
        let back = parsed.frontmatter.expect("frontmatter");
        prop_assert_eq!(back.is_strict(), fm.is_strict());
        if fm.is_strict() {
            prop_assert!(parsed.problems.is_empty(), "{:?}\n{}", parsed.problems, text);
        }
        prop_assert_eq!(frontmatter::render(&back, &body), text);
    }

    #[test]
    fn unknown_keys_survive_a_rewrite(
        entries in proptest::collection::vec(unknown_entry(), 1..6),
        meta in meta(),
        body in any::<String>(),
    ) {
        let mut seen = Vec::new();
        let entries: Vec<(String, String)> = entries.into_iter().filter(|(k, _)| {
            let fresh = !seen.contains(k);
            seen.push(k.clone());
            fresh
        }).collect();
        let original = format!("---\n{}---\n{body}", entries.iter().map(|(_, yaml)| yaml.as_str()).collect::<String>());
        let parsed = frontmatter::parse(&original);
        let mut fm = parsed.frontmatter.expect("frontmatter");
        prop_assert!(fm.is_strict(), "{:?}\n{}", parsed.problems, original);
        fm.set_meta(&meta);
        let text = frontmatter::render(&fm, &body);

        let keys: Vec<String> = entries.iter().map(|(k, _)| k.clone()).collect();
        let unknown_keys: Vec<String> = fm.keys().into_iter().filter(|k| !KNOWN.contains(&k.as_str())).collect();
        prop_assert_eq!(&unknown_keys, &keys);
        // Each entry is still there as written, comments included, in order.
        let mut from = 0;
        for (_, yaml) in &entries {
            let at = text[from..].find(yaml.as_str());
            prop_assert!(at.is_some(), "{:?} lost from\n{}", yaml, text);
            from += at.unwrap_or(0) + yaml.len();
        }
        let values = |t: &str| -> BTreeMap<String, serde_json::Value> {
            let all: BTreeMap<String, serde_json::Value> = serde_saphyr::from_str(block_of(t)).expect("yaml");
            all.into_iter().filter(|(k, _)| keys.contains(k)).collect()
        };
        prop_assert_eq!(values(&text), values(&original));
        let reparsed = frontmatter::parse(&text);
        prop_assert_eq!(&reparsed.meta, &meta);
        prop_assert_eq!(&text[reparsed.body_offset..], body.as_str());
    }

    #[test]
    fn any_text_parses_without_panic(text in prop_oneof![any::<String>(), file_like_text()]) {
        let parsed = frontmatter::parse(&text);
        prop_assert!(parsed.body_offset <= text.len());
        let body = &text[parsed.body_offset..];
        if let Some(fm) = &parsed.frontmatter {
            prop_assert_eq!(frontmatter::render(fm, body), text.as_str());
        }
        let _ = frontmatter::description_from_body(body);
        match frontmatter::find_header_end(&text) {
            HeaderEnd::Closed { body_offset } => prop_assert_eq!(body_offset, parsed.body_offset),
            HeaderEnd::NoFrontmatter => prop_assert!(parsed.frontmatter.is_none()),
            // Without its line ending, a closing fence at the very end counts only in a whole read.
            HeaderEnd::Unclosed => prop_assert!(parsed.frontmatter.is_none() || parsed.body_offset == text.len()),
        }
    }

    #[test]
    fn a_description_set_into_any_file_reads_back(
        // Closed, or most cases would have no frontmatter to set a description in.
        text in file_like_text().prop_map(|t| t + "\n---\n"),
        description in one_line_text(6),
    ) {
        let parsed = frontmatter::parse(&text);
        let Some(mut fm) = parsed.frontmatter else { return Ok(()) };
        let body = &text[parsed.body_offset..];
        fm.set("description", FieldValue::Text(description.clone()));
        let rendered = frontmatter::render(&fm, body);
        let again = frontmatter::parse(&rendered);
        prop_assert_eq!(again.meta.description.as_deref(), Some(description.as_str()), "{}", rendered);
        prop_assert_eq!(&rendered[again.body_offset..], body);
    }
}
