//! Which background jobs a session's hook may start. Both are on unless
//! turned off:
//!
//! - `MEMCTL_AUTO_WATCH` / `MEMCTL_AUTO_DREAM` (`on` or `off`) in the
//!   agent's environment decide when set: the user's own choice;
//! - else `[hooks] watch = false` / `dream = false` in the `.memctl.toml`
//!   of any store the session uses turns that job off. Off wins: a
//!   workspace store's file is committed and comes with a clone, so it may
//!   turn memctl's own jobs off for everyone, and can do nothing else
//!   (there is no setting that names a program to run).
//!
//! A value that cannot be read turns its job off and says why: memctl does
//! less, never more, when it cannot tell what was meant.

use crate::Config;
use crate::config::{AUTO_DREAM_VAR, AUTO_WATCH_VAR, store_file as settings};
use crate::stores::ScopedStore;

/// The jobs allowed, and what to say about the settings.
#[derive(Debug, PartialEq, Eq)]
pub struct Autostart {
    pub watch: bool,
    pub dream: bool,
    pub warnings: Vec<String>,
}

/// What the environment and `stores`' settings allow.
pub fn autostart(config: &Config, stores: &[ScopedStore]) -> Autostart {
    let mut warnings = Vec::new();
    let mut files = Vec::new();
    for scoped in stores {
        match settings::load(scoped.store.root()) {
            Ok(settings) => files.push(settings.hooks),
            Err(e) => {
                warnings.push(format!(
                    "{e}; no background job is started for this session"
                ));
                files.push(settings::HookSettings {
                    watch: Some(false),
                    dream: Some(false),
                });
            }
        }
    }
    let mut decide =
        |var: &'static str, in_file: &dyn Fn(&settings::HookSettings) -> Option<bool>| match config
            .switch(var)
        {
            Ok(Some(on)) => on,
            Ok(None) => !files.iter().any(|f| in_file(f) == Some(false)),
            Err(e) => {
                warnings.push(format!("{e}; the job it decides is not started"));
                false
            }
        };
    let watch = decide(AUTO_WATCH_VAR, &|f| f.watch);
    let dream = decide(AUTO_DREAM_VAR, &|f| f.dream);
    Autostart {
        watch,
        dream,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_store_turning_a_job_off_turns_it_off_and_a_broken_file_turns_both_off() {
        let dir = tempfile::tempdir().unwrap();
        let store = |name: &str, settings: &str| {
            let root = dir.path().join(name);
            std::fs::create_dir_all(&root).unwrap();
            if !settings.is_empty() {
                std::fs::write(root.join(settings::SETTINGS_FILE), settings).unwrap();
            }
            ScopedStore {
                scope: mdstore::Scope::Workspace,
                store: mdstore::Store::open(&root).unwrap(),
            }
        };
        let plain = store("plain", "");
        let no_watch = store("no-watch", "[hooks]\nwatch = false\n");
        let yes = store("yes", "[hooks]\nwatch = true\ndream = true\n");
        let broken = store("broken", "[hooks]\nwatch = maybe\n");
        let config = Config::resolve(
            crate::config::Environment::from_vars([("HOME", "/h")]),
            None,
            false,
        );
        let all_on = autostart(&config, std::slice::from_ref(&plain));
        assert!(all_on.watch && all_on.dream && all_on.warnings.is_empty());
        let off = autostart(&config, &[yes.clone(), no_watch.clone()]);
        assert!(!off.watch && off.dream, "{off:?}");
        let broken = autostart(&config, &[yes.clone(), broken]);
        assert!(!broken.watch && !broken.dream);
        assert!(broken.warnings[0].contains(".memctl.toml"), "{broken:?}");
        // The user's variable decides over every store's file.
        let env = [
            ("HOME", "/h"),
            (AUTO_WATCH_VAR, "on"),
            (AUTO_DREAM_VAR, "off"),
        ];
        let said = Config::resolve(crate::config::Environment::from_vars(env), None, false);
        let decided = autostart(&said, &[yes, no_watch]);
        assert!(decided.watch && !decided.dream, "{decided:?}");
        let env = [("HOME", "/h"), (AUTO_WATCH_VAR, "maybe")];
        let unclear = Config::resolve(crate::config::Environment::from_vars(env), None, false);
        let unclear = autostart(&unclear, std::slice::from_ref(&plain));
        assert!(!unclear.watch && unclear.dream, "{unclear:?}");
        assert_eq!(
            unclear.warnings,
            [
                "MEMCTL_AUTO_WATCH=\"maybe\" is neither on nor off; the job it decides is not started"
            ]
        );
    }
}
