//! Replays the dream-plan fuzz corpus (fuzz/corpus/dream_validate/: what
//! cargo-fuzz found and kept, minimised) through the fuzz target's own
//! check, so that CI runs it without a nightly toolchain.
//! docs/RELIABILITY.md has the runs.

use std::path::PathBuf;

use super::fuzz_checks as checks;

#[test]
fn dream_validate_corpus_replays() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/dream_validate");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let (_dirs, records) = checks::fixture();
    let (mut replayed, mut accepted) = (0, 0);
    for entry in entries {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        accepted += usize::from(checks::plan_json(&records, &bytes));
        replayed += 1;
    }
    // Plans the validator accepts are where the properties have something to check.
    assert!(accepted >= 1, "none of the {replayed} plans was accepted");
    assert!(
        replayed >= 10,
        "{} holds only {replayed} files",
        dir.display()
    );
}
