//! Exit codes (SPEC §10) and errors that tell the user what to do next.

use std::fmt;

use mddream::apply::ApplyError;
use mdstore::lock::LockError;

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

/// The message, hint and exit code of any error a command returns: the one
/// place where library errors that are not I/O failures get their exit code.
pub fn classify(err: &anyhow::Error) -> (Exit, String, Option<String>) {
    if let Some(failure) = err.chain().find_map(|e| e.downcast_ref::<Failure>()) {
        return (failure.exit, failure.message.clone(), failure.hint.clone());
    }
    if let Some(explained) = mdagent::explain(err.as_ref()) {
        return (exit_of(explained.kind), explained.message, explained.hint);
    }
    // Before the lock's own rule: a dream's lock timeout is inside an ApplyError.
    if let Some(apply) = err.chain().find_map(|e| e.downcast_ref::<ApplyError>()) {
        return classify_apply(apply);
    }
    if let Some(timeout @ LockError::Timeout { .. }) =
        err.chain().find_map(|e| e.downcast_ref::<LockError>())
    {
        return lock_timeout(timeout);
    }
    let message = err
        .chain()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ");
    (Exit::Internal, message, None)
}

/// SPEC §10's code for a kind of library failure.
pub fn exit_of(kind: mdagent::Kind) -> Exit {
    match kind {
        mdagent::Kind::BadInput => Exit::BadInput,
        mdagent::Kind::Conflict => Exit::Conflict,
        mdagent::Kind::Internal => Exit::Internal,
    }
}

fn lock_timeout(timeout: &LockError) -> (Exit, String, Option<String>) {
    (
        Exit::Conflict,
        format!("{timeout}; nothing was written"),
        Some("try again when it is done (MEMCTL_LOCK_TIMEOUT_MS sets the wait)".to_string()),
    )
}

/// A dream plan that was not applied: `ApplyError::exit_code` is SPEC §10's
/// code; the message says the files were left or restored as they were.
fn classify_apply(err: &ApplyError) -> (Exit, String, Option<String>) {
    let exit = match err.exit_code() {
        2 => Exit::BadInput,
        4 => Exit::Conflict,
        _ => Exit::Internal,
    };
    let hint = match err {
        ApplyError::Lock(lock) => return lock_timeout(lock),
        ApplyError::Conflict { .. } => {
            Some("run memctl dream again to plan from the store as it is now")
        }
        ApplyError::Unrestored { .. } => {
            Some("`git status` and `memctl check` show what is left to repair")
        }
        ApplyError::Refused { .. } | ApplyError::Io { .. } => None,
    };
    let message = mdstore::escape::escape_controls(&err.to_string()).into_owned();
    (exit, message, hint.map(str::to_string))
}
