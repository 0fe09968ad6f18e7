//! Exit codes (SPEC §10) and errors that tell the user what to do next.
//! A library error's kind and hint come from `mdagent::explain`, the one
//! table of them; this file maps a kind to an exit code ([`exit_of`]) and
//! nothing else.

use std::fmt;

use mdagent::Kind;

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

/// An error the CLI itself finds (in its arguments, at its prompts), with
/// its kind and an optional hint, printed as `error: …` / `hint: …`.
#[derive(Debug)]
pub struct Failure {
    pub kind: Kind,
    pub message: String,
    pub hint: Option<String>,
}

impl Failure {
    pub fn new(kind: Kind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            hint: None,
        }
    }

    pub fn bad_input(message: impl Into<String>) -> Failure {
        Failure::new(Kind::BadInput, message)
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

/// The message, hint and exit code of any error a command returns: the
/// CLI's own [`Failure`], else what `mdagent::explain` says of a library
/// error, else an internal failure with its chain of causes.
pub fn classify(err: &anyhow::Error) -> (Exit, String, Option<String>) {
    if let Some(failure) = err.chain().find_map(|e| e.downcast_ref::<Failure>()) {
        return (
            exit_of(failure.kind),
            failure.message.clone(),
            failure.hint.clone(),
        );
    }
    if let Some(explained) = mdagent::explain(err.as_ref()) {
        return (exit_of(explained.kind), explained.message, explained.hint);
    }
    let message = err
        .chain()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ");
    (Exit::Internal, message, None)
}

/// SPEC §10's code for a kind of failure: the one place a kind becomes an
/// exit code.
pub fn exit_of(kind: Kind) -> Exit {
    match kind {
        Kind::Problems => Exit::NothingOrProblems,
        Kind::BadInput => Exit::BadInput,
        Kind::NotConfirmed => Exit::NotConfirmed,
        Kind::Conflict => Exit::Conflict,
        Kind::Internal => Exit::Internal,
    }
}
