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
    let table = match mdstore::untrusted::read(&path, MAX_BYTES) {
        Ok(None) => Ok(None),
        Ok(Some(bytes)) => match String::from_utf8(bytes) {
            Ok(text) => text
                .parse::<toml::Table>()
                .map(Some)
                .map_err(|e| invalid(&path, syntax_error(&text, &e))),
            Err(_) => Err(invalid(&path, "not UTF-8 text".to_string())),
        },
        Err(mdstore::untrusted::ReadError::Refused(why)) => Err(ConfigError::Refused {
            path: path.clone(),
            why,
        }),
        Err(mdstore::untrusted::ReadError::Io(source)) => Err(ConfigError::ReadFile {
            path: path.clone(),
            part: Part::StoreFile,
            source: Arc::new(source),
        }),
    };
    StoreFile { path, table }
}

/// A TOML syntax error as where and what, never the file's text: the
/// parser's own message quotes the line it stopped at, and a settings file
/// may hold a secret (one committed as a link to `~/.netrc` used to be
/// read, and printed on every write and into MCP clients' logs).
fn syntax_error(text: &str, error: &toml::de::Error) -> String {
    let what = without_quoted(&error.message().replace('\n', "; "), '`', '`');
    match error.span() {
        Some(span) => {
            let before = &text.as_bytes()[..span.start.min(text.len())];
            let line = before.iter().filter(|b| **b == b'\n').count() + 1;
            let line_start = before
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&before[line_start..])
                .chars()
                .count()
                + 1;
            format!("not valid TOML at line {line}, column {column}: {what}")
        }
        None => format!("not valid TOML: {what}"),
    }
}

/// Where `close` ends a quoted segment in `after`, skipping one escaped by a
/// backslash (serde writes a string holding `"` as `\"`).
fn closing(after: &str, close: char) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in after.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            _ if c == close => return Some(at),
            _ => {}
        }
    }
    None
}

/// `message` with every `open`…`close` segment that holds a letter or
/// digit (a key, a value: the file's own words) cut out; punctuation the
/// parser expected (`=`, `]`) stays.
fn without_quoted(message: &str, open: char, close: char) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(start) = rest.find(open) {
        let after = &rest[start + open.len_utf8()..];
        let Some(len) = closing(after, close) else {
            break;
        };
        let inner = &after[..len];
        out += &rest[..start];
        if inner.chars().any(char::is_alphanumeric) {
            out += "…";
        } else {
            out.push(open);
            out += inner;
            out.push(close);
        }
        rest = &after[len + close.len_utf8()..];
    }
    out + rest
}

/// A value error from the settings' types, with its key named (it says
/// what to fix) and no value quoted: serde quotes a wrong string in `"…"` and
/// a wrong number, boolean or character in backticks, and either may be a
/// secret. Only an unknown key's message keeps its backticks: they name keys.
/// The error comes from a parsed table, so its text holds no line of the
/// file; the key path is its `in `…`` line.
fn settings_error(error: &toml::de::Error) -> String {
    let mut message = String::new();
    let mut key = None;
    for line in error.to_string().lines().map(str::trim) {
        match line
            .strip_prefix("in `")
            .and_then(|rest| rest.strip_suffix('`'))
        {
            Some(path) => key = Some(path.to_string()),
            None if line.is_empty() => {}
            None => {
                if !message.is_empty() {
                    message += "; ";
                }
                message += line;
            }
        }
    }
    let mut message = without_quoted(&message, '"', '"');
    if !message.starts_with("unknown field") {
        message = without_quoted(&message, '`', '`');
    }
    match key {
        Some(key) => format!("{message} (key `{key}`)"),
        None => message,
    }
}

impl StoreFile {
    /// The settings the file holds; an unknown key or a value of the wrong
    /// type is an error naming the file and the key.
    pub fn settings(&self) -> Result<Settings, ConfigError> {
        match &self.table {
            Ok(None) => Ok(Settings::default()),
            Ok(Some(table)) => Settings::deserialize(table.clone())
                .map_err(|e| invalid(&self.path, settings_error(&e))),
            Err(e) => Err(e.clone()),
        }
    }

    /// What is wrong with the file, without its path (for `check`, which
    /// names it): `None` when there is none or it can be used.
    pub fn problem(&self) -> Option<String> {
        match self.settings() {
            Ok(_) => None,
            Err(ConfigError::Invalid { why, .. }) => Some(why),
            Err(ConfigError::Refused { why, .. }) => Some(format!("not read: {why}")),
            Err(ConfigError::ReadFile { source, .. }) => Some(format!("cannot be read: {source}")),
            Err(other) => Some(other.to_string()),
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
    fn a_settings_error_quoted_the_file_s_text_it_now_says_where_and_names_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(SETTINGS_FILE);
        std::fs::write(&file, "[git]\n\npassword = hunter2\n").unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("not valid TOML at line 3, column 12"), "{err}");
        assert!(
            !err.contains("hunter2") && !err.contains("password"),
            "{err}"
        );
        std::fs::write(&file, "[hooks]\nwatch = \"hunter2\"\n").unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains(SETTINGS_FILE) && err.contains("invalid type"),
            "{err}"
        );
        assert!(!err.contains("hunter2"), "{err}");
        assert!(err.contains("hooks.watch"), "the key is named: {err}");
        std::fs::write(&file, "[git]\ncommit = 731942\n").unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("git.commit") && !err.contains("731942"),
            "{err}"
        );
        std::fs::write(&file, "[hooks]\nwatch = 'pin\"sec\"ret'\n").unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        assert!(!err.contains("sec") && !err.contains("ret"), "{err}");
        assert_eq!(
            without_quoted("expected `=`, found `hunter2`", '`', '`'),
            "expected `=`, found …"
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
