//! What background jobs did since a session last started, told to the user
//! at the next session start (a job's own output goes to its log, which
//! nobody reads unasked, and a hook that ends a session is shown to no
//! one). A job that did something worth saying, or failed, records one
//! report: a small JSON file in `<cache>/job-reports/`, named from its
//! store's index name, so that a session takes only the reports of its own
//! stores. Taking a report removes it: each is said once.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::jobs::Job;
use crate::Config;
use crate::stores::ScopedStore;

/// Reports kept per store at most; the oldest go first.
const MAX_PER_STORE: usize = 20;
/// A report file larger than this is not one of ours.
const MAX_REPORT_BYTES: u64 = 64 * 1024;
/// Characters of a message shown at most.
const MAX_MESSAGE_CHARS: usize = 600;

/// One job's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// [`Job::name`].
    pub job: String,
    /// The store's scope (`workspace`, `global`).
    pub scope: String,
    /// When the job finished, Unix seconds.
    pub finished: i64,
    /// What it did, in a sentence or two.
    pub message: String,
}

/// Records that `job` on `scoped`'s store did what `message` says. A
/// report that cannot be written is not worth failing the job for: the
/// job's log has the same words.
pub fn record(config: &Config, scoped: &ScopedStore, job: Job, message: &str) {
    let dir = reports_dir(config);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let report = Report {
        job: job.name().to_string(),
        scope: scoped.scope.as_str().to_string(),
        finished: i64::try_from(now.as_secs()).unwrap_or(i64::MAX),
        message: message.to_string(),
    };
    let prefix = prefix(config, scoped);
    let name = format!("{prefix}{:020}-{}.json", now.as_nanos(), std::process::id());
    // Plain data always serialises.
    let text = serde_json::to_string(&report).unwrap_or_default();
    if mdstore::atomic::write_file(&dir.join(name), text.as_bytes()).is_ok() {
        prune(&dir, &prefix);
    }
}

/// Every report of `stores`, oldest first, each removed as it is taken.
pub fn take(config: &Config, stores: &[ScopedStore]) -> Vec<Report> {
    let dir = reports_dir(config);
    let mut taken = Vec::new();
    for scoped in stores {
        for path in files_of(&dir, &prefix(config, scoped)) {
            let report = read(&path);
            // Removed first: a report another session took meanwhile is
            // not said twice.
            if fs::remove_file(&path).is_ok()
                && let Some(report) = report
            {
                taken.push(report);
            }
        }
    }
    taken.sort_by_key(|r| r.finished);
    taken.dedup();
    taken
}

/// The reports as lines for a person: each names memctl, the store and the
/// job; control characters are escaped and secrets hidden (a message may
/// quote a hand-written file's name).
pub fn lines(reports: &[Report]) -> Vec<String> {
    reports
        .iter()
        .map(|r| {
            let message = mdstore::escape::for_message(&r.message, MAX_MESSAGE_CHARS);
            let text = format!(
                "memctl ({} store, background {}): {message}",
                mdstore::escape::for_message(&r.scope, 20),
                mdstore::escape::for_message(&r.job, 20)
            );
            mdstore::redact::lines(&text, mdstore::redact::Keep::Nothing)
        })
        .collect()
}

fn reports_dir(config: &Config) -> PathBuf {
    config.cache_dir().join("job-reports")
}

/// `<store's index name>.`: every report file of a store starts with it.
fn prefix(config: &Config, scoped: &ScopedStore) -> String {
    let db = mdindex::IndexPaths::new(config.cache_dir(), &scoped.store).db;
    let stem = db.file_stem().map(|s| s.to_string_lossy().into_owned());
    format!("{}.", stem.unwrap_or_default())
}

/// The report files starting with `prefix`, oldest first (names sort by time).
fn files_of(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".json"))
        })
        .collect();
    files.sort();
    files
}

fn read(path: &Path) -> Option<Report> {
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_REPORT_BYTES {
        return None;
    }
    serde_json::from_str(&fs::read_to_string(path).ok()?).ok()
}

/// Removes a store's oldest reports beyond [`MAX_PER_STORE`] (sessions may
/// not start for a while; a job that fails every time must not fill the
/// cache folder).
fn prune(dir: &Path, prefix: &str) {
    let files = files_of(dir, prefix);
    let over = files.len().saturating_sub(MAX_PER_STORE);
    for path in files.into_iter().take(over) {
        let _ = fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_lines_escape_controls_and_hide_secrets() {
        let report = |message: &str| Report {
            job: "dream".into(),
            scope: "workspace".into(),
            finished: 1,
            message: message.into(),
        };
        let key = ["AKIA", "Z7QW3RTY5UIO9PLK"].concat();
        let shown = lines(&[
            report("merged a\u{1b}[2J and b\u{202e}"),
            report(&format!("retired {key}")),
        ]);
        assert_eq!(
            shown[0],
            "memctl (workspace store, background dream): merged a\\x1b[2J and b\\u{202e}"
        );
        assert!(
            !shown[1].contains(&key) && shown[1].contains("secret"),
            "{}",
            shown[1]
        );
    }

    #[test]
    fn only_reports_of_the_stores_are_taken_and_the_oldest_go_beyond_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        for n in 0..(MAX_PER_STORE + 3) {
            fs::write(dir.path().join(format!("aaaa.{n:03}.json")), "{}").unwrap();
        }
        fs::write(dir.path().join("bbbb.1.json"), "{}").unwrap();
        prune(dir.path(), "aaaa.");
        let left = files_of(dir.path(), "aaaa.");
        assert_eq!(left.len(), MAX_PER_STORE);
        assert!(left[0].ends_with("aaaa.003.json"), "{left:?}");
        assert_eq!(files_of(dir.path(), "bbbb.").len(), 1);
    }
}
