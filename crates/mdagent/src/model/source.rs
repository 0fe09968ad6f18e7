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

use std::path::{Path, PathBuf};

use crate::Config;
use crate::config::{ConfigError, LLM_CMD_VAR, store_file};

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
            Origin::Env => LLM_CMD_VAR.to_string(),
            Origin::UserConfig(path) => format!("[model] command in {}", path.display()),
        }
    }
}

/// The model command to run: a command line for [`crate::model::cmd::run`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelCommand {
    pub line: String,
    pub origin: Origin,
}

/// The model command: `argument` (the user's `--llm-cmd`), else
/// `MEMCTL_LLM_CMD`, else `[model] command` of the user's file; `None` when
/// none is set. Nothing in any store is read.
pub fn model_command(
    config: &Config,
    argument: Option<&str>,
) -> Result<Option<ModelCommand>, ConfigError> {
    if let Some(line) = argument {
        return Ok(Some(ModelCommand {
            line: line.to_string(),
            origin: Origin::Argument,
        }));
    }
    if let Some(line) = config.model_command_var() {
        return Ok(Some(ModelCommand {
            line: line.to_string(),
            origin: Origin::Env,
        }));
    }
    let file = config.user_file();
    Ok(file
        .model()?
        .model
        .command
        .as_ref()
        .zip(file.path.as_ref())
        .map(|(words, path)| ModelCommand {
            line: shell_words::join(words),
            origin: Origin::UserConfig(path.clone()),
        }))
}

/// One warning for each table of `store_root`'s `.memctl.toml` that only
/// the user's own file may hold (`[model]`, `[extract]`): a store's file is
/// shared with everyone who clones it, so memctl ignores them. A file that
/// cannot be read as TOML is its readers' to report, not this function's.
pub fn workspace_warnings(config: &Config, store_root: &Path) -> Vec<String> {
    let file = store_file::read(store_root);
    let shown = mdstore::escape::escape_controls(&file.path.display().to_string()).into_owned();
    file.user_only_tables()
        .into_iter()
        .map(|key| {
            format!(
                "{shown}: [{key}] is ignored: a store's settings are shared with everyone who \
                 clones it, so memctl never runs a command or accepts candidates they name; \
                 set it in your own {} or {LLM_CMD_VAR}",
                config.user_config_shown()
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
        let config = Config::resolve(
            crate::config::Environment::from_vars([("HOME", "/h")]),
            None,
            false,
        );
        let warnings = workspace_warnings(&config, dir.path());
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].contains(".memctl.toml: [model] is ignored"),
            "{warnings:?}"
        );
        assert!(warnings[1].contains("[extract] is ignored"), "{warnings:?}");
        std::fs::write(dir.path().join(".memctl.toml"), "[git]\ncommit = true\n").unwrap();
        assert!(workspace_warnings(&config, dir.path()).is_empty());
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
}
