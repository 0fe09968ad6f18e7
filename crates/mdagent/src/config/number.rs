//! The numbers memctl reads from `MEMCTL_*` variables (timeouts, limits,
//! dream's gates), each declared here: the one reading of them, so that a
//! value memctl cannot use is an error naming the variable and what it
//! holds, never a silent default. An unset or empty variable means the
//! default, as an empty `MEMCTL_STORE` or `XDG_CACHE_HOME` means unset
//! (SPEC §10).

use std::ffi::OsStr;

use mdstore::escape::for_message;
use mdstore::guard::secrets::secret_note;

use super::ConfigError;
use super::env::Environment;

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

/// How long a writer waits for a store's lock: 10 s unless it says (0:
/// one try), a day at most.
pub const LOCK_TIMEOUT_MS: Number = Number {
    name: "MEMCTL_LOCK_TIMEOUT_MS",
    unit: "milliseconds",
    default: 10_000,
    min: 0,
    max: 24 * 60 * 60 * 1000,
};

/// How long a model command may run, to the end of its answer: 300 s
/// unless it says, a year at most.
pub const LLM_TIMEOUT_SECS: Number = Number {
    name: "MEMCTL_LLM_TIMEOUT_SECS",
    unit: "seconds",
    default: 300,
    min: 1,
    max: 365 * 24 * 60 * 60,
};

/// The input limit of one call to a model command: SPEC §7's 200,000
/// characters unless it says.
pub const LLM_MAX_INPUT_CHARS: Number = Number {
    name: "MEMCTL_LLM_MAX_INPUT_CHARS",
    unit: "characters",
    default: mddream::model::DEFAULT_MAX_INPUT_CHARS as u64,
    min: 1,
    max: 1_000_000_000,
};

/// `dream --auto`'s gates (SPEC §7), ten years or a billion writes at most.
pub const DREAM_MIN_HOURS: Number = Number {
    name: "MEMCTL_DREAM_MIN_HOURS",
    unit: "hours",
    default: 24,
    min: 0,
    max: 10 * 365 * 24,
};
pub const DREAM_SCAN_MINUTES: Number = Number {
    name: "MEMCTL_DREAM_SCAN_MINUTES",
    unit: "minutes",
    default: 10,
    min: 0,
    max: 10 * 365 * 24 * 60,
};
pub const DREAM_MIN_WRITES: Number = Number {
    name: "MEMCTL_DREAM_MIN_WRITES",
    unit: "writes",
    default: 5,
    min: 0,
    max: 1_000_000_000,
};

impl Number {
    /// The variable's value in `env`, or its default when it is unset or
    /// empty.
    pub fn read(&self, env: &Environment) -> Result<u64, ConfigError> {
        match env.get(self.name) {
            Some(value) => self.parse(value),
            None => Ok(self.default),
        }
    }

    /// `value` as this variable's number. Spaces around it are allowed
    /// (a shell line's `X= 5`); a sign, a fraction, a unit or anything
    /// out of range is not.
    pub fn parse(&self, value: &OsStr) -> Result<u64, ConfigError> {
        let text = value.to_string_lossy();
        let digits = text.trim();
        let parsed = (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse::<u64>().ok())
            .flatten()
            .filter(|n| (self.min..=self.max).contains(n));
        parsed.ok_or_else(|| ConfigError::Number {
            number: *self,
            value: shown_value(&text),
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

    fn parse(value: &str) -> Result<u64, ConfigError> {
        SECS.parse(OsStr::new(value))
    }

    #[test]
    fn whole_numbers_in_range_are_read() {
        assert_eq!(parse("3").ok(), Some(3));
        assert_eq!(parse(" 42 ").ok(), Some(42));
        assert_eq!(parse("1000").ok(), Some(1000));
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
            parse("0").unwrap_err().hint().unwrap(),
            "set MEMCTL_TEST_SECS to a number from 1 to 1000, or unset it for the default (300 seconds)"
        );
    }

    #[test]
    fn a_bad_value_is_shown_escaped_cut_or_hidden() {
        let value = |err: ConfigError| match err {
            ConfigError::Number { value, .. } => value,
            other => panic!("{other:?}"),
        };
        let err = value(parse("\u{1b}[2J").unwrap_err());
        assert!(err.contains("\\x1b[2J"), "{err}");
        let err = value(parse(&"9".repeat(100)).unwrap_err());
        assert_eq!(err.chars().count(), SHOWN_CHARS + 2);
        let token = format!("ghp_{}", "a1B2".repeat(9));
        let err = value(parse(&token).unwrap_err());
        assert!(err.starts_with("<hidden: looks like a secret"), "{err}");
    }
}
