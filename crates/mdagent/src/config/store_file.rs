//! A store's own settings file, `.memctl.toml` (SPEC §11), read in one
//! place: `[git] commit` (docs/GIT.md) and `[hooks]`, what a session's hook
//! may start in the background (docs/agents.md).
//!
//! A workspace store's file is committed and shared by everyone who clones
//! the repository, so nothing in it may make memctl run a program of its
//! choosing: `[hooks]` only turns memctl's own jobs off (see
//! [`crate::lifecycle::autostart`]), and `[model]` or `[extract]` (the
//! user's own file's tables) are named in a warning and ignored. Being a
//! clone's, the file is read through `mdstore::untrusted`: never through a
//! symbolic link, only a regular file, at most [`MAX_BYTES`].

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use super::{ConfigError, Part};

/// The settings file's name, in the store's folder.
pub const SETTINGS_FILE: &str = ".memctl.toml";

/// The most of a settings file memctl reads; a longer one is refused.
pub const MAX_BYTES: u64 = 64 * 1024;

/// The tables of the user's own file that a store's file may not hold.
pub const USER_ONLY_TABLES: [&str; 2] = ["model", "extract"];

/// Everything `.memctl.toml` may say; an unknown key is an error naming it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    #[serde(default)]
    pub git: GitSettings,
    #[serde(default)]
    pub hooks: HookSettings,
    /// `[model]` and `[extract]` belong to the user's own configuration
    /// (`super::user_file`): in a store's file they are read only to be
    /// ignored, with the warning [`StoreFile::user_only_tables`] allows.
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

/// A store's settings file as read: its TOML, or why it cannot be used.
#[derive(Debug)]
pub struct StoreFile {
    pub path: PathBuf,
    /// `None` when there is no file.
    table: Result<Option<toml::Table>, ConfigError>,
}

/// The settings of the store at `store_root` (the defaults without a file).
pub fn load(store_root: &Path) -> Result<Settings, ConfigError> {
    read(store_root).settings()
}

/// The settings file of the store at `store_root`, read once.
pub fn read(store_root: &Path) -> StoreFile {
    let path = store_root.join(SETTINGS_FILE);
    let table = match read_untrusted(&path) {
        Ok(None) => Ok(None),
        Ok(Some(text)) => text
            .parse::<toml::Table>()
            .map(Some)
            .map_err(|e| invalid(&path, e.to_string())),
        Err(source) => Err(ConfigError::ReadFile {
            path: path.clone(),
            part: Part::StoreFile,
            source: Arc::new(source),
        }),
    };
    StoreFile { path, table }
}

impl StoreFile {
    /// The settings the file holds; an unknown key or a value of the wrong
    /// type is an error naming the file and the key.
    pub fn settings(&self) -> Result<Settings, ConfigError> {
        match &self.table {
            Ok(None) => Ok(Settings::default()),
            Ok(Some(table)) => {
                Settings::deserialize(table.clone()).map_err(|e| invalid(&self.path, e.to_string()))
            }
            Err(e) => Err(e.clone()),
        }
    }

    /// The tables of [`USER_ONLY_TABLES`] the file holds (ignored), even
    /// when the rest of it is not valid; none when it cannot be read as TOML
    /// (its readers report that).
    pub fn user_only_tables(&self) -> Vec<&'static str> {
        let Ok(Some(table)) = &self.table else {
            return Vec::new();
        };
        USER_ONLY_TABLES
            .into_iter()
            .filter(|key| table.contains_key(*key))
            .collect()
    }
}

fn invalid(path: &Path, why: String) -> ConfigError {
    ConfigError::Invalid {
        path: path.to_path_buf(),
        part: Part::StoreFile,
        why,
    }
}

/// The text of a file a clone controls: `Ok(None)` when there is none.
/// It is read through `mdstore::untrusted` (never through a symbolic link,
/// never a pipe, only a regular file of at most [`MAX_BYTES`]); anything
/// else is an error that says what the file is.
fn read_untrusted(path: &Path) -> io::Result<Option<String>> {
    let bytes = match mdstore::untrusted::read(path, MAX_BYTES) {
        Ok(bytes) => bytes,
        Err(mdstore::untrusted::ReadError::Refused(why)) => {
            return Err(io::Error::other(why.to_string()));
        }
        Err(mdstore::untrusted::ReadError::Io(e)) => return Err(e),
    };
    bytes
        .map(String::from_utf8)
        .transpose()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
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

    #[test]
    fn the_user_s_own_tables_are_named_even_in_a_file_that_is_otherwise_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(SETTINGS_FILE);
        std::fs::write(&file, "[git]\ncomit = true\n[model]\ncommand = [\"sh\"]\n").unwrap();
        let read = read(dir.path());
        assert!(read.settings().is_err());
        assert_eq!(read.user_only_tables(), vec!["model"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_a_pipe_a_folder_and_a_huge_file_are_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.toml");
        std::fs::write(&secret, "[git]\ncommit = true\n").unwrap();
        let file = dir.path().join(SETTINGS_FILE);
        std::os::unix::fs::symlink(&secret, &file).unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("a symbolic link"), "{err}");
        assert!(err.contains(SETTINGS_FILE), "{err}");

        std::fs::remove_file(&file).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(&file)
            .status()
            .unwrap();
        assert!(made.success());
        // A pipe with no writer would block a plain open: this one returns.
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("a pipe"), "{err}");

        std::fs::remove_file(&file).unwrap();
        std::fs::create_dir(&file).unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("a folder"), "{err}");

        std::fs::remove_dir(&file).unwrap();
        let huge = format!("# {}\n", "x".repeat(MAX_BYTES as usize));
        std::fs::write(&file, huge).unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("more than memctl reads"), "{err}");
    }
}
