//! What every library error means to the person or agent who sees it: its
//! kind and what to do about it. This file is the one table of them (jj's
//! `command_error.rs`): the engine crates (`mdstore`, `mdindex`, `mddream`)
//! and this crate return typed errors that say what happened, never an exit
//! code; a face maps a [`Kind`] to its own answer (the CLI to SPEC §10's
//! exit codes, the MCP server to a tool error) and nothing else.

use std::error::Error;

use mddream::apply::ApplyError;
use mddream::validate::Rejection;
use mdstore::lock::LockError;

use crate::lifecycle::pending;
use crate::write_failure::WriteFailure;
use crate::{config, context, dream, extract, git, model, records, search, stores};

/// What kind of failure an error is, so that a face can report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// What the caller asked to check holds problems (a dry run's plan
    /// that would be refused): the answer, not a failure to give one.
    Problems,
    /// The caller's input (an argument, a file, the environment) is wrong.
    BadInput,
    /// Nothing was done because nobody confirmed it (no terminal to ask
    /// on, or the answer was no).
    NotConfirmed,
    /// Something else got there first (a lock, a change meanwhile).
    Conflict,
    /// The system failed (I/O, a program that did not run).
    Internal,
}

/// How a face reports an error: its kind, its message (without the causes
/// an internal error lists after it) and what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explained {
    pub kind: Kind,
    pub message: String,
    pub hint: Option<String>,
}

/// What to do when another writer holds a store's lock.
pub const LOCK_HINT: &str = "try again when it is done (MEMCTL_LOCK_TIMEOUT_MS sets the wait)";

/// What to do when git cannot be run at all.
const GIT_HINT: &str = "is git installed and on PATH?";

/// The first error in `error`'s chain of sources that the table below
/// knows as the caller's fault, or with a hint, or whole in its own words,
/// explained. `None` for an internal failure, which a face reports with its
/// whole chain of causes.
pub fn explain(error: &(dyn Error + 'static)) -> Option<Explained> {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(explained) = explain_one(error) {
            return Some(explained);
        }
        next = error.source();
    }
    None
}

/// What a face says of `error` in one line: its explained message, else
/// the error and its causes, as an internal failure is reported.
pub fn message_of(error: &(dyn Error + 'static)) -> String {
    if let Some(explained) = explain(error) {
        return explained.message;
    }
    let mut words = vec![error.to_string()];
    let mut next = error.source();
    while let Some(e) = next {
        words.push(e.to_string());
        next = e.source();
    }
    words.join(": ")
}

/// One error, if the table knows it and it is more than an internal
/// failure to report with its causes.
fn explain_one(error: &(dyn Error + 'static)) -> Option<Explained> {
    if let Some(e) = error.downcast_ref::<ApplyError>() {
        return Some(apply_error(e));
    }
    if let Some(e) = error.downcast_ref::<LockError>() {
        return lock_error(e);
    }
    if let Some(e) = error.downcast_ref::<crate::lifecycle::review::ReviewError>() {
        return explain(e.wrapped());
    }
    if let Some(e) = error.downcast_ref::<extract::run::ExtractError>() {
        return match e.wrapped() {
            Some(wrapped) => explain(wrapped),
            None => Some(Explained {
                kind: e.kind(),
                message: e.to_string(),
                hint: e.hint(),
            }),
        };
    }
    if let Some(e) = error.downcast_ref::<dream::DreamError>() {
        return match e.wrapped() {
            Some(wrapped) => explain(wrapped),
            None => Some(Explained {
                kind: e.kind(),
                message: e.to_string(),
                hint: e.hint(),
            }),
        };
    }
    if let Some(e) = error.downcast_ref::<crate::maintain::MaintainError>() {
        return match e.wrapped() {
            Some(wrapped) => explain(wrapped),
            None => (e.kind() != Kind::Internal).then(|| Explained {
                kind: e.kind(),
                message: e.to_string(),
                hint: e.hint(),
            }),
        };
    }
    if let Some(e) = error.downcast_ref::<WriteFailure>() {
        return write_failure(e);
    }
    if let Some(mdindex::Error::WatcherRunning { store, .. }) = error.downcast_ref() {
        // The lock file is the watcher's business, not the person's.
        return Some(Explained {
            kind: Kind::Conflict,
            message: format!("a watcher already runs for {}", store.display()),
            hint: Some("one watcher per store is enough; stop the other one first".to_string()),
        });
    }
    let (kind, hint) = kind_and_hint(error)?;
    (kind != Kind::Internal || hint.is_some()).then(|| Explained {
        kind,
        message: error.to_string(),
        hint,
    })
}

/// This crate's errors, each of which knows its kind and hint.
fn kind_and_hint(error: &(dyn Error + 'static)) -> Option<(Kind, Option<String>)> {
    if let Some(e) = error.downcast_ref::<config::ConfigError>() {
        return Some((e.kind(), e.hint()));
    }
    if let Some(search::SearchError::NoStore { wanted, .. }) = error.downcast_ref() {
        return Some((
            Kind::BadInput,
            Some(search::no_store_hint(wanted).to_string()),
        ));
    }
    if let Some(e) = error.downcast_ref::<stores::StoreError>() {
        return Some((e.kind(), e.hint()));
    }
    if let Some(e) = error.downcast_ref::<git::history::HistoryError>() {
        return match e {
            git::history::HistoryError::Stores(e) => kind_and_hint(e),
            git::history::HistoryError::Git(e) => kind_and_hint(e),
            e => Some((e.kind(), e.hint())),
        };
    }
    if let Some(e) = error.downcast_ref::<records::FindError>() {
        return Some((e.kind(), e.hint()));
    }
    if let Some(e) = error.downcast_ref::<extract::transcript::TranscriptError>() {
        return Some((e.kind(), e.hint()));
    }
    if let Some(e) = error.downcast_ref::<pending::PendingError>() {
        return Some((e.kind(), None));
    }
    if let Some(e) = error.downcast_ref::<mdstore::txn::EditError>() {
        return Some((edit_kind(e), None));
    }
    if let Some(e) = error.downcast_ref::<git::GitError>() {
        let hint = matches!(e, git::GitError::NotRunnable(_)).then_some(GIT_HINT);
        return Some((Kind::Internal, hint.map(str::to_string)));
    }
    if let Some(e) = error.downcast_ref::<model::cmd::ModelCmdError>() {
        return Some((e.kind(), None));
    }
    if let Some(context::ContextError::Stores(e)) = error.downcast_ref::<context::ContextError>() {
        return Some((e.kind(), e.hint()));
    }
    None
}

/// A dream plan that broke a rule: a conflict when it would overwrite
/// what is more trusted or what changed meanwhile (SPEC §10), else the
/// plan's own fault.
pub fn plan_rejection(rejection: &Rejection) -> Kind {
    if rejection.kind.is_conflict() {
        Kind::Conflict
    } else {
        Kind::BadInput
    }
}

/// A candidate a write guard refused (SPEC §10): a conflict when what is
/// stored says no (a tombstone, a more trusted record, another revision),
/// bad input when its own text does (a secret, a temporary remark).
pub fn refusal_kind(refusal: &mdstore::write::Refusal) -> Kind {
    use mdstore::write::Refusal;
    match refusal {
        Refusal::Secret(_) | Refusal::Temporary(_) => Kind::BadInput,
        Refusal::Tombstone(_) | Refusal::LowerTrust { .. } | Refusal::RevisionMismatch { .. } => {
            Kind::Conflict
        }
    }
}

/// A hand edit not saved: a conflict when the file changed meanwhile, bad
/// input when the edit is not a whole record, else a failure of the disk.
pub fn edit_kind(error: &mdstore::txn::EditError) -> Kind {
    use mdstore::txn::EditError;
    match error {
        EditError::Changed(_) => Kind::Conflict,
        EditError::Invalid(..) => Kind::BadInput,
        EditError::Io { .. } => Kind::Internal,
    }
}

/// A store's lock another writer held too long: a conflict, nothing written.
fn lock_error(error: &LockError) -> Option<Explained> {
    match error {
        LockError::Timeout { .. } => Some(Explained {
            kind: Kind::Conflict,
            message: format!("{error}; nothing was written"),
            hint: Some(LOCK_HINT.to_string()),
        }),
        // Reported with their causes.
        LockError::Io(_) | LockError::Interrupted { .. } => None,
    }
}

/// A write stopped on purpose says its kind; one stopped by a setting, a
/// store or the lock is explained as that error is.
fn write_failure(error: &WriteFailure) -> Option<Explained> {
    match error {
        WriteFailure::Stopped {
            kind,
            message,
            hint,
        } => Some(Explained {
            kind: *kind,
            message: message.clone(),
            hint: hint.clone(),
        }),
        WriteFailure::Config(e) => explain_one(e),
        WriteFailure::Stores(e) => explain_one(e),
        WriteFailure::Lock(e) => lock_error(e),
        // Reported with their causes.
        WriteFailure::Io { .. } | WriteFailure::Forget { .. } => None,
    }
}

/// A dream plan that was not applied; its message says the files were left
/// or restored as they were.
fn apply_error(error: &ApplyError) -> Explained {
    if let ApplyError::Lock(lock) = error {
        return Explained {
            kind: Kind::Conflict,
            message: format!("{lock}; nothing was written"),
            hint: Some(LOCK_HINT.to_string()),
        };
    }
    let (kind, hint) = match error {
        ApplyError::Lock(_) => (Kind::Conflict, None),
        ApplyError::Conflict { .. } => (
            Kind::Conflict,
            Some("run memctl dream again to plan from the store as it is now"),
        ),
        // A tombstone or the trust order said no: what is stored stands.
        ApplyError::Refused { conflict: true, .. } => (Kind::Conflict, None),
        // The text itself (a secret) was refused.
        ApplyError::Refused {
            conflict: false, ..
        } => (Kind::BadInput, None),
        ApplyError::Io { .. } => (Kind::Internal, None),
        ApplyError::Unrestored { .. } => (
            Kind::Internal,
            Some("`git status` and `memctl check` show what is left to repair"),
        ),
    };
    Explained {
        kind,
        message: mdstore::escape::escape_controls(&error.to_string()).into_owned(),
        hint: hint.map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_store_error_inside_another_is_explained_with_its_hint() {
        let missing = || stores::StoreError::NoSuchFolder {
            named: "--store /nope".to_string(),
            dir: PathBuf::from("/nope"),
        };
        let found = records::FindError::Stores(missing());
        let explained = explain(&found).unwrap();
        assert_eq!(explained.kind, Kind::BadInput);
        assert_eq!(explained.message, "--store /nope: no such folder");
        assert_eq!(
            explained.hint.as_deref(),
            Some("create it with `memctl init --store /nope`")
        );
        let gathered = context::ContextError::Stores(missing());
        assert_eq!(explain(&gathered), Some(explained));
    }

    #[test]
    fn an_internal_failure_is_left_to_its_chain_of_causes() {
        let open = stores::StoreError::Open {
            dir: PathBuf::from("/store"),
            source: std::io::Error::other("disk on fire"),
        };
        assert_eq!(explain(&open), None);
        let unknown = std::io::Error::other("not ours");
        assert_eq!(explain(&unknown), None);
        let lock = LockError::Io(std::io::Error::other("no lock"));
        assert_eq!(explain(&lock), None);
    }

    fn timeout() -> LockError {
        LockError::Timeout {
            root: PathBuf::from("/store"),
            waited: Duration::from_millis(200),
        }
    }

    #[test]
    fn a_lock_held_too_long_is_a_conflict_that_wrote_nothing_in_a_dream_too() {
        let explained = explain(&timeout()).unwrap();
        assert_eq!(explained.kind, Kind::Conflict);
        assert!(
            explained.message.ends_with("; nothing was written"),
            "{}",
            explained.message
        );
        assert_eq!(explained.hint.as_deref(), Some(LOCK_HINT));
        assert_eq!(explain(&ApplyError::Lock(timeout())), Some(explained));
    }

    // Moved from mddream's apply tests, which asserted the exit codes
    // (4, 2, 5) that `ApplyError::exit_code` chose.
    #[test]
    fn a_plan_not_applied_is_a_conflict_bad_input_or_internal_as_its_cause() {
        let kind = |e: ApplyError| explain(&e).unwrap().kind;
        let conflict = ApplyError::Conflict {
            operation: 2,
            id: "c".to_string(),
        };
        assert_eq!(kind(conflict), Kind::Conflict);
        let refused = |conflict| ApplyError::Refused {
            operation: 1,
            reason: "it holds a secret".to_string(),
            conflict,
        };
        assert_eq!(kind(refused(false)), Kind::BadInput);
        assert_eq!(kind(refused(true)), Kind::Conflict);
        let io = || ApplyError::Io {
            path: PathBuf::from("/store/a.md"),
            source: std::io::Error::other("disk full"),
        };
        assert_eq!(kind(io()), Kind::Internal);
        let unrestored = ApplyError::Unrestored {
            error: Box::new(io()),
            path: PathBuf::from("/store/a.md"),
            source: std::io::Error::other("still full"),
        };
        let explained = explain(&unrestored).unwrap();
        assert_eq!(explained.kind, Kind::Internal);
        assert!(explained.hint.unwrap().contains("memctl check"));
    }

    #[test]
    fn a_plan_s_message_is_shown_with_its_control_characters_escaped() {
        let conflict = ApplyError::Conflict {
            operation: 0,
            id: "a\u{1b}[2Jb".to_string(),
        };
        let explained = explain(&conflict).unwrap();
        assert!(
            !explained.message.contains('\u{1b}'),
            "{}",
            explained.message
        );
    }

    #[test]
    fn a_write_stopped_on_purpose_keeps_its_kind_and_one_stopped_by_a_lock_is_a_lock_s() {
        let stopped = WriteFailure::stopped(Kind::NotConfirmed, "no store was created")
            .with_hint("pass --yes");
        assert_eq!(
            explain(&stopped),
            Some(Explained {
                kind: Kind::NotConfirmed,
                message: "no store was created".to_string(),
                hint: Some("pass --yes".to_string()),
            })
        );
        assert_eq!(explain(&WriteFailure::Lock(timeout())), explain(&timeout()));
        let io = WriteFailure::io("cannot plan", std::io::Error::other("disk on fire"));
        assert_eq!(explain(&io), None);
    }

    #[test]
    fn a_guard_s_refusal_is_a_conflict_when_what_is_stored_says_no() {
        use mdstore::write::Refusal;
        let stale = Refusal::RevisionMismatch {
            expected: 2,
            actual: Some(3),
        };
        assert_eq!(refusal_kind(&stale), Kind::Conflict);
        assert_eq!(refusal_kind(&Refusal::Secret(Vec::new())), Kind::BadInput);
        assert_eq!(
            refusal_kind(&Refusal::Temporary(Vec::new())),
            Kind::BadInput
        );
    }

    // Moved from `memctl watch` and `memctl log`, which chose these kinds
    // and hints themselves.
    #[test]
    fn a_second_watcher_is_a_conflict_and_git_that_cannot_run_says_so() {
        let running = mdindex::Error::WatcherRunning {
            store: PathBuf::from("/store"),
            lock: PathBuf::from("/cache/x.watch.lock"),
        };
        let explained = explain(&running).unwrap();
        assert_eq!(explained.kind, Kind::Conflict);
        assert_eq!(explained.message, "a watcher already runs for /store");
        let missing = git::GitError::NotRunnable(std::io::Error::other("no git"));
        let explained = explain(&missing).unwrap();
        assert_eq!(explained.kind, Kind::Internal);
        assert_eq!(explained.hint.as_deref(), Some(GIT_HINT));
    }

    // Moved from `memctl edit`, which chose the conflict itself.
    #[test]
    fn an_edit_of_a_file_changed_meanwhile_is_a_conflict() {
        use mdstore::txn::EditError;
        let changed = EditError::Changed(PathBuf::from("a.md"));
        assert_eq!(edit_kind(&changed), Kind::Conflict);
        assert_eq!(explain(&changed).unwrap().kind, Kind::Conflict);
        let invalid = EditError::Invalid(PathBuf::from("a.md"), Vec::new());
        assert_eq!(explain(&invalid).unwrap().kind, Kind::BadInput);
        let io = EditError::Io {
            rel_path: PathBuf::from("a.md"),
            source: std::io::Error::other("disk full"),
        };
        assert_eq!(explain(&io), None);
    }
}
