//! The numbers memctl reads from `MEMCTL_*` variables (timeouts, limits,
//! dream's gates): the one reading of them, so that a value memctl cannot
//! use is an error naming the variable and what it holds, never a silent
//! default. An unset or empty variable means the default, as an empty
//! `MEMCTL_STORE` or `XDG_CACHE_HOME` means unset (SPEC §10).

use std::ffi::OsStr;

use crate::escape::for_message;
use crate::guard::secrets::secret_note;

/// How much of a bad value a message echoes.
const SHOWN_CHARS: usize = 40;

/// A `MEMCTL_*` variable that holds a whole number: its name, what it
/// counts, its default and the values it may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Number {
    pub name: &'static str,
    /// What the number counts, for messages: `seconds`, `characters`.
    pub unit: &'static str,
    pub default: u64,
    pub min: u64,
    pub max: u64,
}

/// A variable whose value memctl cannot use; exit 2 (SPEC §10).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{name}={value} is not a whole number of {unit} from {min} to {max}")]
pub struct EnvError {
    pub name: &'static str,
    /// The value as it may be shown: quoted, control characters escaped,
    /// cut, and hidden if it looks like a secret.
    pub value: String,
    pub unit: &'static str,
    pub min: u64,
    pub max: u64,
    pub default: u64,
}

impl EnvError {
    /// What to do about it.
    pub fn hint(&self) -> String {
        format!(
            "set {} to a number from {} to {}, or unset it for the default ({} {})",
            self.name, self.min, self.max, self.default, self.unit
        )
    }
}

impl Number {
    /// The variable's value, or `None` when it is unset or empty.
    pub fn read(&self) -> Result<Option<u64>, EnvError> {
        match std::env::var_os(self.name) {
            Some(value) if !value.is_empty() => self.parse(&value).map(Some),
            _ => Ok(None),
        }
    }

    /// The variable's value, or its default when it is unset or empty.
    pub fn read_or_default(&self) -> Result<u64, EnvError> {
        Ok(self.read()?.unwrap_or(self.default))
    }

    /// `value` as this variable's number. Spaces around it are allowed
    /// (a shell line's `X= 5`); a sign, a fraction, a unit or anything
    /// out of range is not.
    pub fn parse(&self, value: &OsStr) -> Result<u64, EnvError> {
        let text = value.to_string_lossy();
        let digits = text.trim();
        let parsed = (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse::<u64>().ok())
            .flatten()
            .filter(|n| (self.min..=self.max).contains(n));
        parsed.ok_or_else(|| EnvError {
            name: self.name,
            value: shown_value(&text),
            unit: self.unit,
            min: self.min,
            max: self.max,
            default: self.default,
        })
    }
}

fn shown_value(text: &str) -> String {
    secret_note(text).unwrap_or_else(|| format!("\"{}\"", for_message(text, SHOWN_CHARS)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECS: Number = Number {
        name: "MEMCTL_TEST_SECS",
        unit: "seconds",
        default: 300,
        min: 1,
        max: 1000,
    };

    fn parse(value: &str) -> Result<u64, EnvError> {
        SECS.parse(OsStr::new(value))
    }

    #[test]
    fn whole_numbers_in_range_are_read() {
        assert_eq!(parse("3"), Ok(3));
        assert_eq!(parse(" 42 "), Ok(42));
        assert_eq!(parse("1000"), Ok(1000));
    }

    #[test]
    fn anything_else_names_the_variable_and_the_value() {
        for bad in [
            "0",
            "abc",
            "-1",
            "+5",
            "1.5",
            "5s",
            "1001",
            "99999999999999999999999",
        ] {
            let err = parse(bad).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "MEMCTL_TEST_SECS=\"{bad}\" is not a whole number of seconds from 1 to 1000"
                )
            );
        }
        assert_eq!(
            parse("0").unwrap_err().hint(),
            "set MEMCTL_TEST_SECS to a number from 1 to 1000, or unset it for the default (300 seconds)"
        );
    }

    #[test]
    fn a_bad_value_is_shown_escaped_cut_or_hidden() {
        let err = parse("\u{1b}[2J").unwrap_err();
        assert!(err.value.contains("\\x1b[2J"), "{}", err.value);
        let err = parse(&"9".repeat(100)).unwrap_err();
        assert_eq!(err.value.chars().count(), SHOWN_CHARS + 2);
        let token = format!("ghp_{}", "a1B2".repeat(9));
        let err = parse(&token).unwrap_err();
        assert!(
            err.value.starts_with("<hidden: looks like a secret"),
            "{err}"
        );
    }
}
