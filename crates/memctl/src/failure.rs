//! Exit codes (SPEC §10) and errors that tell the user what to do next.

use std::fmt;

/// SPEC §10.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    /// Search found nothing; `check` or `reindex --check` found problems.
    NothingOrProblems = 1,
    BadInput = 2,
    NotConfirmed = 3,
    Conflict = 4,
    Internal = 5,
}

/// An error with its exit code and an optional hint, printed as
/// `error: …` / `hint: …`.
#[derive(Debug)]
pub struct Failure {
    pub exit: Exit,
    pub message: String,
    pub hint: Option<String>,
}

impl Failure {
    pub fn new(exit: Exit, message: impl Into<String>) -> Failure {
        Failure {
            exit,
            message: message.into(),
            hint: None,
        }
    }

    pub fn bad_input(message: impl Into<String>) -> Failure {
        Failure::new(Exit::BadInput, message)
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Failure {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}
