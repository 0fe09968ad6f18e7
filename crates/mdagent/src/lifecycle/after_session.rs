//! What the end of a session starts (issue 17, item 2): `memctl extract
//! --transcript FILE --pending` on the session's transcript, a detached
//! job whose candidates wait for `memctl review` ([`crate::lifecycle::pending`]).
//! The hook's dispatch point calls these; they decide, start nothing.

use std::ffi::OsString;
use std::path::Path;

use mdstore::Scope;

use crate::Config;
use crate::config::{ConfigError, LLM_CMD_VAR};
use crate::model::source as model_source;
use crate::stores::ScopedStore;

/// The store the session's candidates wait for: the workspace store when
/// there is one, else the global store.
pub fn target(stores: &[ScopedStore]) -> Option<&ScopedStore> {
    stores
        .iter()
        .find(|s| s.scope == Scope::Workspace)
        .or_else(|| stores.iter().find(|s| s.scope == Scope::Global))
}

/// The memctl arguments of the job for `transcript` and `target`: the
/// store named, since a job runs in `/`, not in the agent's folder.
pub fn job_args(config: &Config, transcript: &Path, target: &ScopedStore) -> Vec<OsString> {
    let mut args = crate::stores::job_store_args(config, target);
    args.extend([
        "extract".into(),
        "--transcript".into(),
        transcript.into(),
        "--pending".into(),
    ]);
    args
}

/// After a turn (Codex's `Stop`, which ends no session), extraction runs
/// at most once in this many seconds a session: each run asks the model.
pub const TURN_INTERVAL_SECS: u64 = 30 * 60;

/// Whether the end of `session_id` (a session, or only a turn) is to be
/// extracted now: always at a session's end; after a turn, when none of
/// this session was in the last [`TURN_INTERVAL_SECS`] (a stamp in
/// `cache_dir`, named from the session id's hash, remembers it).
pub fn due(cache_dir: &Path, session_id: &str, after_turn: bool) -> bool {
    if !after_turn {
        return true;
    }
    let hash = blake3::hash(session_id.as_bytes()).to_hex();
    let stamp = cache_dir.join(format!("extract-turn-{}", &hash[..16]));
    let recent = std::fs::metadata(&stamp)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|at| std::time::SystemTime::now().duration_since(at).ok())
        .is_some_and(|age| age.as_secs() < TURN_INTERVAL_SECS);
    if recent {
        return false;
    }
    // A stamp that cannot be written only means the next turn runs again.
    let _ = std::fs::create_dir_all(cache_dir).and_then(|()| std::fs::write(&stamp, b""));
    true
}

/// Whether there is a model command to run: without one (or with a user
/// configuration that cannot be read) the job is not started, and
/// [`not_configured_once`] says why, once.
pub fn model_configured(config: &Config) -> Result<bool, ConfigError> {
    model_source::model_command(config, None).map(|command| command.is_some())
}

/// The message that no model command is configured, the first time it is
/// asked for in the cache folder (a stamp file remembers it was said);
/// `None` afterwards, so a user without a model is told once, not every
/// session.
pub fn not_configured_once(config: &Config) -> Option<String> {
    let cache_dir = config.cache_dir();
    let stamp = cache_dir.join("no-model-command-said");
    if stamp.exists() {
        return None;
    }
    // A stamp that cannot be written only means the note comes again.
    let _ = std::fs::create_dir_all(cache_dir).and_then(|()| std::fs::write(&stamp, b""));
    Some(format!(
        "sessions are not turned into memory candidates: no model command is configured. \
         Set {} or write [model] command = [\"claude\", \"-p\"] in {}; then `memctl review` shows what \
         each session proposed. (Said once.)",
        LLM_CMD_VAR,
        config.user_config_shown()
    ))
}

/// What the after-session job came to, said once at the next session
/// start (issue 27: a failed extraction was known only to a log).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Candidates wait for `memctl review`: `new` of them from this
    /// session, `waiting` in all; `others` tells what became of the rest.
    Waiting {
        new: usize,
        waiting: usize,
        /// Saved at once (`auto_accept`, the user's own words).
        saved: usize,
        others: Tally,
    },
    /// `[extract] auto_accept`: saved at once.
    Saved { saved: usize, others: Tally },
    /// Nothing to keep, and why (the model proposed none, or none was new).
    Nothing { others: Tally },
    /// The transcript held no user or assistant text: the model was not asked.
    NoText,
    /// The session was not turned into candidates: the model command could
    /// not start or failed, its answer was refused, the transcript could
    /// not be read. `why` is one line.
    Failed { why: String },
}

/// What became of the candidates that neither wait nor were saved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Already stored, or already waiting.
    pub known: usize,
    /// Refused by a guard (secret, temporary, copied from a tool…).
    pub refused: usize,
    /// True for that session only (`current_task`), or skipped before.
    pub dropped: usize,
}

impl Tally {
    fn said(&self) -> String {
        let parts: Vec<String> = [
            (self.known, "already known"),
            (self.refused, "refused"),
            (self.dropped, "set aside"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        parts.join(", ")
    }
}

/// The most characters of a failure's reason said.
const MAX_WHY_CHARS: usize = 300;

impl Outcome {
    /// A failure, from an error's message: its first line, cut short.
    pub fn failed(message: &str) -> Outcome {
        let line = message.lines().next().unwrap_or_default().trim();
        let mut why: String = line.chars().take(MAX_WHY_CHARS).collect();
        if line.chars().count() > MAX_WHY_CHARS {
            why.push('…');
        }
        Outcome::Failed { why }
    }

    /// The sentence said at the next session start, after "memctl (…
    /// store, background extract): ".
    pub fn message(&self, review: &str) -> String {
        let rest = |others: &Tally| {
            let said = others.said();
            if said.is_empty() {
                String::new()
            } else {
                format!(" (the others: {said})")
            }
        };
        match self {
            Outcome::Waiting {
                new,
                waiting,
                saved,
                others,
            } => format!(
                "a session that ended left {} for you{}{}; {waiting} wait in all: run `{review}` to accept, edit or discard them.",
                count(*new, "new memory candidate", "new memory candidates"),
                if *saved > 0 {
                    format!(
                        " ({} in your own words saved at once)",
                        count(*saved, "memory", "memories")
                    )
                } else {
                    String::new()
                },
                rest(others)
            ),
            Outcome::Saved { saved, others } => format!(
                "a session that ended gave {} saved at once ([extract] auto_accept){}.",
                count(*saved, "memory", "memories"),
                rest(others)
            ),
            Outcome::Nothing { others } if others.said().is_empty() => {
                "a session that ended gave nothing to remember: the model proposed no candidate."
                    .to_string()
            }
            Outcome::Nothing { others } => format!(
                "a session that ended gave nothing new to remember: its candidates were {}.",
                others.said()
            ),
            Outcome::NoText => {
                "a session that ended held no text of yours or the assistant's to remember."
                    .to_string()
            }
            Outcome::Failed { why } => {
                format!("a session that ended was not turned into memory candidates: {why}")
            }
        }
    }
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Records `outcome` for the next session start of `target`'s sessions.
pub fn record(config: &Config, target: &ScopedStore, outcome: &Outcome) {
    let review = match target.scope {
        Scope::Workspace => "memctl review",
        Scope::Global => "memctl review --global",
    };
    crate::lifecycle::reports::record(
        config,
        target,
        crate::lifecycle::Job::Extract,
        &outcome.message(review),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_job_names_its_store_and_the_transcript_and_waits_for_review() {
        let dir = tempfile::tempdir().unwrap();
        let store = mdstore::Store::create(dir.path()).unwrap();
        let workspace = ScopedStore {
            scope: Scope::Workspace,
            store,
        };
        let config = Config::resolve(
            crate::config::Environment::from_vars::<&str, &str>([]),
            None,
            false,
        );
        let args = job_args(&config, Path::new("/t/s.jsonl"), &workspace);
        let args: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args[0], "--found-store",
            "a found store is vetted again by the job"
        );
        assert_eq!(
            args[2..],
            ["extract", "--transcript", "/t/s.jsonl", "--pending"]
        );
        assert_eq!(
            target(std::slice::from_ref(&workspace)).map(|s| s.scope),
            Some(Scope::Workspace)
        );
        assert!(target(&[]).is_none());
    }

    #[test]
    fn after_a_turn_extraction_waits_its_interval_and_a_session_end_never_does() {
        let cache = tempfile::tempdir().unwrap();
        assert!(due(cache.path(), "s", true));
        assert!(
            !due(cache.path(), "s", true),
            "a second turn soon after waits"
        );
        assert!(due(cache.path(), "other", true));
        assert!(due(cache.path(), "s", false));
    }

    #[test]
    fn no_model_is_said_once() {
        let cache = tempfile::tempdir().unwrap();
        let env = crate::config::Environment::from_vars([("MEMCTL_CACHE_DIR", cache.path())]);
        let config = Config::resolve(env, None, false);
        let said = not_configured_once(&config).unwrap();
        assert!(said.contains("no model command is configured"), "{said}");
        assert!(not_configured_once(&config).is_none());
    }

    #[test]
    fn each_outcome_is_one_sentence() {
        let waiting = Outcome::Waiting {
            new: 1,
            waiting: 3,
            saved: 0,
            others: Tally {
                known: 1,
                refused: 1,
                dropped: 0,
            },
        };
        assert_eq!(
            waiting.message("memctl review"),
            "a session that ended left 1 new memory candidate for you (the others: 1 already known, 1 refused); 3 wait in all: run `memctl review` to accept, edit or discard them."
        );
        let failed = Outcome::failed(&format!(
            "the answer is not JSON\ndetails{}",
            "x".repeat(400)
        ));
        assert_eq!(
            failed.message("memctl review"),
            "a session that ended was not turned into memory candidates: the answer is not JSON"
        );
        let long = Outcome::failed(&"y".repeat(400)).message("r");
        assert!(long.ends_with('…') && !long.contains('\n'), "{long}");
        assert!(
            Outcome::Nothing {
                others: Tally::default()
            }
            .message("r")
            .contains("proposed no candidate")
        );
    }
}
