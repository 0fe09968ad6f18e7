//! Where the model command comes from (issue 17, item 3): the user, never
//! a repository. A workspace store's `.memctl.toml` is committed and shared
//! by everyone who clones the repository, so a command named there would
//! run on a stranger's machine at the next session's end (git's
//! `core.fsmonitor` lesson). The command is read, first found first, from
//! `--llm-cmd` (typed by the user), `MEMCTL_LLM_CMD`, or the user's own
//! configuration file, `$XDG_CONFIG_HOME/memctl/config.toml` (else
//! `~/.config/memctl/config.toml`):
//!
//! ```toml
//! [model]
//! command = ["llm", "-m", "gpt-4o-mini", "-o", "json_object", "1"]
//! [extract]
//! auto_accept = false
//! ```
//!
//! The global store's `.memctl.toml` is not read for it either: people keep
//! the global store in a repository they sync, so it is shared too.
//! [`workspace_warnings`] names every key of a store's settings file that
//! would choose a command or accept candidates, which is ignored.

use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The variable naming the model command (a command line, split like a
/// shell's words, run without a shell).
pub const ENV_VAR: &str = "MEMCTL_LLM_CMD";

/// The user's configuration file, inside the config folder.
const CONFIG_FILE: &str = "memctl/config.toml";

/// The tables of the user's file that a store's `.memctl.toml` may not hold.
const USER_ONLY_TABLES: [&str; 2] = ["model", "extract"];

/// The user's own configuration (`config.toml`); an unknown key is an error.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    #[serde(default)]
    pub model: ModelSettings,
    #[serde(default)]
    pub extract: ExtractSettings,
    /// `[semantic]`, read and checked by [`crate::semantic`].
    #[serde(default)]
    pub semantic: toml::Table,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSettings {
    /// The program and its arguments, one word each: no shell, no splitting.
    pub command: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractSettings {
    /// Candidates found after a session are saved at once (through every
    /// guard of `remember`) instead of waiting for `memctl review`.
    #[serde(default)]
    pub auto_accept: bool,
}

/// Where the command in use came from, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Argument,
    Env,
    UserConfig(PathBuf),
}

impl Origin {
    pub fn describe(&self) -> String {
        match self {
            Origin::Argument => "--llm-cmd".to_string(),
            Origin::Env => ENV_VAR.to_string(),
            Origin::UserConfig(path) => format!("[model] command in {}", path.display()),
        }
    }
}

/// The model command to run: a command line for [`crate::model_cmd::run`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelCommand {
    pub line: String,
    pub origin: Origin,
}

/// The user's configuration file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: {source}", path.display())]
    Invalid {
        path: PathBuf,
        #[source]
        source: toml::de::Error,
    },
    #[error("{}: [model] command {why}", path.display())]
    BadCommand { path: PathBuf, why: &'static str },
}

impl ConfigError {
    pub fn kind(&self) -> crate::Kind {
        match self {
            ConfigError::Read { .. } => crate::Kind::Internal,
            ConfigError::Invalid { .. } | ConfigError::BadCommand { .. } => crate::Kind::BadInput,
        }
    }

    pub fn hint(&self) -> Option<String> {
        Some(
            "write it as [model] command = [\"program\", \"argument\", …] (one word each), \
             [extract] auto_accept = true|false"
                .to_string(),
        )
    }
}

/// The user's configuration file: `$XDG_CONFIG_HOME/memctl/config.toml`,
/// else `~/.config/memctl/config.toml` (empty variables count as unset).
pub fn user_config_path() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("XDG_CONFIG_HOME") {
        return Some(PathBuf::from(dir).join(CONFIG_FILE));
    }
    var("HOME").map(|home| PathBuf::from(home).join(".config").join(CONFIG_FILE))
}

/// The user's configuration (the defaults without a file), with its path.
pub fn load_user_config() -> Result<(UserConfig, Option<PathBuf>), ConfigError> {
    let Some(path) = user_config_path() else {
        return Ok((UserConfig::default(), None));
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((UserConfig::default(), None)),
        Err(source) => return Err(ConfigError::Read { path, source }),
    };
    let config: UserConfig = toml::from_str(&text).map_err(|source| ConfigError::Invalid {
        path: path.clone(),
        source,
    })?;
    if let Some(words) = &config.model.command {
        let why = if words.first().is_none_or(|w| w.trim().is_empty()) {
            Some("is empty: name a program first")
        } else if words.iter().any(|w| w.contains('\0')) {
            Some("holds a NUL byte")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(ConfigError::BadCommand { path, why });
        }
    }
    Ok((config, Some(path)))
}

/// The model command: `argument` (the user's `--llm-cmd`), else
/// `MEMCTL_LLM_CMD`, else `[model] command` of the user's file; `None` when
/// none is set. Nothing in any store is read.
pub fn model_command(argument: Option<&str>) -> Result<Option<ModelCommand>, ConfigError> {
    if let Some(line) = argument {
        return Ok(Some(ModelCommand {
            line: line.to_string(),
            origin: Origin::Argument,
        }));
    }
    if let Some(line) = std::env::var(ENV_VAR).ok().filter(|v| !v.trim().is_empty()) {
        return Ok(Some(ModelCommand {
            line,
            origin: Origin::Env,
        }));
    }
    let (config, path) = load_user_config()?;
    Ok(config
        .model
        .command
        .zip(path)
        .map(|(words, path)| ModelCommand {
            line: shell_words::join(&words),
            origin: Origin::UserConfig(path),
        }))
}

/// One warning for each table of `store_root`'s `.memctl.toml` that only
/// the user's own file may hold (`[model]`, `[extract]`): a store's file is
/// shared with everyone who clones it, so memctl ignores them. A file that
/// cannot be read as TOML is its readers' to report, not this function's.
pub fn workspace_warnings(store_root: &Path) -> Vec<String> {
    let path = store_root.join(".memctl.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    let Ok(table) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let shown = mdstore::escape::escape_controls(&path.display().to_string()).into_owned();
    USER_ONLY_TABLES
        .iter()
        .filter(|key| table.contains_key(**key))
        .map(|key| {
            format!(
                "{shown}: [{key}] is ignored: a store's settings are shared with everyone who \
                 clones it, so memctl never runs a command or accepts candidates they name; \
                 set it in your own {} or {ENV_VAR}",
                user_config_path().map_or("~/.config/memctl/config.toml".to_string(), |p| p
                    .display()
                    .to_string())
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_settings_file_naming_a_command_is_warned_about_and_never_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(".memctl.toml"),
            "[git]\ncommit = true\n[model]\ncommand = [\"sh\", \"-c\", \"touch marker\"]\n[extract]\nauto_accept = true\n",
        )
        .unwrap();
        let warnings = workspace_warnings(dir.path());
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].contains(".memctl.toml: [model] is ignored"),
            "{warnings:?}"
        );
        assert!(warnings[1].contains("[extract] is ignored"), "{warnings:?}");
        std::fs::write(dir.path().join(".memctl.toml"), "[git]\ncommit = true\n").unwrap();
        assert!(workspace_warnings(dir.path()).is_empty());
    }

    #[test]
    fn origin_names_where_the_command_came_from() {
        assert_eq!(Origin::Env.describe(), "MEMCTL_LLM_CMD");
        assert!(
            Origin::UserConfig(PathBuf::from("/c/memctl/config.toml"))
                .describe()
                .contains("/c/memctl/config.toml")
        );
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
}
