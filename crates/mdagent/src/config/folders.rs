//! The folders memctl uses outside any store, from the environment by the
//! XDG Base Directory rules (SPEC §1, §4), each resolved here once.

use std::path::PathBuf;

use super::env::Environment;

/// The user's configuration file, inside the config folder.
const CONFIG_FILE: &str = "memctl/config.toml";

/// Where memctl keeps what it derives or remembers outside the stores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Folders {
    /// The global store: `$MEMCTL_GLOBAL_DIR`, else
    /// `$XDG_DATA_HOME/memctl/global`, else `~/.local/share/memctl/global`;
    /// `None` without any of them.
    pub global: Option<PathBuf>,
    /// The cache folder (indexes, their locks, session state, dream's gates,
    /// job logs): `$MEMCTL_CACHE_DIR`, else `$XDG_CACHE_HOME/memctl`, else
    /// `~/.cache/memctl`; without any of them, `memctl-cache` in the
    /// system's temporary folder.
    pub cache: PathBuf,
    /// The user's own configuration file: `$XDG_CONFIG_HOME/memctl/config.toml`,
    /// else `~/.config/memctl/config.toml`; `None` without either.
    pub user_config: Option<PathBuf>,
    /// Where installed models live: `$XDG_DATA_HOME/memctl/models`, else
    /// `~/.local/share/memctl/models`, each only when absolute; never
    /// inside a store (models are per user, not per project).
    pub models: Option<PathBuf>,
}

impl Folders {
    pub fn resolve(env: &Environment) -> Folders {
        let home = env.path("HOME");
        let global = env
            .path("MEMCTL_GLOBAL_DIR")
            .or_else(|| env.path("XDG_DATA_HOME").map(|d| d.join("memctl/global")))
            .or_else(|| home.as_ref().map(|h| h.join(".local/share/memctl/global")));
        let cache = env
            .path("MEMCTL_CACHE_DIR")
            .or_else(|| env.path("XDG_CACHE_HOME").map(|d| d.join("memctl")))
            .or_else(|| home.as_ref().map(|h| h.join(".cache").join("memctl")))
            .unwrap_or_else(|| env.temp_dir.join("memctl-cache"));
        let user_config = env
            .path("XDG_CONFIG_HOME")
            .map(|d| d.join(CONFIG_FILE))
            .or_else(|| home.as_ref().map(|h| h.join(".config").join(CONFIG_FILE)));
        let absolute = |p: PathBuf| Some(p).filter(|p| p.is_absolute());
        let models = env
            .path("XDG_DATA_HOME")
            .and_then(absolute)
            .or_else(|| {
                home.clone()
                    .and_then(absolute)
                    .map(|h| h.join(".local/share"))
            })
            .map(|data| data.join("memctl/models"));
        Folders {
            global,
            cache,
            user_config,
            models,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folders(vars: &[(&str, &str)]) -> Folders {
        Folders::resolve(&Environment::from_vars(vars.iter().copied()))
    }

    #[test]
    fn memctl_s_own_variables_win_then_xdg_then_home() {
        let all = folders(&[
            ("MEMCTL_GLOBAL_DIR", "/g"),
            ("MEMCTL_CACHE_DIR", "/c"),
            ("XDG_DATA_HOME", "/data"),
            ("XDG_CACHE_HOME", "/xdg-cache"),
            ("XDG_CONFIG_HOME", "/xdg-config"),
            ("HOME", "/home/me"),
        ]);
        assert_eq!(all.global, Some(PathBuf::from("/g")));
        assert_eq!(all.cache, PathBuf::from("/c"));
        assert_eq!(
            all.user_config,
            Some(PathBuf::from("/xdg-config/memctl/config.toml"))
        );
        assert_eq!(all.models, Some(PathBuf::from("/data/memctl/models")));
        let xdg = folders(&[
            ("XDG_DATA_HOME", "/data"),
            ("XDG_CACHE_HOME", "/xdg-cache"),
            ("HOME", "/home/me"),
        ]);
        assert_eq!(xdg.global, Some(PathBuf::from("/data/memctl/global")));
        assert_eq!(xdg.cache, PathBuf::from("/xdg-cache/memctl"));
        let home = folders(&[("HOME", "/home/me")]);
        assert_eq!(
            home.global,
            Some(PathBuf::from("/home/me/.local/share/memctl/global"))
        );
        assert_eq!(home.cache, PathBuf::from("/home/me/.cache/memctl"));
        assert_eq!(
            home.user_config,
            Some(PathBuf::from("/home/me/.config/memctl/config.toml"))
        );
        assert_eq!(
            home.models,
            Some(PathBuf::from("/home/me/.local/share/memctl/models"))
        );
    }

    #[test]
    fn empty_variables_count_as_unset_and_without_home_the_cache_is_in_temp() {
        let none = folders(&[
            ("MEMCTL_CACHE_DIR", ""),
            ("XDG_CACHE_HOME", ""),
            ("HOME", ""),
        ]);
        assert_eq!(none.cache, PathBuf::from("/tmp").join("memctl-cache"));
        assert_eq!(none.global, None);
        assert_eq!(none.user_config, None);
        assert_eq!(none.models, None);
    }

    #[test]
    fn models_live_only_under_an_absolute_folder() {
        let relative = folders(&[("XDG_DATA_HOME", "data"), ("HOME", "/home/me")]);
        assert_eq!(
            relative.models,
            Some(PathBuf::from("/home/me/.local/share/memctl/models"))
        );
        assert_eq!(relative.global, Some(PathBuf::from("data/memctl/global")));
    }
}
