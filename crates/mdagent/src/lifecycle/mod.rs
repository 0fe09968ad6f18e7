//! The memory lifecycle that runs without anyone remembering to run it
//! (issue 17): select before a turn (`context`), and, started by the same
//! one hook entry, a watcher that keeps each store's index fresh and
//! `dream --auto` when memories pile up, with what they did said at the
//! next session start ([`reports`]). The after-session work starts at
//! [`session_end`]: a job ([`after_session`]) whose candidates wait for
//! `memctl review` ([`pending`]), which accepts or discards them
//! ([`review`]).
//!
//! Everything here is cheap enough to run in a hook that a prompt waits
//! for: a look at a lock and a stamp per store, a small file read for the
//! dream's gates, and a detached process started ([`jobs`]); nothing
//! scans a store.

pub mod after_session;
pub mod autostart;
pub mod jobs;
pub mod pending;
pub mod reports;
pub mod review;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use mdindex::{IndexPaths, WatcherState};
use mdstore::Scope;

use crate::Config;
use crate::dream::auto::{DreamLock, Gates};
use crate::stores::ScopedStore;
pub use jobs::{Job, JobError, Launcher};

/// A watcher started for a session stops after this many minutes without
/// a search; the next prompt or session starts another.
pub const WATCH_IDLE_MINUTES: u64 = 60;

/// A watcher is not started again within this time of the last start (one
/// that dies at once, say for want of inotify watches, is not restarted at
/// every prompt; its report says why it died).
const WATCH_RETRY: Duration = Duration::from_secs(60);

/// When a hook asks for the background jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// A session starts, resumes, or is cleared or compacted: a watcher for
    /// each store without one, and `dream --auto` when its gates open.
    SessionStart,
    /// A prompt: a watcher for each store whose watcher stopped (idle).
    Prompt,
}

/// Starts the jobs `moment` calls for on `stores`, as the settings allow
/// ([`autostart`]); what is returned is to be said on the hook's standard
/// error (the prompt goes on regardless).
pub fn start_jobs(
    config: &Config,
    launcher: &Launcher,
    stores: &[ScopedStore],
    moment: Moment,
) -> Vec<String> {
    let stores = distinct(stores);
    let allowed = autostart::autostart(config, &stores);
    let mut warnings = allowed.warnings;
    if allowed.watch {
        for scoped in &stores {
            if let Err(e) = start_watcher(config, launcher, scoped) {
                warnings.push(format!(
                    "no watcher started for the {} store: {}",
                    scoped.scope.as_str(),
                    chain(&e)
                ));
            }
        }
    }
    if allowed.dream
        && moment == Moment::SessionStart
        && let Err(why) = start_dream(config, launcher, &stores)
    {
        warnings.push(format!("dream --auto not started: {why}"));
    }
    warnings
}

/// What an MCP server does about watchers: when the settings allow the
/// watcher job, it starts the same detached watcher a hook starts (one
/// that outlives the server: a client starts its MCP servers before its
/// first hook, and a watcher of the server's own, gone with the session,
/// kept the hook from starting the one that stays; issue 27, seen under
/// Codex), and `detached` is true; otherwise the server keeps its stores
/// watched itself, for its lifetime, as it always did.
#[derive(Debug, Default)]
pub struct KeepWatched {
    pub detached: bool,
    pub warnings: Vec<String>,
}

/// Starts the detached watcher of each of `stores` that has none, when
/// the settings allow it ([`KeepWatched`]).
pub fn keep_watched(config: &Config, launcher: &Launcher, stores: &[ScopedStore]) -> KeepWatched {
    let stores = distinct(stores);
    let allowed = autostart::autostart(config, &stores);
    if !allowed.watch {
        // Why it is off (a settings file that cannot be read) is still said.
        return KeepWatched {
            detached: false,
            warnings: allowed.warnings,
        };
    }
    let mut warnings = allowed.warnings;
    for scoped in &stores {
        if let Err(e) = start_watcher(config, launcher, scoped) {
            warnings.push(format!(
                "no watcher started for the {} store: {}",
                scoped.scope.as_str(),
                chain(&e)
            ));
        }
    }
    KeepWatched {
        detached: true,
        warnings,
    }
}

/// A session that ended (Claude Code's `SessionEnd`), or, for an agent
/// without that event, a turn that ended (Codex's `Stop`).
#[derive(Debug)]
pub struct SessionEnd<'a> {
    pub session_id: &'a str,
    /// The session's transcript, as the event names it.
    pub transcript: Option<&'a Path>,
    /// Only a turn ended: the session goes on, and may end many times over.
    pub after_turn: bool,
}

/// Why the end of a session cannot be acted on.
#[derive(Debug, thiserror::Error)]
pub enum LifecycleError {
    #[error("the session's transcript {}: {why}", path.display())]
    Transcript { path: PathBuf, why: &'static str },
}

/// Where the after-session work starts: extracting the session's
/// transcript into candidates that wait for `memctl review` (issue 17,
/// item 2), a detached `memctl extract --pending` job
/// ([`crate::lifecycle::after_session`]); the next session start says what it came
/// to, once ([`crate::lifecycle::after_session::Outcome`]). A transcript named by the event must be
/// an absolute path to a regular file (an event is an agent's word, not
/// to be trusted to name one). Without a model command nothing starts,
/// and the next session start says so, once. Must return at once: Claude
/// Code gives its `SessionEnd` hooks 1.5 s. Returns warnings for the
/// hook's standard error.
pub fn session_end(
    config: &Config,
    launcher: &Launcher,
    stores: &[ScopedStore],
    end: &SessionEnd<'_>,
) -> Result<Vec<String>, LifecycleError> {
    let Some(path) = end.transcript else {
        return Ok(Vec::new());
    };
    checked_transcript(path)?;
    let Some(target) = crate::lifecycle::after_session::target(stores) else {
        return Ok(Vec::new());
    };
    let cache = config.cache_dir();
    match crate::lifecycle::after_session::model_configured(config) {
        Ok(true) => {}
        Ok(false) => {
            if let Some(note) = crate::lifecycle::after_session::not_configured_once(config) {
                reports::record(config, target, Job::Extract, &note);
            }
            return Ok(Vec::new());
        }
        Err(e) => {
            let said = format!("not started: {}", chain(&e));
            reports::record(config, target, Job::Extract, &said);
            return Ok(vec![format!("no extract job started: {}", chain(&e))]);
        }
    }
    if !crate::lifecycle::after_session::due(cache, end.session_id, end.after_turn) {
        return Ok(Vec::new());
    }
    let args = crate::lifecycle::after_session::job_args(config, path, target);
    match jobs::start(
        launcher,
        &jobs::log_path(config, &target.store, Job::Extract),
        &args,
    ) {
        Ok(()) => Ok(Vec::new()),
        Err(e) => Ok(vec![format!("no extract job started: {}", chain(&e))]),
    }
}

/// A transcript an event names: an absolute path to a regular file.
fn checked_transcript(path: &Path) -> Result<(), LifecycleError> {
    let refuse = |why| {
        Err(LifecycleError::Transcript {
            path: path.to_path_buf(),
            why,
        })
    };
    if !path.is_absolute() {
        return refuse("not an absolute path");
    }
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(_) => refuse("not a regular file"),
        Err(_) => refuse("no such file"),
    }
}

/// Each store once (a workspace store named as the global store's folder
/// is one store).
fn distinct(stores: &[ScopedStore]) -> Vec<ScopedStore> {
    let mut out: Vec<ScopedStore> = Vec::new();
    for scoped in stores {
        if out.iter().all(|s| s.store.root() != scoped.store.root()) {
            out.push(scoped.clone());
        }
    }
    out
}

/// Starts `memctl watch --background` for a store no watcher keeps, unless
/// one was started for it within [`WATCH_RETRY`]. Two sessions starting at
/// once may both start one: the second finds the `.watch` lock taken and
/// leaves.
fn start_watcher(
    config: &Config,
    launcher: &Launcher,
    scoped: &ScopedStore,
) -> Result<(), JobError> {
    let cache = config.cache_dir();
    let paths = IndexPaths::new(cache, &scoped.store);
    if mdindex::watcher_state(&paths) != WatcherState::Absent {
        return Ok(());
    }
    let stamp = crate::cache_file(config, &scoped.store, "watch-started");
    let recent = std::fs::metadata(&stamp)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|at| SystemTime::now().duration_since(at).ok())
        .is_some_and(|age| age < WATCH_RETRY);
    // A cache folder that cannot hold the stamp cannot hold an index for a
    // watcher either: the search already says so.
    if recent
        || std::fs::create_dir_all(cache)
            .and_then(|()| std::fs::write(&stamp, b""))
            .is_err()
    {
        return Ok(());
    }
    let mut args = crate::stores::job_store_args(config, scoped);
    args.extend([
        "watch".into(),
        "--background".into(),
        "--idle-exit".into(),
        WATCH_IDLE_MINUTES.to_string().into(),
    ]);
    let log = jobs::log_path(config, &scoped.store, Job::Watch);
    jobs::start(launcher, &log, &args)
}

/// Starts `memctl dream --auto --background` on the session's stores when
/// the gates that need no scan are open and no dream holds the lock; the
/// dream checks every gate again itself (and counts the writes), under its
/// lock, so two sessions never run two dreams.
fn start_dream(config: &Config, launcher: &Launcher, stores: &[ScopedStore]) -> Result<(), String> {
    let Some(first) = stores.first() else {
        return Ok(());
    };
    if !Gates::load(config, stores).time_gates_open(config, mdstore::clock::now()) {
        return Ok(());
    }
    match DreamLock::take(config, stores) {
        Ok(Some(lock)) => drop(lock),
        Ok(None) => return Ok(()),
        Err(e) => return Err(chain(&e)),
    }
    let mut args = match stores.iter().find(|s| s.scope == Scope::Workspace) {
        Some(workspace) => crate::stores::job_store_args(config, workspace),
        None => vec!["--global".into()],
    };
    args.extend(["dream".into(), "--auto".into(), "--background".into()]);
    let log = jobs::log_path(config, &first.store, Job::Dream);
    jobs::start(launcher, &log, &args).map_err(|e| chain(&e))
}

/// An error with its causes, for one line of a warning.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(cause) = next {
        text += &format!(": {cause}");
        next = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_end_names_only_a_real_transcript() {
        fn no_launcher() -> Launcher {
            Launcher {
                program: PathBuf::from("/nonexistent/memctl"),
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let config = Config::resolve(
            crate::config::Environment::from_vars([("MEMCTL_CACHE_DIR", dir.path())]),
            None,
            false,
        );
        let transcript = dir.path().join("s.jsonl");
        std::fs::write(&transcript, "{}\n").unwrap();
        fn end(path: &Path) -> SessionEnd<'_> {
            SessionEnd {
                session_id: "s",
                transcript: Some(path),
                after_turn: false,
            }
        }
        assert!(session_end(&config, &no_launcher(), &[], &end(&transcript)).is_ok());
        assert!(
            session_end(
                &config,
                &no_launcher(),
                &[],
                &SessionEnd {
                    transcript: None,
                    ..end(&transcript)
                }
            )
            .is_ok()
        );
        for (path, why) in [
            (Path::new("s.jsonl"), "absolute"),
            (dir.path(), "regular file"),
            (&dir.path().join("gone.jsonl"), "no such file"),
        ] {
            let err = session_end(&config, &no_launcher(), &[], &end(path))
                .unwrap_err()
                .to_string();
            assert!(err.contains(why), "{err}");
        }
    }
}
