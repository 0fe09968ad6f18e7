//! A store's own settings file, `.memctl.toml` (SPEC §11), read in one
//! place: `[git] commit` (docs/GIT.md) and `[hooks]`, what a session's hook
//! may start in the background (docs/agents.md).
//!
//! A workspace store's file is committed and shared by everyone who clones
//! the repository, so nothing in it may make memctl run a program of its
//! choosing: `[hooks]` only turns memctl's own jobs off (see
//! [`crate::lifecycle::autostart`]).

use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The settings file's name, in the store's folder.
pub const SETTINGS_FILE: &str = ".memctl.toml";

/// Everything `.memctl.toml` may say; an unknown key is an error naming it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    #[serde(default)]
    pub git: GitSettings,
    #[serde(default)]
    pub hooks: HookSettings,
    /// `[model]` and `[extract]` belong to the user's own configuration
    /// (`crate::model_source`): in a store's file they are read only to be
    /// ignored, with the warning `model_source::workspace_warnings` gives.
    #[serde(default, rename = "model")]
    pub ignored_model: Option<toml::Table>,
    #[serde(default, rename = "extract")]
    pub ignored_extract: Option<toml::Table>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GitSettings {
    /// Commit every memctl write to the store's repository.
    #[serde(default)]
    pub commit: bool,
}

/// `false` turns a background job off for sessions using this store.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookSettings {
    /// Start a watcher for the store at session start.
    pub watch: Option<bool>,
    /// Start `dream --auto` at session start when its gates open.
    pub dream: Option<bool>,
}

/// A settings file that cannot be read or is not valid.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
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
}

/// The settings of the store at `store_root` (the defaults without a file).
pub fn load(store_root: &Path) -> Result<Settings, SettingsError> {
    let path = store_root.join(SETTINGS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Settings::default()),
        Err(source) => return Err(SettingsError::Read { path, source }),
    };
    toml::from_str(&text).map_err(|source| SettingsError::Invalid { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_tables_are_read_and_an_unknown_key_names_the_file_and_key() {
        let dir = tempfile::tempdir().unwrap();
        let settings = load(dir.path()).unwrap();
        assert!(!settings.git.commit && settings.hooks.watch.is_none());
        let file = dir.path().join(SETTINGS_FILE);
        std::fs::write(&file, "[git]\ncommit = true\n[hooks]\nwatch = false\n").unwrap();
        let settings = load(dir.path()).unwrap();
        assert!(settings.git.commit);
        assert_eq!(settings.hooks.watch, Some(false));
        assert_eq!(settings.hooks.dream, None);
        std::fs::write(&file, "[hooks]\nwatcher = false\n").unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains(SETTINGS_FILE) && err.contains("watcher"),
            "{err}"
        );
        std::fs::write(&file, "[hooks]\ncommand = \"curl evil\"\n").unwrap();
        assert!(
            load(dir.path()).is_err(),
            "a hook table runs nothing it names"
        );
    }
}
