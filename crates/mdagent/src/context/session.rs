//! Which records a hook has already shown in an agent's session, so that a
//! record is shown once a session (SPEC §8). Kept in the cache folder, one
//! small file a session named from a hash of its id (never the id itself,
//! which comes from the event), at most [`MAX_SHOWN`] keys a file, files
//! older than [`KEEP_DAYS`] removed, at most [`MAX_SESSIONS`] kept.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Keys remembered for one session; the oldest go first.
const MAX_SHOWN: usize = 1_000;
/// A session file not touched for this long is removed.
const KEEP_DAYS: u64 = 7;
/// Session files kept at most; the least recently used go first.
const MAX_SESSIONS: usize = 500;
/// A session file larger than this is not read (it is not one of ours).
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// Session state that cannot be read or kept: records may be shown again.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The records shown in one session, in the order they were shown.
#[derive(Debug)]
pub struct Session {
    path: PathBuf,
    shown: Vec<String>,
}

impl Session {
    /// The state of session `id` under `cache_dir` (empty if new).
    pub fn load(cache_dir: &Path, id: &str) -> Result<Session, SessionError> {
        let path = session_path(cache_dir, id);
        let shown = match fs::metadata(&path) {
            Ok(meta) if meta.len() > MAX_FILE_BYTES => Vec::new(),
            Ok(_) => {
                let text = match fs::read_to_string(&path) {
                    Ok(text) => text,
                    Err(source) => return Err(SessionError::Read { path, source }),
                };
                // A damaged file only means records may be shown again.
                serde_json::from_str(&text).unwrap_or_default()
            }
            Err(_) => Vec::new(),
        };
        Ok(Session { path, shown })
    }

    /// A session with nothing shown, whatever its file holds (a cleared or
    /// compacted conversation no longer holds what was shown).
    pub fn empty(cache_dir: &Path, id: &str) -> Session {
        Session {
            path: session_path(cache_dir, id),
            shown: Vec::new(),
        }
    }

    /// The keys shown so far, oldest first.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.shown.iter().map(String::as_str)
    }

    pub fn was_shown(&self, key: &str) -> bool {
        self.shown.iter().any(|k| k == key)
    }

    pub fn mark_shown(&mut self, key: String) {
        if !self.was_shown(&key) {
            self.shown.push(key);
        }
        let over = self.shown.len().saturating_sub(MAX_SHOWN);
        self.shown.drain(..over);
    }

    /// Writes the state (atomically) and prunes old sessions.
    pub fn save(&self) -> Result<(), SessionError> {
        // A list of strings always serialises.
        let text = serde_json::to_string(&self.shown).unwrap_or_default();
        mdstore::atomic::write_private_file(&self.path, text.as_bytes()).map_err(|source| {
            SessionError::Write {
                path: self.path.clone(),
                source,
            }
        })?;
        prune(self.path.parent().unwrap_or(Path::new(".")), &self.path);
        Ok(())
    }
}

/// `<cache>/context-sessions/<hash of the id>.json`.
fn session_path(cache_dir: &Path, id: &str) -> PathBuf {
    let hash = blake3::hash(id.as_bytes()).to_hex();
    cache_dir
        .join("context-sessions")
        .join(format!("{}.json", &hash[..32]))
}

/// Removes session files older than [`KEEP_DAYS`], then the least
/// recently used beyond [`MAX_SESSIONS`]; `keep` is never removed. Best
/// effort: a file another hook removed first is no failure.
fn prune(dir: &Path, keep: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    let max_age = Duration::from_secs(KEEP_DAYS * 86_400);
    let mut files: BTreeSet<(SystemTime, PathBuf)> = BTreeSet::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(modified) = entry.metadata().ok().and_then(|m| m.modified().ok()) else {
            continue;
        };
        if path == keep {
            continue;
        }
        if now.duration_since(modified).unwrap_or_default() > max_age {
            let _ = fs::remove_file(&path);
        } else {
            files.insert((modified, path));
        }
    }
    let over = (files.len() + 1).saturating_sub(MAX_SESSIONS);
    for (_, path) in files.into_iter().take(over) {
        let _ = fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_never_becomes_a_path() {
        let cache = Path::new("/cache");
        for id in ["../../etc/passwd", "/abs", "a/b", "", "\0"] {
            let path = session_path(cache, id);
            assert_eq!(
                path.parent(),
                Some(cache.join("context-sessions").as_path())
            );
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(name.len() == 37 && name.ends_with(".json"), "{name}");
        }
    }

    #[test]
    fn shown_keys_are_bounded_and_survive_a_save() {
        let dir = tempfile::tempdir().unwrap();
        let mut session = Session::load(dir.path(), "s1").unwrap();
        for n in 0..(MAX_SHOWN + 10) {
            session.mark_shown(format!("workspace:r{n}"));
        }
        session.save().unwrap();
        let again = Session::load(dir.path(), "s1").unwrap();
        assert_eq!(again.shown.len(), MAX_SHOWN);
        assert!(!again.was_shown("workspace:r0"));
        assert!(again.was_shown(&format!("workspace:r{}", MAX_SHOWN + 9)));
        assert!(
            !Session::load(dir.path(), "s2")
                .unwrap()
                .was_shown("workspace:r20")
        );
    }

    #[test]
    fn a_damaged_session_file_only_forgets() {
        let dir = tempfile::tempdir().unwrap();
        let path = session_path(dir.path(), "s");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "{not json").unwrap();
        assert!(Session::load(dir.path(), "s").unwrap().shown.is_empty());
    }

    #[test]
    fn old_sessions_are_pruned_beyond_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("context-sessions");
        fs::create_dir_all(&sessions).unwrap();
        for n in 0..(MAX_SESSIONS + 5) {
            fs::write(sessions.join(format!("{n}.json")), "[]").unwrap();
        }
        let session = Session::load(dir.path(), "new").unwrap();
        session.save().unwrap();
        let left = fs::read_dir(&sessions).unwrap().count();
        assert_eq!(left, MAX_SESSIONS);
        assert!(session.path.is_file());
    }
}
