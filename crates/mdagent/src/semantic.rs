//! Whether `search` and `context` use semantic matching (issue 18): off
//! until the user turns it on, by `MEMCTL_EMBED_MODEL=PATH` (scripts,
//! tests) or, in the user's own configuration file
//! (`$XDG_CONFIG_HOME/memctl/config.toml`, else
//! `~/.config/memctl/config.toml`):
//!
//! ```toml
//! [semantic]
//! model = "/home/me/.local/share/memctl/models/use-multilingual-v3"
//! ```
//!
//! Never a store's `.memctl.toml`: a workspace store's file comes with the
//! repository, and a model is code-like input (a file memctl parses and
//! runs arithmetic over on every prompt) that a stranger should not choose.

use std::io;
use std::path::{Path, PathBuf};

pub use mdembed::Availability;

/// The user's configuration cannot be read for the model setting.
#[derive(Debug, thiserror::Error)]
pub enum SettingError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: {why}", path.display())]
    Invalid { path: PathBuf, why: String },
}

impl SettingError {
    pub fn hint(&self) -> String {
        "write it as [semantic] model = \"/absolute/path/to/the/model\" (see `memctl model status`)"
            .to_string()
    }
}

/// `[semantic] model` of the user's configuration file, if set.
pub fn model_setting() -> Result<Option<PathBuf>, SettingError> {
    let Some(path) = crate::model_source::user_config_path() else {
        return Ok(None);
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => setting_in(&path, &text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(SettingError::Read { path, source }),
    }
}

/// `[semantic] model` in `text`, the file at `path`. Other tables are
/// other settings' to read; an unknown key of `[semantic]` is an error.
fn setting_in(path: &Path, text: &str) -> Result<Option<PathBuf>, SettingError> {
    let invalid = |why: String| SettingError::Invalid {
        path: path.to_path_buf(),
        why,
    };
    let table: toml::Table = text.parse().map_err(|e| invalid(format!("{e}")))?;
    let Some(semantic) = table.get("semantic") else {
        return Ok(None);
    };
    let semantic = semantic
        .as_table()
        .ok_or_else(|| invalid("`semantic` must be a table: [semantic]".into()))?;
    if let Some(key) = semantic.keys().find(|k| k.as_str() != "model") {
        return Err(invalid(format!(
            "unknown key `{key}` in [semantic]; the one key is `model`"
        )));
    }
    let Some(model) = semantic.get("model") else {
        return Ok(None);
    };
    let model = model
        .as_str()
        .ok_or_else(|| invalid("[semantic] model must be a string (a path)".into()))?;
    let model_path = PathBuf::from(model);
    if model.contains('\0') || !model_path.is_absolute() {
        return Err(invalid(format!(
            "[semantic] model must be an absolute path, not {model:?}"
        )));
    }
    Ok(Some(model_path))
}

/// The model in force: the variable's, else the setting's; loaded.
pub fn availability() -> Result<Availability, SettingError> {
    Ok(mdembed::open_configured(model_setting()?.as_deref()))
}

/// The model, when semantic matching is on and usable. When it is on but
/// cannot be used, why, in `warnings` (a caller never fails for it: it
/// searches words alone and says so once).
pub fn in_force(warnings: &mut Vec<String>) -> Option<Box<mdembed::Model>> {
    match availability() {
        Ok(Availability::Usable(model)) => Some(model),
        Ok(broken @ Availability::Broken { .. }) => {
            warnings.extend(broken.explain());
            None
        }
        Ok(Availability::NotConfigured) => None,
        Err(e) => {
            warnings.push(off_because(e));
            None
        }
    }
}

/// What to say when the model cannot be used for this search, or failed
/// in it: the answer is by words alone.
pub fn off_because(why: impl std::fmt::Display) -> String {
    format!("semantic matching is off: {why}; searching words only")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_setting_is_read_from_its_table_and_other_tables_are_left_alone() {
        let file = Path::new("/cfg/config.toml");
        let read = |text: &str| setting_in(file, text);
        assert_eq!(read("").unwrap(), None);
        assert_eq!(read("[model]\ncommand = [\"llm\"]\n").unwrap(), None);
        assert_eq!(
            read("[semantic]\nmodel = \"/models/use\"\n").unwrap(),
            Some(PathBuf::from("/models/use"))
        );
    }

    #[test]
    fn a_bad_setting_is_an_error_naming_the_file_and_the_key() {
        let file = Path::new("/cfg/config.toml");
        for (text, says) in [
            ("[semantic]\nmodle = \"/m\"\n", "modle"),
            ("[semantic]\nmodel = \"relative/m\"\n", "absolute"),
            ("[semantic]\nmodel = 3\n", "string"),
            ("semantic = 1\n", "table"),
            ("[semantic\n", "config.toml"),
        ] {
            let message = setting_in(file, text).unwrap_err().to_string();
            assert!(message.contains("/cfg/config.toml"), "{message}");
            assert!(message.contains(says), "{text:?}: {message}");
        }
    }
}
