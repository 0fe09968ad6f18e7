//! The user's own configuration file, `config.toml` in the config folder
//! ([`super::folders::Folders::user_config`]), read in one place:
//!
//! ```toml
//! [model]
//! command = ["llm", "-m", "gpt-4o-mini", "-o", "json_object", "1"]
//! [extract]
//! auto_accept = false
//! [semantic]
//! model = "/home/me/.local/share/memctl/models/use-multilingual-v3"
//! ```
//!
//! It is the user's, never a repository's: a model command and a model are
//! read only here (and from the user's variables), never from a store's
//! `.memctl.toml` ([`super::store_file`]). The file is read once; what is
//! wrong with a table is an error for the settings that table holds, so a
//! bad `[semantic]` does not stop extraction, nor a bad `[model]` a search.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use super::{ConfigError, Part};

/// `[model]` and `[extract]` of the user's file; an unknown key (of these
/// tables, or a table memctl does not know) is an error naming it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    #[serde(default)]
    pub model: ModelSettings,
    #[serde(default)]
    pub extract: ExtractSettings,
    /// `[semantic]`, checked on its own ([`UserFile::semantic_model`]).
    #[serde(default)]
    pub semantic: toml::Table,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSettings {
    /// The program and its arguments, one word each: no shell, no splitting.
    pub command: Option<Vec<String>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractSettings {
    /// Candidates found after a session are saved at once (through every
    /// guard of `remember`) instead of waiting for `memctl review`.
    #[serde(default)]
    pub auto_accept: bool,
}

/// The user's file as read at start.
#[derive(Clone, Debug)]
pub struct UserFile {
    /// The file, when there is one.
    pub path: Option<PathBuf>,
    model: Result<UserConfig, ConfigError>,
    semantic: Result<ModelSetting, ConfigError>,
}

/// `[semantic] model` of the user's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSetting {
    /// Not set: the model installed at the default place, if any.
    Unset,
    /// `model = "off"`: no encoder, even one installed.
    Off,
    /// `model = "/abs/path"`.
    At(PathBuf),
}

impl Default for UserFile {
    /// No file: every setting at its default.
    fn default() -> Self {
        UserFile {
            path: None,
            model: Ok(UserConfig::default()),
            semantic: Ok(ModelSetting::Unset),
        }
    }
}

impl UserFile {
    /// Reads the file at `path` (the defaults when there is no path or no file).
    pub fn read(path: Option<&Path>) -> UserFile {
        let Some(path) = path else {
            return UserFile::default();
        };
        match std::fs::read_to_string(path) {
            Ok(text) => UserFile::parse(path, &text),
            Err(e) if e.kind() == io::ErrorKind::NotFound => UserFile::default(),
            Err(source) => {
                let source = Arc::new(source);
                let error = |part| ConfigError::ReadFile {
                    path: path.to_path_buf(),
                    part,
                    source: source.clone(),
                };
                UserFile {
                    path: Some(path.to_path_buf()),
                    model: Err(error(Part::UserModel)),
                    semantic: Err(error(Part::UserSemantic)),
                }
            }
        }
    }

    /// The file at `path` holding `text`.
    pub fn parse(path: &Path, text: &str) -> UserFile {
        UserFile {
            path: Some(path.to_path_buf()),
            model: model_part(path, text),
            semantic: semantic_part(path, text),
        }
    }

    /// `[model]` and `[extract]`.
    pub fn model(&self) -> Result<&UserConfig, ConfigError> {
        self.model.as_ref().map_err(Clone::clone)
    }

    /// `[semantic] model`: unset, off, or an absolute path.
    pub fn semantic_model(&self) -> Result<&ModelSetting, ConfigError> {
        self.semantic.as_ref().map_err(Clone::clone)
    }
}

/// `[model]` and `[extract]` of `text`, read strictly.
fn model_part(path: &Path, text: &str) -> Result<UserConfig, ConfigError> {
    let invalid = |why: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        part: Part::UserModel,
        why,
    };
    let config: UserConfig = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
    if let Some(words) = &config.model.command {
        if words.first().is_none_or(|w| w.trim().is_empty()) {
            return Err(invalid(
                "[model] command is empty: name a program first".into(),
            ));
        }
        if words.iter().any(|w| w.contains('\0')) {
            return Err(invalid("[model] command holds a NUL byte".into()));
        }
    }
    Ok(config)
}

/// `[semantic] model` in `text`. Other tables are other settings' to read;
/// an unknown key of `[semantic]` is an error.
fn semantic_part(path: &Path, text: &str) -> Result<ModelSetting, ConfigError> {
    let invalid = |why: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        part: Part::UserSemantic,
        why,
    };
    let table: toml::Table = text.parse().map_err(|e| invalid(format!("{e}")))?;
    let Some(semantic) = table.get("semantic") else {
        return Ok(ModelSetting::Unset);
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
        return Ok(ModelSetting::Unset);
    };
    let model = model
        .as_str()
        .ok_or_else(|| invalid("[semantic] model must be a string (a path, or \"off\")".into()))?;
    if model == "off" {
        return Ok(ModelSetting::Off);
    }
    let model_path = PathBuf::from(model);
    if model.contains('\0') || !model_path.is_absolute() {
        return Err(invalid(format!(
            "[semantic] model must be an absolute path or \"off\", not {model:?}"
        )));
    }
    Ok(ModelSetting::At(model_path))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "/cfg/config.toml";

    #[test]
    fn the_setting_is_read_from_its_table_and_other_tables_are_left_alone() {
        let read = |text: &str| {
            UserFile::parse(Path::new(FILE), text)
                .semantic_model()
                .cloned()
        };
        assert_eq!(read("").unwrap(), ModelSetting::Unset);
        assert_eq!(
            read("[model]\ncommand = [\"llm\"]\n").unwrap(),
            ModelSetting::Unset
        );
        assert_eq!(
            read("[semantic]\nmodel = \"/models/use\"\n").unwrap(),
            ModelSetting::At(PathBuf::from("/models/use"))
        );
        assert_eq!(
            read("[semantic]\nmodel = \"off\"\n").unwrap(),
            ModelSetting::Off
        );
    }

    #[test]
    fn a_bad_setting_is_an_error_naming_the_file_and_the_key() {
        for (text, says) in [
            ("[semantic]\nmodle = \"/m\"\n", "modle"),
            ("[semantic]\nmodel = \"relative/m\"\n", "absolute"),
            ("[semantic]\nmodel = 3\n", "string"),
            ("semantic = 1\n", "table"),
            ("[semantic\n", "config.toml"),
        ] {
            let file = UserFile::parse(Path::new(FILE), text);
            let message = file.semantic_model().unwrap_err().to_string();
            assert!(message.contains("/cfg/config.toml"), "{message}");
            assert!(message.contains(says), "{text:?}: {message}");
        }
    }

    #[test]
    fn the_user_file_is_read_strictly() {
        let config: UserConfig =
            toml::from_str("[model]\ncommand = [\"llm\", \"-o\", \"json_object\", \"1\"]\n")
                .unwrap();
        let words = config.model.command.unwrap();
        assert_eq!(shell_words::join(&words), "llm -o json_object 1");
        assert!(!config.extract.auto_accept);
        let err = toml::from_str::<UserConfig>("[model]\ncmd = \"x\"\n").unwrap_err();
        assert!(err.to_string().contains("cmd"), "{err}");
        let err = toml::from_str::<UserConfig>("[model]\ncommand = \"sh -c x\"\n").unwrap_err();
        assert!(err.to_string().contains("command"), "{err}");
    }

    #[test]
    fn a_bad_table_stops_only_the_settings_it_holds() {
        let file = UserFile::parse(
            Path::new(FILE),
            "[model]\ncommand = []\n[semantic]\nmodel = \"/m\"\n",
        );
        let err = file.model().unwrap_err().to_string();
        assert_eq!(
            err,
            "/cfg/config.toml: [model] command is empty: name a program first"
        );
        assert_eq!(
            file.semantic_model().unwrap(),
            &ModelSetting::At(PathBuf::from("/m"))
        );
        let file = UserFile::parse(
            Path::new(FILE),
            "[semantic]\nmodle = 1\n[extract]\nauto_accept = true\n",
        );
        assert!(file.semantic_model().is_err());
        assert!(file.model().unwrap().extract.auto_accept);
    }
}
