//! Guards that refuse a write before anything touches the disk (SPEC §6).

pub mod secrets;
pub mod temporary;

use regex::Regex;

/// Compiles one of mdstore's own constant patterns (each one is exercised by
/// the unit tests of the module that declares it, so a typo fails there).
#[expect(
    clippy::expect_used,
    reason = "only constant patterns reach here, and every one is compiled by the tests"
)]
pub(crate) fn builtin_regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a built-in pattern compiles")
}
