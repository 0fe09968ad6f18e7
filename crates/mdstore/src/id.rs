//! Record ids and the paths they resolve to (SPEC §2, "Names memctl writes").
//!
//! OWNER: helper H2. Keep the signatures (add, don't break).

use std::path::{Path, PathBuf};

/// Why a proposed name is not a valid id. Messages name the rule broken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("a name must have 1 to 80 characters, this one has {0}")]
    Length(usize),
    #[error("a name may not contain {0}")]
    Forbidden(String),
    #[error("a name may not start with {0:?}")]
    BadStart(char),
    #[error("{0:?} is a reserved name")]
    Reserved(String),
    #[error("the path of {0:?} leaves the store")]
    Escapes(String),
}

/// Normalises a name memctl is asked to write (NFC, lower case, spaces to `-`)
/// and validates it. Returns the id.
pub fn normalize_name(raw: &str) -> Result<String, NameError> {
    let _ = raw;
    todo!()
}

/// The key under which two ids are the same record: NFC and case folded.
pub fn id_key(id: &str) -> String {
    let _ = id;
    todo!()
}

/// The path of the file for `id` inside `root`, checked to stay inside it.
pub fn record_path(root: &Path, id: &str) -> Result<PathBuf, NameError> {
    let _ = (root, id);
    todo!()
}
