//! memctl's settings, resolved once: a face builds one [`Config`] at start
//! (the hook, again from its event's folder: [`Config::in_folder`]) from
//! what its caller said (`--store`, `--global`), the environment
//! ([`env`], the one place it is read), the XDG folders ([`folders`]) and
//! the user's own `config.toml` ([`user_file`]); every use case then takes
//! its settings from it, and the engine crates (`mdstore`, `mdindex`,
//! `mddream`, `mdembed`) are handed values. A store's `.memctl.toml` is
//! read per store, by [`store_file`]. Whatever cannot be used is one
//! [`ConfigError`], reported by the command that needs the setting (a bad
//! `MEMCTL_LLM_TIMEOUT_SECS` does not stop a `list`).

pub mod env;
pub mod folders;
pub mod number;
pub mod store_file;
pub mod user_file;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use env::Environment;
pub use folders::Folders;
pub use number::Number;
pub use user_file::{ModelSetting, UserFile};

use crate::Kind;

/// The variable naming the model command (a command line, split like a
/// shell's words, run without a shell).
pub const LLM_CMD_VAR: &str = "MEMCTL_LLM_CMD";
/// The variable naming the sentence encoder to use (a path); it wins over
/// `[semantic] model` of the user's file.
pub const EMBED_MODEL_VAR: &str = "MEMCTL_EMBED_MODEL";
/// The variable naming the workspace store folder.
pub const STORE_VAR: &str = "MEMCTL_STORE";
/// The variables that decide the background jobs a hook starts.
pub const AUTO_WATCH_VAR: &str = "MEMCTL_AUTO_WATCH";
pub const AUTO_DREAM_VAR: &str = "MEMCTL_AUTO_DREAM";

/// Every setting a command may use, resolved at start.
#[derive(Clone, Debug)]
pub struct Config {
    /// The workspace store folder, as named by the caller (`--store`).
    pub store: Option<PathBuf>,
    /// Act on the global store instead of the workspace store.
    pub global: bool,
    /// [`Config::store`] is a `.memory` folder memctl found, named to a
    /// job: it is vetted again as found ([`crate::stores::workspace_dir`]).
    store_found: bool,
    env: Environment,
    folders: Folders,
    user_file: UserFile,
    numbers: Numbers,
}

/// The numbers of [`number`], each read once.
#[derive(Clone, Debug)]
struct Numbers {
    lock_timeout_ms: Result<u64, ConfigError>,
    llm_timeout_secs: Result<u64, ConfigError>,
    llm_max_input_chars: Result<u64, ConfigError>,
    dream_min_hours: Result<u64, ConfigError>,
    dream_scan_minutes: Result<u64, ConfigError>,
    dream_min_writes: Result<u64, ConfigError>,
}

/// `dream --auto`'s gates: SPEC §7's defaults, or the environment's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DreamGates {
    pub hours: i64,
    pub writes: usize,
    pub scan_minutes: i64,
}

/// Which file, or which part of the user's file, a setting comes from:
/// what to do about an error depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// `[model]`, `[extract]` (and the tables memctl does not know) of the
    /// user's `config.toml`.
    UserModel,
    /// `[semantic]` of the user's `config.toml`.
    UserSemantic,
    /// A store's `.memctl.toml`.
    StoreFile,
}

/// A setting that cannot be used.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ConfigError {
    /// A numeric variable holds something else; `value` is as it may be
    /// shown (quoted, control characters escaped, cut, a secret hidden).
    #[error(
        "{}={value} is not a whole number of {} from {} to {}",
        number.name, number.unit, number.min, number.max
    )]
    Number { number: Number, value: String },
    /// A switch variable is neither on nor off.
    #[error("{name}={value} is neither on nor off")]
    Switch { name: &'static str, value: String },
    #[error("cannot read {}: {source}", path.display())]
    ReadFile {
        path: PathBuf,
        part: Part,
        #[source]
        source: Arc<io::Error>,
    },
    /// A store's settings file that is not a regular file of at most
    /// `store_file::MAX_BYTES`, and so left unread.
    #[error("{}: not read: {why}", path.display())]
    Refused {
        path: PathBuf,
        why: mdstore::untrusted::Refusal,
    },
    /// A settings file that is not valid TOML or says something memctl
    /// cannot use; `why` names the key.
    #[error("{}: {why}", path.display())]
    Invalid {
        path: PathBuf,
        part: Part,
        why: String,
    },
}

impl ConfigError {
    pub fn kind(&self) -> Kind {
        match self {
            ConfigError::ReadFile { .. } => Kind::Internal,
            _ => Kind::BadInput,
        }
    }

    /// What to do about it.
    pub fn hint(&self) -> Option<String> {
        let part = match self {
            ConfigError::Number { number, .. } => {
                return Some(format!(
                    "set {} to a number from {} to {}, or unset it for the default ({} {})",
                    number.name, number.min, number.max, number.default, number.unit
                ));
            }
            ConfigError::Switch { name, .. } => {
                return Some(format!("set {name} to on or off, or unset it"));
            }
            ConfigError::Refused { .. } => {
                return Some(format!(
                    "a store's {} is read only as a regular file of at most {} KiB, never \
                     through a link: replace it with one, or remove it",
                    store_file::SETTINGS_FILE,
                    store_file::MAX_BYTES / 1024
                ));
            }
            ConfigError::ReadFile { part, .. } | ConfigError::Invalid { part, .. } => part,
        };
        match part {
            Part::UserModel => Some(
                "write it as [model] command = [\"program\", \"argument\", …] (one word each), \
                 [extract] auto_accept = true|false"
                    .to_string(),
            ),
            Part::UserSemantic => Some(
                "write it as [semantic] model = \"/absolute/path/to/the/model\" \
                 (see `memctl model status`)"
                    .to_string(),
            ),
            Part::StoreFile => None,
        }
    }
}

impl Config {
    /// The settings of this process: its environment, `store` (`--store`)
    /// and `global` (`--global`).
    pub fn from_process(store: Option<PathBuf>, global: bool) -> Config {
        Config::resolve(Environment::capture(), store, global)
    }

    /// The settings `env` and the caller's `store` and `global` make.
    pub fn resolve(env: Environment, store: Option<PathBuf>, global: bool) -> Config {
        let folders = Folders::resolve(&env);
        let user_file = UserFile::read(folders.user_config.as_deref());
        let numbers = Numbers {
            lock_timeout_ms: number::LOCK_TIMEOUT_MS.read(&env),
            llm_timeout_secs: number::LLM_TIMEOUT_SECS.read(&env),
            llm_max_input_chars: number::LLM_MAX_INPUT_CHARS.read(&env),
            dream_min_hours: number::DREAM_MIN_HOURS.read(&env),
            dream_scan_minutes: number::DREAM_SCAN_MINUTES.read(&env),
            dream_min_writes: number::DREAM_MIN_WRITES.read(&env),
        };
        Config {
            store,
            global,
            store_found: false,
            env,
            folders,
            user_file,
            numbers,
        }
    }

    /// The same settings seen from the folder `cwd` (a hook event's `cwd`,
    /// relative to this process's folder if it is relative), where the
    /// workspace store is looked for when none is named.
    pub fn in_folder(&self, cwd: &Path) -> Config {
        let cwd = match &self.env.cwd {
            Ok(here) => here.join(cwd),
            Err(_) => cwd.to_path_buf(),
        };
        Config {
            env: self.env.clone().in_folder(cwd),
            ..self.clone()
        }
    }

    /// The folder commands start from (where the workspace store is looked for).
    pub fn cwd(&self) -> Result<&Path, Arc<io::Error>> {
        self.env.cwd.as_deref().map_err(Arc::clone)
    }

    /// The same settings, with [`Config::store`] a folder memctl found in a
    /// project rather than one the user named (`--found-store`).
    pub fn found(mut self) -> Config {
        self.store_found = true;
        self
    }

    /// Whether [`Config::store`] names a folder memctl found ([`Config::found`]).
    pub fn store_is_found(&self) -> bool {
        self.store_found && self.store.is_some()
    }

    /// The workspace store folder named by `--store` (or `--found-store`),
    /// else by `MEMCTL_STORE`, with how it was named, for messages.
    pub fn named_store(&self) -> Option<(PathBuf, String)> {
        if let Some(dir) = &self.store {
            let flag = if self.store_found {
                "--found-store"
            } else {
                "--store"
            };
            return Some((dir.clone(), format!("{flag} {}", dir.display())));
        }
        let dir = self.env.path(STORE_VAR)?;
        let named = format!("{STORE_VAR}={}", dir.display());
        Some((dir, named))
    }

    pub fn folders(&self) -> &Folders {
        &self.folders
    }

    /// The cache folder ([`Folders::cache`]).
    pub fn cache_dir(&self) -> &Path {
        &self.folders.cache
    }

    /// The system's temporary folder.
    pub fn temp_dir(&self) -> &Path {
        &self.env.temp_dir
    }

    /// The user's `config.toml`, as read at start.
    pub fn user_file(&self) -> &UserFile {
        &self.user_file
    }

    /// The user's `config.toml` ([`Folders::user_config`]) as it may be
    /// named in a message.
    pub fn user_config_shown(&self) -> String {
        self.folders
            .user_config
            .as_ref()
            .map_or("~/.config/memctl/config.toml".to_string(), |p| {
                p.display().to_string()
            })
    }

    /// How long a writer waits for a store's lock.
    pub fn lock_timeout(&self) -> Result<Duration, ConfigError> {
        self.numbers
            .lock_timeout_ms
            .clone()
            .map(Duration::from_millis)
    }

    /// How long a model command may take to answer.
    pub fn model_timeout(&self) -> Result<Duration, ConfigError> {
        self.numbers
            .llm_timeout_secs
            .clone()
            .map(Duration::from_secs)
    }

    /// The most characters one call to a model command may be sent.
    pub fn model_max_input_chars(&self) -> Result<usize, ConfigError> {
        let chars = self.numbers.llm_max_input_chars.clone()?;
        Ok(usize::try_from(chars).unwrap_or(usize::MAX))
    }

    /// `dream --auto`'s gates.
    pub fn dream_gates(&self) -> Result<DreamGates, ConfigError> {
        // Every maximum fits an i64 and a usize.
        let signed = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        Ok(DreamGates {
            hours: signed(self.numbers.dream_min_hours.clone()?),
            writes: usize::try_from(self.numbers.dream_min_writes.clone()?).unwrap_or(usize::MAX),
            scan_minutes: signed(self.numbers.dream_scan_minutes.clone()?),
        })
    }

    /// A switch variable ([`AUTO_WATCH_VAR`], [`AUTO_DREAM_VAR`]): `None`
    /// when unset or empty.
    pub fn switch(&self, name: &'static str) -> Result<Option<bool>, ConfigError> {
        let Some(value) = self.env.get(name) else {
            return Ok(None);
        };
        let text = value.to_string_lossy();
        parse_switch(&text)
            .map(Some)
            .ok_or_else(|| ConfigError::Switch {
                name,
                value: format!("{:?}", mdstore::escape::for_message(&text, 40)),
            })
    }

    /// `MEMCTL_LLM_CMD`, unless it is unset or blank.
    pub fn model_command_var(&self) -> Option<&str> {
        self.env.words(LLM_CMD_VAR)
    }

    /// The model path `MEMCTL_EMBED_MODEL` names, if set.
    pub fn embed_model_var(&self) -> Option<PathBuf> {
        self.env.path(EMBED_MODEL_VAR)
    }

    /// The sentence encoder in force: the one [`EMBED_MODEL_VAR`] names,
    /// else `[semantic] model` of the user's file, else the one installed
    /// at [`Config::default_model_dir`] (installing it turns it on, issue 24:
    /// the default is the better judgement); `None` when the file says
    /// `model = "off"` or none is named or installed.
    pub fn embed_model(&self) -> Result<Option<PathBuf>, ConfigError> {
        if let Some(path) = self.embed_model_var() {
            return Ok(Some(path));
        }
        Ok(match self.user_file.semantic_model()? {
            ModelSetting::At(path) => Some(path.clone()),
            ModelSetting::Off => None,
            ModelSetting::Unset => self.installed_model(),
        })
    }

    /// The model at [`Config::default_model_dir`], when one is installed
    /// there (its file is a regular file, not a link).
    pub fn installed_model(&self) -> Option<PathBuf> {
        self.default_model_dir().filter(|dir| {
            std::fs::symlink_metadata(dir.join(mdembed::MODEL_FILE)).is_ok_and(|m| m.is_file())
        })
    }

    /// Whether the user's file turns the encoder off (`[semantic] model =
    /// "off"`): then nothing says it is missing.
    pub fn encoder_turned_off(&self) -> bool {
        self.embed_model_var().is_none()
            && matches!(self.user_file.semantic_model(), Ok(ModelSetting::Off))
    }

    /// Where `memctl model install` puts the model:
    /// [`Folders::models`]`/use-multilingual-v3`.
    pub fn default_model_dir(&self) -> Option<PathBuf> {
        self.folders
            .models
            .as_ref()
            .map(|dir| dir.join(mdembed::MODEL_NAME))
    }

    /// The system's trusted certificates for `memctl model install`'s
    /// download: `SSL_CERT_FILE`, else the first of the usual bundles that
    /// is a file (Debian and Ubuntu, Fedora and RHEL, Alpine and macOS);
    /// `None` leaves the download to the roots built into the binary.
    pub fn ca_bundle(&self) -> Option<PathBuf> {
        const BUNDLES: [&str; 3] = [
            "/etc/ssl/certs/ca-certificates.crt",
            "/etc/pki/tls/certs/ca-bundle.crt",
            "/etc/ssl/cert.pem",
        ];
        self.env
            .path("SSL_CERT_FILE")
            .into_iter()
            .chain(BUNDLES.iter().map(PathBuf::from))
            .find(|path| path.is_file())
    }

    /// The editor the user chose: `$VISUAL`, else `$EDITOR`; `None` when
    /// neither is set (a face then runs `vi`, on a terminal).
    pub fn editor(&self) -> Option<&str> {
        ["VISUAL", "EDITOR"]
            .iter()
            .find_map(|name| self.env.words(name))
    }

    /// `$COLUMNS`, when it is a width.
    pub fn columns(&self) -> Option<usize> {
        self.env
            .get("COLUMNS")?
            .to_str()?
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&c| c > 0)
    }
}

fn parse_switch(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "on" | "true" | "yes" => Some(true),
        "0" | "off" | "false" | "no" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> Config {
        Config::resolve(Environment::from_vars(vars.iter().copied()), None, false)
    }

    #[test]
    fn switches_read_on_and_off_and_nothing_else() {
        for on in ["1", "on", "TRUE", " yes "] {
            assert_eq!(parse_switch(on), Some(true), "{on}");
        }
        for off in ["0", "off", "False", "no"] {
            assert_eq!(parse_switch(off), Some(false), "{off}");
        }
        for other in ["", "2", "offf", "on;rm -rf /", "\u{202e}on"] {
            assert_eq!(parse_switch(other), None, "{other:?}");
        }
        let bad = config(&[(AUTO_WATCH_VAR, "maybe")]).switch(AUTO_WATCH_VAR);
        assert_eq!(
            bad.unwrap_err().to_string(),
            "MEMCTL_AUTO_WATCH=\"maybe\" is neither on nor off"
        );
        assert_eq!(config(&[]).switch(AUTO_DREAM_VAR).unwrap(), None);
    }

    #[test]
    fn a_bad_number_is_an_error_only_for_what_uses_it() {
        let config = config(&[("MEMCTL_LLM_TIMEOUT_SECS", "abc")]);
        assert_eq!(config.lock_timeout().unwrap(), Duration::from_secs(10));
        let err = config.model_timeout().unwrap_err();
        assert_eq!(err.kind(), Kind::BadInput);
        assert_eq!(
            err.to_string(),
            "MEMCTL_LLM_TIMEOUT_SECS=\"abc\" is not a whole number of seconds from 1 to 31536000"
        );
    }

    #[test]
    fn the_variable_wins_over_the_setting_and_empty_is_unset() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("memctl/config.toml");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "[semantic]\nmodel = \"/setting\"\n").unwrap();
        let home = dir.path().to_str().unwrap();
        let setting = config(&[("XDG_CONFIG_HOME", home)]);
        assert_eq!(setting.embed_model().unwrap(), Some("/setting".into()));
        let empty = config(&[("XDG_CONFIG_HOME", home), (EMBED_MODEL_VAR, "")]);
        assert_eq!(empty.embed_model().unwrap(), Some("/setting".into()));
        let var = config(&[("XDG_CONFIG_HOME", home), (EMBED_MODEL_VAR, "/env")]);
        assert_eq!(var.embed_model().unwrap(), Some("/env".into()));
        assert_eq!(config(&[]).embed_model().unwrap(), None);
        std::fs::write(&file, "[semantic]\nmodel = \"off\"\n").unwrap();
        let off = config(&[("XDG_CONFIG_HOME", home)]);
        assert_eq!(off.embed_model().unwrap(), None);
        assert!(off.encoder_turned_off());
    }

    #[test]
    fn the_download_trusts_the_certificates_ssl_cert_file_names_when_it_is_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let bundle = dir.path().join("corporate.pem");
        std::fs::write(&bundle, "-----BEGIN CERTIFICATE-----\n").unwrap();
        let named = config(&[("SSL_CERT_FILE", bundle.to_str().unwrap())]);
        assert_eq!(named.ca_bundle(), Some(bundle));
        // A name that is no file falls back to the system's usual bundles
        // (or none: then the roots built into the binary).
        let missing = config(&[("SSL_CERT_FILE", "/nonexistent/ca.pem")]);
        assert_ne!(missing.ca_bundle(), Some("/nonexistent/ca.pem".into()));
        assert_eq!(missing.ca_bundle(), config(&[]).ca_bundle());
    }

    #[test]
    fn a_model_installed_at_the_default_place_is_on_unless_turned_off() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_str().unwrap();
        let vars = [("XDG_DATA_HOME", home), ("XDG_CONFIG_HOME", home)];
        assert_eq!(config(&vars).embed_model().unwrap(), None);
        let installed = dir.path().join("memctl/models").join(mdembed::MODEL_NAME);
        std::fs::create_dir_all(&installed).unwrap();
        // A link where the file should be is not an installed model.
        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, b"x").unwrap();
        std::os::unix::fs::symlink(&elsewhere, installed.join(mdembed::MODEL_FILE)).unwrap();
        assert_eq!(config(&vars).embed_model().unwrap(), None);
        std::fs::remove_file(installed.join(mdembed::MODEL_FILE)).unwrap();
        std::fs::write(installed.join(mdembed::MODEL_FILE), b"x").unwrap();
        assert_eq!(config(&vars).embed_model().unwrap(), Some(installed));
        std::fs::create_dir_all(dir.path().join("memctl")).unwrap();
        std::fs::write(
            dir.path().join("memctl/config.toml"),
            "[semantic]\nmodel = \"off\"\n",
        )
        .unwrap();
        assert_eq!(config(&vars).embed_model().unwrap(), None);
    }

    #[test]
    fn the_named_store_comes_from_the_caller_then_the_variable() {
        let named = config(&[(STORE_VAR, "/s")]).named_store().unwrap();
        assert_eq!(named, (PathBuf::from("/s"), "MEMCTL_STORE=/s".to_string()));
        let mut by_flag = config(&[(STORE_VAR, "/s")]);
        by_flag.store = Some(PathBuf::from("/f"));
        assert_eq!(by_flag.named_store().unwrap().1, "--store /f");
        assert_eq!(config(&[(STORE_VAR, "")]).named_store(), None);
    }

    #[test]
    fn a_hook_s_folder_is_taken_relative_to_where_memctl_runs() {
        let here = Config::resolve(
            Environment::from_vars([("HOME", "/h")]).in_folder(PathBuf::from("/work")),
            None,
            false,
        );
        assert_eq!(
            here.in_folder(Path::new("repo")).cwd().unwrap(),
            Path::new("/work/repo")
        );
        assert_eq!(
            here.in_folder(Path::new("/abs")).cwd().unwrap(),
            Path::new("/abs")
        );
        assert_eq!(here.cwd().unwrap(), Path::new("/work"));
    }

    #[test]
    fn the_editor_is_visual_then_editor() {
        assert_eq!(
            config(&[("VISUAL", "code --wait"), ("EDITOR", "nano")]).editor(),
            Some("code --wait")
        );
        assert_eq!(
            config(&[("VISUAL", " "), ("EDITOR", "nano")]).editor(),
            Some("nano")
        );
        assert_eq!(config(&[]).editor(), None);
        assert_eq!(config(&[("COLUMNS", " 120 ")]).columns(), Some(120));
        assert_eq!(config(&[("COLUMNS", "0")]).columns(), None);
    }
}
