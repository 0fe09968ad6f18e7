//! Real files from the frontmatter-wild corpus: each one is read without a
//! panic, gives a description and renders back byte for byte.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use mdstore::frontmatter::{self, HeaderEnd, ParsedFile};
use pretty_assertions::assert_eq;

use crate::wild::{self, WildFile};

/// How a folder's files split between strict YAML, lenient reads and no
/// frontmatter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tally {
    files: usize,
    strict: usize,
    not_strict: usize,
    no_frontmatter: usize,
}

/// Checks every file and returns the tally of each folder.
fn check_all(files: &[WildFile]) -> BTreeMap<String, Tally> {
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for file in files {
        let name = file.rel_path.display().to_string();
        let parsed = catch_unwind(AssertUnwindSafe(|| check_file(&name, &file.text)))
            .unwrap_or_else(|_| panic!("{name}: reading it panicked"));
        let folder = file
            .rel_path
            .iter()
            .next()
            .expect("folder")
            .to_string_lossy()
            .into_owned();
        let tally = tallies.entry(folder).or_default();
        tally.files += 1;
        match &parsed.frontmatter {
            None => tally.no_frontmatter += 1,
            Some(fm) if fm.is_strict() => tally.strict += 1,
            Some(_) => tally.not_strict += 1,
        }
    }
    tallies
}

fn total(tallies: &BTreeMap<String, Tally>) -> Tally {
    tallies.values().fold(Tally::default(), |sum, t| Tally {
        files: sum.files + t.files,
        strict: sum.strict + t.strict,
        not_strict: sum.not_strict + t.not_strict,
        no_frontmatter: sum.no_frontmatter + t.no_frontmatter,
    })
}

/// What must hold for any real file; returns the parse.
fn check_file(name: &str, text: &str) -> ParsedFile {
    let parsed = frontmatter::parse(text);
    let body = &text[parsed.body_offset..];
    let description = parsed
        .meta
        .description
        .clone()
        .or_else(|| frontmatter::description_from_body(body));
    assert!(
        description.is_some_and(|d| !d.is_empty() && !d.contains('\n')),
        "{name}: no description"
    );
    // The Markdown reading gives one line per body line, each its own span.
    let lines = mdstore::markdown::read(body);
    assert_eq!(lines.len(), body.lines().count().max(1), "{name}: lines");
    for (line, raw) in lines.iter().zip(body.lines()) {
        assert_eq!(
            &body[line.span.clone()],
            raw.trim_end_matches('\r'),
            "{name}"
        );
    }
    match &parsed.frontmatter {
        Some(fm) => {
            // Not assert_eq: a diff of two large files would drown the name.
            assert!(
                frontmatter::render(fm, body) == text,
                "{name}: render changed the file"
            );
            assert_eq!(
                find_header_end(text),
                HeaderEnd::Closed {
                    body_offset: parsed.body_offset
                },
                "{name}"
            );
            if !fm.is_strict() {
                let problem = parsed.problems.first();
                assert!(
                    problem
                        .is_some_and(|p| p.line.is_some() && p.message.contains("not strict YAML")),
                    "{name}: a lenient read must say where YAML failed: {:?}",
                    parsed.problems
                );
            }
        }
        None => assert_eq!(parsed.body_offset, 0, "{name}"),
    }
    parsed
}

/// The header end found in the first 4 KiB, as a header-only read does,
/// else in the whole text.
fn find_header_end(text: &str) -> HeaderEnd {
    let mut cut = text.len().min(4096);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    match frontmatter::find_header_end(&text[..cut]) {
        HeaderEnd::Closed { body_offset } => HeaderEnd::Closed { body_offset },
        _ => frontmatter::find_header_end(text),
    }
}

/// The same files with a BOM, and with CRLF line endings, read the same.
fn check_variants(files: &[WildFile]) {
    for file in files {
        let name = file.rel_path.display();
        let plain = frontmatter::parse(&file.text);
        let mut variants = vec![format!("\u{FEFF}{}", file.text)];
        if !file.text.contains('\r') {
            variants.push(file.text.replace('\n', "\r\n"));
        }
        for variant in variants {
            let parsed = check_file(&name.to_string(), &variant);
            assert_eq!(parsed.meta, plain.meta, "{name}");
            assert_eq!(
                parsed.frontmatter.as_ref().map(|f| f.is_strict()),
                plain.frontmatter.as_ref().map(|f| f.is_strict()),
                "{name}"
            );
            let lines = |p: &ParsedFile| p.problems.iter().map(|p| p.line).collect::<Vec<_>>();
            assert_eq!(lines(&parsed), lines(&plain), "{name}");
        }
    }
}

#[test]
fn committed_sample() {
    let files = wild::record_files(&wild::sample_root());
    let tallies = check_all(&files);
    let tally = |files, strict, not_strict, no_frontmatter| Tally {
        files,
        strict,
        not_strict,
        no_frontmatter,
    };
    let expected = BTreeMap::from([
        ("claude-subagents".to_string(), tally(28, 12, 8, 8)),
        ("copilot".to_string(), tally(26, 26, 0, 0)),
        ("cursorrules".to_string(), tally(38, 8, 26, 4)),
        ("powershell-docs".to_string(), tally(28, 26, 0, 2)),
    ]);
    assert_eq!(tallies, expected);
    assert_eq!(total(&tallies), tally(120, 72, 34, 14));
    check_variants(&files);
}

#[test]
#[cfg_attr(
    corpus_absent,
    ignore = "the frontmatter-wild corpus is not at ../shared/corpora/frontmatter-wild beside the checkout"
)]
fn whole_corpus() {
    let root = wild::corpus_root();
    let files = wild::record_files(&root);
    let tallies = check_all(&files);
    let all = total(&tallies);
    println!(
        "frontmatter-wild: {} files, {} strict YAML, {} read key by key, {} without frontmatter",
        all.files, all.strict, all.not_strict, all.no_frontmatter
    );
    for (folder, t) in &tallies {
        println!("  {folder}: {t:?}");
    }
    // The corpus README's figures, measured with another strict YAML parser.
    assert_eq!(
        (all.files, all.not_strict, all.no_frontmatter),
        (1226, 238, 20)
    );
}
