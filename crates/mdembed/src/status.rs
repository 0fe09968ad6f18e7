//! Is semantic matching on, and can it run? The model is off until a user
//! names an installed model (memctl's settings say where); an installed
//! model alone turns nothing on. A caller asks once, uses the model if it
//! is [`Availability::Usable`], and otherwise falls back to lexical search,
//! saying why once if it is [`Availability::Broken`].

use std::path::PathBuf;

use crate::error::Error;
use crate::model::Model;

/// What a caller can do with semantic matching.
#[derive(Debug)]
pub enum Availability {
    /// No model is named: off, by choice.
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
