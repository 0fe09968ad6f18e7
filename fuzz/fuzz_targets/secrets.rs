//! The secret rules (mdstore::guard::secrets) on any text (SPEC §6).
#![no_main]

#[path = "../../crates/mdstore/tests/it/fuzz_checks.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::secret_rules(data));
