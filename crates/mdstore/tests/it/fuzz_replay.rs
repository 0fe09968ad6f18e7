//! Replays the fuzz corpora (fuzz/corpus/<target>/: what cargo-fuzz found
//! and kept, minimised) through the fuzz targets' own checks, so that CI
//! runs them without a nightly toolchain. docs/RELIABILITY.md has the runs.

use std::path::PathBuf;

use super::fuzz_checks;

/// Every file of one target's corpus; an empty or missing corpus fails, so
/// the replay cannot pass by finding nothing.
pub fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("a corpus entry").path();
            let bytes = std::fs::read(&path).expect("a corpus file");
            (path, bytes)
        })
        .collect();
    assert!(
        files.len() >= 10,
        "{} holds only {} files",
        dir.display(),
        files.len()
    );
    files.sort();
    files
}

#[test]
fn frontmatter_corpus_replays() {
    for (_path, bytes) in corpus("frontmatter") {
        fuzz_checks::frontmatter_text(&bytes);
    }
}

#[test]
fn read_record_corpus_replays() {
    let dir = tempfile::tempdir().unwrap();
    let store = mdstore::Store::open(dir.path()).unwrap();
    for (_path, bytes) in corpus("read_record") {
        fuzz_checks::record_file(&store, &bytes);
    }
}

#[test]
fn secrets_corpus_replays() {
    for (_path, bytes) in corpus("secrets") {
        fuzz_checks::secret_rules(&bytes);
    }
}

/// Found by the `frontmatter` fuzz target: YAML counts a lone `\r` as a line
/// break, so a YAML error's line was past the end of the file.
#[test]
fn yaml_error_line_counted_lone_carriage_returns_as_line_breaks() {
    let text = "---\nname: a\nrevision:\r\r\r\r\r\r 1\ndescription: d\ntags: [a, b: c\n---\nbody\n";
    let parsed = mdstore::frontmatter::parse(text);
    let lines: Vec<usize> = parsed.problems.iter().filter_map(|p| p.line).collect();
    assert!(!lines.is_empty(), "{:?}", parsed.problems);
    assert!(lines.iter().all(|&line| line <= 7), "{:?}", parsed.problems);
}
