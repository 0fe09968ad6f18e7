//! The one place memctl reads its process environment: every variable it
//! knows, the current folder and the system's temporary folder, taken once
//! at start into an [`Environment`] that the rest of memctl reads as a
//! value (tests build one by hand). An empty variable counts as unset, as
//! the XDG Base Directory spec says of its own: the rule is written here,
//! once.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

/// Every variable memctl reads (SPEC §10; docs/agents.md), with what it sets.
pub const VARIABLES: &[&str] = &[
    // Folders (SPEC §1, §4; the XDG Base Directory rules).
    "MEMCTL_STORE",
    "MEMCTL_GLOBAL_DIR",
    "MEMCTL_CACHE_DIR",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "HOME",
    // Programs and models.
    "MEMCTL_LLM_CMD",
    "MEMCTL_EMBED_MODEL",
    "VISUAL",
    "EDITOR",
    // Switches.
    "MEMCTL_AUTO_WATCH",
    "MEMCTL_AUTO_DREAM",
    // Numbers (`super::number`).
    "MEMCTL_LOCK_TIMEOUT_MS",
    "MEMCTL_LLM_TIMEOUT_SECS",
    "MEMCTL_LLM_MAX_INPUT_CHARS",
    "MEMCTL_DREAM_MIN_HOURS",
    "MEMCTL_DREAM_SCAN_MINUTES",
    "MEMCTL_DREAM_MIN_WRITES",
    // Output.
    "COLUMNS",
    // The model's download: the system's trusted certificates (OpenSSL's name).
    "SSL_CERT_FILE",
];

/// The environment as memctl saw it at start.
#[derive(Clone, Debug)]
pub struct Environment {
    /// The variables of [`VARIABLES`] that are set and not empty.
    vars: BTreeMap<&'static str, OsString>,
    /// The process's current folder.
    pub cwd: Result<PathBuf, Arc<io::Error>>,
    /// The system's temporary folder (`TMPDIR`, else `/tmp`).
    pub temp_dir: PathBuf,
}

impl Environment {
    /// This process's environment.
    pub fn capture() -> Environment {
        let vars = VARIABLES
            .iter()
            .filter_map(|&name| Some((name, std::env::var_os(name)?)));
        Environment {
            cwd: std::env::current_dir().map_err(Arc::new),
            temp_dir: std::env::temp_dir(),
            ..Environment::from_vars(vars)
        }
    }

    /// An environment holding `vars` (others unset), in the folder `/`:
    /// for tests, and for callers that set every variable themselves.
    pub fn from_vars<K, V>(vars: impl IntoIterator<Item = (K, V)>) -> Environment
    where
        K: AsRef<str>,
        V: Into<OsString>,
    {
        let vars = vars
            .into_iter()
            .filter_map(|(name, value)| {
                let name = VARIABLES.iter().find(|&&known| known == name.as_ref())?;
                Some((*name, value.into()))
            })
            .filter(|(_, value)| !value.is_empty())
            .collect();
        Environment {
            vars,
            cwd: Ok(PathBuf::from("/")),
            temp_dir: PathBuf::from("/tmp"),
        }
    }

    /// The same environment in the folder `cwd`.
    pub fn in_folder(mut self, cwd: PathBuf) -> Environment {
        self.cwd = Ok(cwd);
        self
    }

    /// The value of `name`; `None` when it is unset or empty.
    pub fn get(&self, name: &str) -> Option<&OsStr> {
        self.vars.get(name).map(OsString::as_os_str)
    }

    /// The value of `name` as a path; `None` when it is unset or empty.
    pub fn path(&self, name: &str) -> Option<PathBuf> {
        self.get(name).map(PathBuf::from)
    }

    /// The value of `name` as text, when it is set, valid UTF-8 and not
    /// only spaces (a command line, an editor).
    pub fn words(&self, name: &str) -> Option<&str> {
        self.get(name)?.to_str().filter(|v| !v.trim().is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_counts_as_unset_and_unknown_names_are_not_kept() {
        let env = Environment::from_vars([
            ("MEMCTL_STORE", ""),
            ("HOME", "/home/me"),
            ("MEMCTL_LLM_CMD", "  "),
            ("NOT_OURS", "x"),
        ]);
        assert_eq!(env.get("MEMCTL_STORE"), None);
        assert_eq!(env.path("HOME"), Some(PathBuf::from("/home/me")));
        assert_eq!(env.get("MEMCTL_LLM_CMD"), Some(OsStr::new("  ")));
        assert_eq!(env.words("MEMCTL_LLM_CMD"), None);
        assert_eq!(env.get("NOT_OURS"), None);
    }
}
