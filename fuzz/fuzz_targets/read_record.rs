//! Any bytes as a record file, through Store::read_record and the
//! header-only Store::read_summary (SPEC §2).
#![no_main]

use std::sync::OnceLock;

#[path = "../../crates/mdstore/tests/it/fuzz_checks.rs"]
#[allow(dead_code)]
mod checks;

static STORE: OnceLock<(tempfile::TempDir, mdstore::Store)> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (_dir, store) = STORE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary store");
        let store = mdstore::Store::open(dir.path()).expect("the store");
        (dir, store)
    });
    checks::record_file(store, data);
});
