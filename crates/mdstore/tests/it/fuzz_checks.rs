//! The properties mdstore's fuzz targets check on every input. The targets
//! (fuzz/fuzz_targets/) include this file, and `fuzz_replay` runs every file
//! of their corpora through it, so CI replays what the fuzzer found on a
//! stable toolchain. A broken property panics: that is the fuzzer's crash.

use std::path::Path;

use mdstore::Store;
use mdstore::frontmatter::{self, FieldValue, HeaderEnd};
use mdstore::guard::secrets;

/// SPEC §2: any text reads without panicking; a file with a frontmatter
/// renders back byte for byte; the header-only scan agrees with the whole
/// read; a description set into any frontmatter reads back.
pub fn frontmatter_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = frontmatter::parse(text);
    assert!(parsed.body_offset <= text.len());
    let body = &text[parsed.body_offset..];
    let line_count = text.split('\n').count();
    for problem in &parsed.problems {
        assert!(
            problem
                .line
                .is_none_or(|line| (1..=line_count).contains(&line)),
            "{problem:?} in a file of {line_count} lines"
        );
    }
    let _ = frontmatter::description_from_body(body);
    match frontmatter::find_header_end(text) {
        HeaderEnd::Closed { body_offset } => assert_eq!(body_offset, parsed.body_offset),
        HeaderEnd::NoFrontmatter => assert!(parsed.frontmatter.is_none()),
        HeaderEnd::Unclosed => {
            assert!(parsed.frontmatter.is_none() || parsed.body_offset == text.len());
        }
    }
    let Some(front) = &parsed.frontmatter else {
        return;
    };
    assert_eq!(frontmatter::render(front, body), text);
    let _ = front.decoded_entries();
    let mut changed = front.clone();
    changed.set(
        "description",
        FieldValue::Text("set by the fuzzer: a: b".to_string()),
    );
    let rendered = frontmatter::render(&changed, body);
    let again = frontmatter::parse(&rendered);
    assert_eq!(
        again.meta.description.as_deref(),
        Some("set by the fuzzer: a: b"),
        "{rendered}"
    );
    assert_eq!(&rendered[again.body_offset..], body);
}

/// SPEC §2 through the store: any bytes in a record file are a record or a
/// skip with its reason, never a panic; the header-only read that writes and
/// `MEMORY.md` rely on agrees with the whole read.
pub fn record_file(store: &Store, data: &[u8]) {
    let rel = Path::new("fuzzed.md");
    std::fs::write(store.root().join(rel), data).expect("the fuzz store is writable");
    let whole = store.read_record(rel);
    let summary = store.read_summary(rel);
    match (whole, summary) {
        (Ok(record), Ok(summary)) => {
            let (a, b) = (&record.meta, &summary.meta);
            assert_eq!(record.id, summary.id);
            assert_eq!(a.name, b.name);
            assert_eq!(a.description, b.description);
            assert_eq!(a.record_type, b.record_type);
            assert_eq!(a.revision, b.revision);
            assert_eq!(a.source, b.source);
            assert_eq!(a.tags, b.tags);
            assert_eq!(a.expires, b.expires);
            assert!(record.body.len() <= data.len());
        }
        (Err(whole), Err(summary)) => assert_eq!(whole.reason, summary.reason),
        (whole, summary) => panic!("whole read {whole:?} but header read {summary:?}"),
    }
}

/// SPEC §6: the secret rules never panic, name real lines, and a message
/// built from text holding a secret never echoes it.
pub fn secret_rules(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let found = secrets::find_secrets(text);
    let lines = text.lines().count();
    for (i, finding) in found.iter().enumerate() {
        assert!(
            (1..=lines).contains(&finding.line),
            "{finding:?} of {lines} lines"
        );
        assert!(!found[..i].contains(finding), "{finding:?} reported twice");
    }
    assert_eq!(secrets::secret_note(text).is_some(), !found.is_empty());
    if !found.is_empty() {
        assert!(secrets::quoted_or_hidden(text).starts_with("<hidden"));
    }
    let parsed = frontmatter::parse(text);
    if let Some(front) = &parsed.frontmatter {
        for field in secrets::find_in_frontmatter(front, &found) {
            assert!(
                (1..=lines).contains(&field.line),
                "{field:?} of {lines} lines"
            );
        }
    }
}
