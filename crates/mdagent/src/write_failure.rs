//! Why a write use case (`remember`, `forget`) stopped: on purpose (bad
//! input, nobody confirmed), or because what it needs failed (a setting,
//! a store, the lock, the disk). [`crate::explain()`] gives each its kind
//! and hint, as for every other error of this crate.

use mdstore::lock::LockError;

use crate::Kind;
use crate::config::ConfigError;
use crate::stores::StoreError;

/// Why a write use case stopped; what it wrote before (a forget that
/// failed half-way) is said by the use case, not here.
#[derive(Debug, thiserror::Error)]
pub enum WriteFailure {
    /// Stopped on purpose, before writing: bad input, or nobody confirmed.
    #[error("{message}")]
    Stopped {
        kind: Kind,
        message: String,
        hint: Option<String>,
    },
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Stores(#[from] StoreError),
    #[error(transparent)]
    Lock(#[from] LockError),
    /// What could not be done, and the I/O error that stopped it.
    #[error("{what}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// A record that could not be forgotten for a reason of the store's.
    #[error("cannot forget {id}")]
    Forget {
        id: String,
        #[source]
        source: mdstore::write::ForgetError,
    },
}

impl WriteFailure {
    /// The caller's input is wrong; nothing was written.
    pub fn bad_input(message: impl Into<String>) -> WriteFailure {
        WriteFailure::stopped(Kind::BadInput, message)
    }

    /// Stopped on purpose, for `kind`'s reason, without a hint yet.
    pub fn stopped(kind: Kind, message: impl Into<String>) -> WriteFailure {
        WriteFailure::Stopped {
            kind,
            message: message.into(),
            hint: None,
        }
    }

    /// The same failure with `hint` (only a [`WriteFailure::Stopped`] takes one).
    pub fn with_hint(self, hint: impl Into<String>) -> WriteFailure {
        match self {
            WriteFailure::Stopped { kind, message, .. } => WriteFailure::Stopped {
                kind,
                message,
                hint: Some(hint.into()),
            },
            other => other,
        }
    }

    /// `what` could not be done, for `source`.
    pub fn io(what: impl Into<String>, source: std::io::Error) -> WriteFailure {
        WriteFailure::Io {
            what: what.into(),
            source,
        }
    }
}
