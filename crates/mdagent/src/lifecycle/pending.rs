//! Candidates found after a session, waiting for a person (issue 17,
//! item 2): `extract --pending` (the SessionEnd job) keeps the candidates
//! that passed every guard of `remember` here instead of writing them, and
//! `memctl review` shows, accepts, edits or discards them. They are
//! machine-local and never committed: one JSON file per store in the cache
//! folder, beside the store's index (`<hash>.pending.json`, 0600, written
//! atomically under an OS lock on `<hash>.pending.lock`). At most
//! [`MAX_ENTRIES`] wait; a file larger than [`MAX_FILE_BYTES`] is refused,
//! not read. A candidate is checked again by every guard when it is
//! reviewed: the store may have changed meanwhile.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use mdstore::Scope;
use mdstore::write::{Candidate, candidate_to_json, json_name};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Config;
use crate::extract::origin::{Judged, Origin};
use crate::extract::transcript::Conversation;

/// The most candidates that wait for one store; later ones are not kept
/// (the job's log says so) until some are reviewed.
pub const MAX_ENTRIES: usize = 100;

/// The largest pending file read.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

const FORMAT_VERSION: u32 = 1;

/// One waiting candidate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// A fingerprint of the candidate: the same candidate is kept once.
    pub key: String,
    /// The candidate as `remember --from-json` reads it.
    pub candidate: Value,
    /// The transcript it was found in, as shown.
    pub from: String,
    /// When it was found (seconds since the epoch).
    pub added: i64,
    /// The session's text it came from ([`session_key`]): a session that
    /// ends again (resumed) proposes its candidates again, and what was
    /// decided about them holds.
    #[serde(default)]
    pub session: String,
    /// Whose words it is (`crate::extract::origin`), and the words that
    /// made it not the user's.
    #[serde(default)]
    pub origin: Option<Origin>,
    #[serde(default)]
    pub origin_words: Vec<String>,
    /// The record it says again in other words, under whose name it was
    /// proposed (`crate::repeats`), and the name the model gave it.
    #[serde(default)]
    pub repeats: Option<String>,
    #[serde(default)]
    pub proposed_name: Option<String>,
}

/// A candidate to keep, with what is known of it.
#[derive(Clone, Debug, Default)]
pub struct Waiting {
    pub candidate: Candidate,
    pub origin: Option<Judged>,
    /// The record it repeats, and the name the model gave it.
    pub repeats: Option<(String, String)>,
}

/// The key of a session's text: a hash of its first messages, which a
/// session that is resumed and ends again still begins with (its file may
/// be another, and its text longer).
pub fn session_key(conversation: &Conversation) -> String {
    let first: Vec<&str> = conversation
        .messages
        .iter()
        .take(SESSION_MESSAGES)
        .map(|m| m.text.as_str())
        .collect();
    let text = serde_json::to_string(&first).unwrap_or_default();
    blake3::hash(text.as_bytes()).to_hex()[..16].to_string()
}

/// How many of a session's first messages make its key.
const SESSION_MESSAGES: usize = 3;

/// The fingerprint of a candidate.
fn candidate_key(value: &Value) -> String {
    blake3::hash(value.to_string().as_bytes()).to_hex()[..16].to_string()
}

#[derive(Debug, Serialize, Deserialize)]
struct PendingFile {
    version: u32,
    entries: Vec<Entry>,
}

#[derive(Debug, thiserror::Error)]
pub enum PendingError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: {why}; remove it to discard what waits there", path.display())]
    Unreadable { path: PathBuf, why: String },
}

impl PendingError {
    pub fn kind(&self) -> crate::Kind {
        crate::Kind::Internal
    }
}

/// What [`add`] kept.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Added {
    pub added: usize,
    /// Already waiting.
    pub already: usize,
    /// Decided about before, for this session's text (skipped, accepted).
    pub decided: usize,
    /// Not kept: [`MAX_ENTRIES`] already wait.
    pub over_limit: usize,
}

/// The pending file of the store at `store_root` (existing or to be made).
pub fn path_of(config: &Config, store_root: &Path) -> PathBuf {
    let paths = mdindex::IndexPaths::of_root(config.cache_dir(), store_root);
    paths.db.with_extension("pending.json")
}

/// The candidates waiting for the store at `store_root`, oldest first.
pub fn load(config: &Config, store_root: &Path) -> Result<Vec<Entry>, PendingError> {
    read(&path_of(config, store_root))
}

/// Keeps `candidates` (found in `from`, a session whose text has key
/// `session`) for the store at `store_root`. A candidate waiting already is
/// not kept twice; one a person decided about before for this session's
/// text (skipped or accepted) is not kept again; one of the same name from
/// the same session replaces the one that waits (the session went on).
pub fn add(
    config: &Config,
    store_root: &Path,
    candidates: &[Waiting],
    from: &str,
    session: &str,
) -> Result<Added, PendingError> {
    let path = path_of(config, store_root);
    let _lock = lock(&path)?;
    let mut entries = read(&path)?;
    let decided = read_decisions(&decisions_path(config, store_root))?;
    let mut added = Added::default();
    let now = mdstore::clock::now().as_second();
    for waiting in candidates {
        let value = candidate_to_json(&waiting.candidate);
        let key = candidate_key(&value);
        let name = waiting.candidate.name.as_str();
        if entries.iter().any(|e| e.key == key) {
            added.already += 1;
            continue;
        }
        if decided
            .iter()
            .any(|d| d.session == session && (d.key == key || d.name == name))
        {
            added.decided += 1;
            continue;
        }
        entries.retain(|e| !(e.session == session && json_name(&e.candidate) == Some(name)));
        if entries.len() >= MAX_ENTRIES {
            added.over_limit += 1;
            continue;
        }
        let (origin, origin_words) = match &waiting.origin {
            Some(judged) => (Some(judged.origin), judged.words.clone()),
            None => (None, Vec::new()),
        };
        entries.push(Entry {
            key,
            candidate: value,
            from: from.to_string(),
            added: now,
            session: session.to_string(),
            origin,
            origin_words,
            repeats: waiting.repeats.as_ref().map(|(id, _)| id.clone()),
            proposed_name: waiting.repeats.as_ref().map(|(_, name)| name.clone()),
        });
        added.added += 1;
    }
    if added.added > 0 {
        write(&path, entries)?;
    }
    Ok(added)
}

/// What a person decided about a waiting candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Discarded: not to be proposed again for this session's text.
    Skipped,
    /// Saved (or found stored): nothing to propose again either.
    Accepted,
}

/// One decision, kept per session text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decided {
    pub session: String,
    pub key: String,
    pub name: String,
    pub decision: Decision,
    pub at: i64,
}

#[derive(Debug, Serialize, Deserialize)]
struct DecisionsFile {
    version: u32,
    decisions: Vec<Decided>,
}

/// Decisions kept per store at most; the oldest go first.
pub const MAX_DECISIONS: usize = 2_000;

fn decisions_path(config: &Config, store_root: &Path) -> PathBuf {
    path_of(config, store_root)
        .with_extension("")
        .with_extension("decisions.json")
}

/// Records that `entry` was `decision` (its session's text will not bring
/// it back). An entry of no known session is not recorded.
pub fn decide(
    config: &Config,
    store_root: &Path,
    entry: &Entry,
    decision: Decision,
) -> Result<(), PendingError> {
    if entry.session.is_empty() {
        return Ok(());
    }
    let path = path_of(config, store_root);
    let _lock = lock(&path)?;
    let decisions_path = decisions_path(config, store_root);
    let mut decisions = read_decisions(&decisions_path)?;
    decisions.push(Decided {
        session: entry.session.clone(),
        key: entry.key.clone(),
        name: json_name(&entry.candidate).unwrap_or_default().to_string(),
        decision,
        at: mdstore::clock::now().as_second(),
    });
    let over = decisions.len().saturating_sub(MAX_DECISIONS);
    decisions.drain(..over);
    let text = serde_json::to_string_pretty(&DecisionsFile {
        version: FORMAT_VERSION,
        decisions,
    })
    .unwrap_or_default();
    mdstore::atomic::write_private_file(&decisions_path, text.as_bytes()).map_err(|source| {
        PendingError::Io {
            path: decisions_path.clone(),
            source,
        }
    })
}

fn read_decisions(path: &Path) -> Result<Vec<Decided>, PendingError> {
    let Some(text) = read_text(path)? else {
        return Ok(Vec::new());
    };
    let file: DecisionsFile =
        serde_json::from_str(&text).map_err(|e| PendingError::Unreadable {
            path: path.to_path_buf(),
            why: format!("not a decisions file ({e})"),
        })?;
    Ok(file.decisions)
}

/// Takes the candidates whose keys are in `keys` out of the store's file
/// (reviewed: saved, already stored, refused or discarded).
pub fn remove(config: &Config, store_root: &Path, keys: &[String]) -> Result<(), PendingError> {
    let path = path_of(config, store_root);
    let _lock = lock(&path)?;
    let entries = read(&path)?;
    let before = entries.len();
    let kept: Vec<Entry> = entries
        .into_iter()
        .filter(|e| !keys.contains(&e.key))
        .collect();
    if kept.len() == before {
        return Ok(());
    }
    if kept.is_empty() {
        return mdstore::atomic::remove_file(&path)
            .map_err(|source| PendingError::Io { path, source });
    }
    write(&path, kept)
}

/// What every session start says of the candidates waiting for `stores`:
/// nothing while their files can be read (how many wait is said once, by
/// the after-session job's report, `crate::lifecycle::after_session::Outcome`); a
/// file that cannot be read is said to be so each time, since its
/// candidates would otherwise be lost unseen.
pub fn problems(config: &Config, stores: &[(Scope, &Path)]) -> Vec<String> {
    let mut lines = Vec::new();
    for (scope, root) in stores {
        let command = match scope {
            Scope::Workspace => "memctl review",
            Scope::Global => "memctl review --global",
        };
        if let Err(e) = load(config, root) {
            lines.push(format!(
                "memctl: the candidates waiting for `{command}`: {e}"
            ));
        }
    }
    lines
}

fn read(path: &Path) -> Result<Vec<Entry>, PendingError> {
    let Some(text) = read_text(path)? else {
        return Ok(Vec::new());
    };
    let unreadable = |why: String| PendingError::Unreadable {
        path: path.to_path_buf(),
        why,
    };
    let file: PendingFile =
        serde_json::from_str(&text).map_err(|e| unreadable(format!("not a pending file ({e})")))?;
    if file.version != FORMAT_VERSION {
        return Err(unreadable(format!(
            "format version {}, not {FORMAT_VERSION}",
            file.version
        )));
    }
    Ok(file.entries)
}

/// The text of one of memctl's files in the cache folder, `None` when it
/// does not exist; a link, a folder or a huge file is refused.
fn read_text(path: &Path) -> Result<Option<String>, PendingError> {
    let io_error = |source| PendingError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(e)),
    };
    let unreadable = |why: String| PendingError::Unreadable {
        path: path.to_path_buf(),
        why,
    };
    if !meta.is_file() {
        return Err(unreadable("not a regular file".into()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(unreadable(format!("larger than {MAX_FILE_BYTES} bytes")));
    }
    std::fs::read_to_string(path).map(Some).map_err(io_error)
}

fn write(path: &Path, entries: Vec<Entry>) -> Result<(), PendingError> {
    let file = PendingFile {
        version: FORMAT_VERSION,
        entries,
    };
    // Serialising strings, numbers and JSON values cannot fail.
    let text = serde_json::to_string_pretty(&file).unwrap_or_default();
    // Owner-only (0600): the candidates are the user's words.
    mdstore::atomic::write_private_file(path, text.as_bytes()).map_err(|source| PendingError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// The OS lock that serialises changes to `path` (two sessions ending at once).
fn lock(path: &Path) -> Result<File, PendingError> {
    let lock_path = path.with_extension("lock");
    let io_error = |source| PendingError::Io {
        path: lock_path.clone(),
        source,
    };
    let file = mdstore::atomic::open_private(
        &lock_path,
        OpenOptions::new().create(true).truncate(false).write(true),
    )
    .map_err(io_error)?;
    file.lock().map_err(io_error)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(name: &str) -> Candidate {
        Candidate {
            name: name.to_string(),
            description: Some(format!("about {name}")),
            body: Some("a line\n".into()),
            ..Candidate::default()
        }
    }

    #[test]
    fn candidates_wait_once_are_removed_and_are_private() {
        let cache = tempfile::tempdir().unwrap();
        let path = cache.path().join("x.pending.json");
        let (a, b) = (candidate("a"), candidate("b"));
        // `add` and `remove` through the file functions, with a path of our own.
        let mut entries = read(&path).unwrap();
        assert!(entries.is_empty());
        entries.push(Entry {
            key: "k".into(),
            candidate: candidate_to_json(&a),
            from: "s".into(),
            added: 1,
            session: String::new(),
            origin: None,
            origin_words: Vec::new(),
            repeats: None,
            proposed_name: None,
        });
        write(&path, entries).unwrap();
        let back = read(&path).unwrap();
        assert_eq!(back[0].candidate["name"], "a");
        let back_candidate = mdstore::write::candidate_from_json(&back[0].candidate).unwrap();
        assert_eq!(back_candidate, a);
        assert_ne!(candidate_to_json(&a), candidate_to_json(&b));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn a_damaged_or_huge_pending_file_is_refused_naming_it() {
        let cache = tempfile::tempdir().unwrap();
        let path = cache.path().join("x.pending.json");
        std::fs::write(&path, "{not json").unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(
            err.contains("x.pending.json") && err.contains("remove it"),
            "{err}"
        );
        std::fs::write(&path, r#"{"version":9,"entries":[]}"#).unwrap();
        assert!(read(&path).unwrap_err().to_string().contains("version 9"));
    }
}
