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

use crate::config::store_file as settings;
use crate::stores::ScopedStore;

/// The jobs allowed, and what to say about the settings.
#[derive(Debug, PartialEq, Eq)]
pub struct Autostart {
    pub watch: bool,
    pub dream: bool,
    pub warnings: Vec<String>,
}

/// The variable that decides the watcher.
pub const WATCH_VAR: &str = "MEMCTL_AUTO_WATCH";
/// The variable that decides `dream --auto`.
pub const DREAM_VAR: &str = "MEMCTL_AUTO_DREAM";

/// What the environment and `stores`' settings allow.
pub fn autostart(stores: &[ScopedStore]) -> Autostart {
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
    let mut decide = |var: &str, in_file: &dyn Fn(&settings::HookSettings) -> Option<bool>| {
        match env_switch(var) {
            Ok(Some(on)) => on,
            Ok(None) => !files.iter().any(|f| in_file(f) == Some(false)),
            Err(shown) => {
                warnings.push(format!(
                    "{var}={shown} is neither on nor off; the job it decides is not started"
                ));
                false
            }
        }
    };
    let watch = decide(WATCH_VAR, &|f| f.watch);
    let dream = decide(DREAM_VAR, &|f| f.dream);
    Autostart {
        watch,
        dream,
        warnings,
    }
}

/// A switch variable: `Ok(None)` when unset or empty, `Err` with the value
/// as it may be shown when it is neither on nor off.
fn env_switch(var: &str) -> Result<Option<bool>, String> {
    let Some(value) = std::env::var_os(var).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let text = value.to_string_lossy();
    parse_switch(&text)
        .map(Some)
        .ok_or_else(|| format!("{:?}", mdstore::escape::for_message(&text, 40)))
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
    }

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
        // Without MEMCTL_AUTO_* in the test's environment (the tests never set it).
        if std::env::var_os(WATCH_VAR).is_some() || std::env::var_os(DREAM_VAR).is_some() {
            eprintln!("SKIPPED: {WATCH_VAR} or {DREAM_VAR} is set in this environment");
            return;
        }
        let all_on = autostart(std::slice::from_ref(&plain));
        assert!(all_on.watch && all_on.dream && all_on.warnings.is_empty());
        let off = autostart(&[yes.clone(), no_watch]);
        assert!(!off.watch && off.dream, "{off:?}");
        let broken = autostart(&[yes, broken]);
        assert!(!broken.watch && !broken.dream);
        assert!(broken.warnings[0].contains(".memctl.toml"), "{broken:?}");
    }
}
