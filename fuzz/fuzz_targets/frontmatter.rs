//! mdstore::frontmatter::parse on any text (SPEC §2).
#![no_main]

#[path = "../../crates/mdstore/tests/it/fuzz_checks.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::frontmatter_text(data));
