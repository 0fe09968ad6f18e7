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

pub use mdembed::{Availability, Model};

use crate::Config;
use crate::config::ConfigError;

/// The model in force ([`Config::embed_model`]), loaded.
pub fn availability(config: &Config) -> Result<Availability, ConfigError> {
    Ok(mdembed::open_at(config.embed_model()?))
}

/// The model, when semantic matching is on and usable. When it is on but
/// cannot be used, why, in `warnings` (a caller never fails for it: it
/// searches words alone and says so once).
pub fn in_force(config: &Config, warnings: &mut Vec<String>) -> Option<Box<mdembed::Model>> {
    match availability(config) {
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

/// What memctl lacks without an encoder, the first time it runs without
/// one (issue 24: it still runs, and says so once): nothing when the user
/// turned it off. "Once" is a mark in the cache folder; a cache that cannot
/// hold it says it again next time, which is better than never.
/// `context` asks (relevance is where the encoder matters most).
pub fn say_once_what_is_missing(config: &Config) -> Option<String> {
    if config.encoder_turned_off() || !matches!(config.embed_model(), Ok(None)) {
        return None;
    }
    let mark = config.cache_dir().join("said").join("no-encoder");
    if std::fs::symlink_metadata(&mark).is_ok() {
        return None;
    }
    // The cache folder is private (it holds session state); so is the mark.
    let _ = mdstore::atomic::create_private_dir_all(mark.parent()?);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let _ = options.open(&mark);
    Some(NO_ENCODER.to_string())
}

/// Said once when no sentence encoder is installed.
pub const NO_ENCODER: &str = "no sentence encoder installed: relevance is judged by words alone \
     (`memctl model install` adds it; said once)";

/// What to say when the model cannot be used for this search, or failed
/// in it: the answer is by words alone.
pub fn off_because(why: impl std::fmt::Display) -> String {
    format!("semantic matching is off: {why}; searching words only")
}
