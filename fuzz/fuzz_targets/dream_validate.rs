//! mddream::validate::validate on any plan JSON, against fixed records of
//! both scopes (SPEC §7).
#![no_main]

use std::sync::OnceLock;

#[path = "../../crates/mddream/tests/it/fuzz_checks.rs"]
mod checks;

type Fixture = (Vec<tempfile::TempDir>, Vec<mddream::records::DreamRecord>);
static FIXTURE: OnceLock<Fixture> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (_dirs, records) = FIXTURE.get_or_init(checks::fixture);
    let _accepted = checks::plan_json(records, data);
});
