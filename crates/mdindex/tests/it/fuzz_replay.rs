//! Replays the query fuzz corpus (fuzz/corpus/query/: what cargo-fuzz found
//! and kept, minimised) through the fuzz target's own check, so that CI runs
//! it without a nightly toolchain. docs/RELIABILITY.md has the runs.

use std::path::PathBuf;

use super::fuzz_checks;

#[test]
fn query_corpus_replays() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/query");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let db = fuzz_checks::fts_table();
    let mut replayed = 0;
    for entry in entries {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        fuzz_checks::query_text(&db, &bytes);
        replayed += 1;
    }
    assert!(
        replayed >= 10,
        "{} holds only {replayed} files",
        dir.display()
    );
}
