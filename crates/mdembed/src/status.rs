//! Is semantic matching on, and can it run? The model is off until a user
//! turns it on, by the `MEMCTL_EMBED_MODEL` variable or a setting naming an
//! installed model; an installed model alone turns nothing on. A caller
//! asks once, uses the model if it is [`Availability::Usable`], and
//! otherwise falls back to lexical search, saying why once if it is
//! [`Availability::Broken`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::model::Model;

/// The environment variable that names the model to use (a path), for
/// scripts and tests; it wins over the setting. Empty counts as unset.
pub const ENV_VAR: &str = "MEMCTL_EMBED_MODEL";

/// What a caller can do with semantic matching.
#[derive(Debug)]
pub enum Availability {
    /// Neither the variable nor the setting names a model: off, by choice.
    NotConfigured,
    /// The named model loaded.
    Usable(Box<Model>),
    /// A model is named but cannot be used; `error` says why (a missing,
    /// damaged or wrong file, named).
    Broken { path: PathBuf, error: Error },
}

impl Availability {
    /// One line for the user when the model is named but broken.
    pub fn explain(&self) -> Option<String> {
        match self {
            Availability::Broken { path, error } => Some(format!(
                "semantic matching is off: the model named at {} cannot be used ({error}); \
                 searching words only",
                path.display()
            )),
            _ => None,
        }
    }
}

/// The model path in force: `env` (the value of [`ENV_VAR`]) when set and
/// not empty, else `setting`.
pub fn configured_path(env: Option<OsString>, setting: Option<&Path>) -> Option<PathBuf> {
    env.filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| setting.map(Path::to_path_buf))
}

/// Opens the model named by [`ENV_VAR`] or, without it, `setting`.
pub fn open_configured(setting: Option<&Path>) -> Availability {
    open_at(configured_path(std::env::var_os(ENV_VAR), setting))
}

/// Opens the model at `path`, if any.
pub fn open_at(path: Option<PathBuf>) -> Availability {
    match path {
        None => Availability::NotConfigured,
        Some(path) => match Model::open(&path) {
            Ok(model) => Availability::Usable(Box::new(model)),
            Err(error) => Availability::Broken { path, error },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_wins_and_empty_is_unset() {
        let setting = Path::new("/setting");
        assert_eq!(configured_path(None, None), None);
        assert_eq!(configured_path(None, Some(setting)), Some(setting.into()));
        assert_eq!(
            configured_path(Some("".into()), Some(setting)),
            Some(setting.into())
        );
        assert_eq!(
            configured_path(Some("/env".into()), Some(setting)),
            Some("/env".into())
        );
    }

    #[test]
    fn a_named_model_that_is_missing_is_broken_and_says_where() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-model");
        let availability = open_at(Some(missing.clone()));
        let line = availability.explain().unwrap();
        assert!(matches!(availability, Availability::Broken { .. }));
        assert!(line.contains(&missing.display().to_string()), "{line}");
        assert!(matches!(open_at(None), Availability::NotConfigured));
    }
}
