/*!
`mdagent` is what memctl does for coding agents, whichever face asks: the
`memctl` command line, its Claude Code hook and its MCP server are thin
layers over it that parse, call this crate and render.

- [`stores`]: which stores a command acts on (the workspace store found
  above the current folder or named, and the global store);
- [`index_sink`]: writes that keep the search index in step, and the header
  view a write plans from;
- [`freshen`]: `MEMORY.md` brought up to date after git changed the records;
- [`context`]: what an agent sees before a turn (choosing, reading and
  redacting records, fitting them in a budget, session state);
- [`extract`]: a finished session turned into candidates through a model
  command (transcripts, the 8-word provenance rule, the request, the answer);
- [`remember`]: what is said about candidates and refusals, the same to a
  person and to an agent;
- [`records`]: records, headers and hits as JSON, and finding one by id;
- [`search`]: a query parsed and checked, the stores it covers, its hints;
- [`dream_auto`], [`dream_model`]: `dream --auto`'s gates, lock and
  unattended policy, and a plan asked of a model command;
- [`model_cmd`]: running a model command with a timeout and a cap on its answer;
  [`model_source`]: where that command comes from (the user, never a
  repository); [`model_answer`]: a runner's result wrapper taken off;
- [`pending`]: candidates found after a session, waiting for `memctl review`;
  [`after_session`]: the job the end of a session starts to find them.
- [`lifecycle`]: what a session's hook starts in the background (a watcher,
  `dream --auto`), what those jobs did, said at the next session start, and
  where the after-session work begins;
- [`config`]: memctl's settings (a store's `.memctl.toml`: [`config::store_file`]).

It takes a plain [`Config`] (the settings resolved once, at start), never
a command line's types, and reads no environment outside [`config::env`];
it returns typed errors; [`explain`] gives a face the kind of failure and a
hint for any of them.
*/
#![forbid(unsafe_code)]

pub mod after_session;
pub mod config;
pub mod context;
pub mod dream_auto;
pub mod dream_model;
pub mod extract;
pub mod freshen;
pub mod index_sink;
pub mod lifecycle;
pub mod model_answer;
pub mod model_cmd;
pub mod model_source;
pub mod pending;
pub mod records;
pub mod remember;
pub mod repeats;
pub mod search;
pub mod semantic;
pub mod stores;

use std::error::Error;
use std::path::PathBuf;

use mdindex::IndexPaths;

pub use config::Config;

/// `<cache>/<the store's index name>.<suffix>`: what memctl keeps about a
/// store outside it (dream's lock and gates, background jobs' logs), beside
/// the store's index and named from the same hash of its path.
pub(crate) fn cache_file(config: &Config, store: &mdstore::Store, suffix: &str) -> PathBuf {
    let db = IndexPaths::new(config.cache_dir(), store).db;
    db.with_extension(suffix)
}

/// What kind of failure one of this crate's errors is, so that a face can
/// report it: the CLI maps it to SPEC §10's exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The caller's input (an argument, a file, the environment) is wrong.
    BadInput,
    /// Something else got there first (a lock, a change meanwhile).
    Conflict,
    /// The system failed (I/O, a program that did not run).
    Internal,
}

/// How a face reports one of this crate's errors: its kind, its message
/// (without the causes an internal error lists after it) and what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explained {
    pub kind: Kind,
    pub message: String,
    pub hint: Option<String>,
}

/// The first error of this crate in `error`'s chain of sources that is the
/// caller's fault or has a hint, explained: the one place that knows which
/// of its errors are which and what to do about them. `None` for an
/// internal failure, which a face reports with its whole chain of causes.
pub fn explain(error: &(dyn Error + 'static)) -> Option<Explained> {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some((kind, hint)) = explain_one(error)
            && (kind != Kind::Internal || hint.is_some())
        {
            return Some(Explained {
                kind,
                message: error.to_string(),
                hint,
            });
        }
        next = error.source();
    }
    None
}

fn explain_one(error: &(dyn Error + 'static)) -> Option<(Kind, Option<String>)> {
    if let Some(e) = error.downcast_ref::<config::ConfigError>() {
        return Some((e.kind(), e.hint()));
    }
    if let Some(e) = error.downcast_ref::<stores::StoreError>() {
        return Some((e.kind(), e.hint()));
    }
    if let Some(e) = error.downcast_ref::<records::FindError>() {
        return Some((e.kind(), e.hint()));
    }
    if let Some(e) = error.downcast_ref::<extract::transcript::TranscriptError>() {
        return Some((e.kind(), e.hint()));
    }
    if let Some(e) = error.downcast_ref::<pending::PendingError>() {
        return Some((e.kind(), None));
    }
    if let Some(context::ContextError::Stores(e)) = error.downcast_ref::<context::ContextError>() {
        return Some((e.kind(), e.hint()));
    }
    None
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn a_store_error_inside_another_is_explained_with_its_hint() {
        let missing = || stores::StoreError::NoSuchFolder {
            named: "--store /nope".to_string(),
            dir: PathBuf::from("/nope"),
        };
        let found = records::FindError::Stores(missing());
        let explained = explain(&found).unwrap();
        assert_eq!(explained.kind, Kind::BadInput);
        assert_eq!(explained.message, "--store /nope: no such folder");
        assert_eq!(
            explained.hint.as_deref(),
            Some("create it with `memctl init --store /nope`")
        );
        let gathered = context::ContextError::Stores(missing());
        assert_eq!(explain(&gathered), Some(explained));
    }

    #[test]
    fn an_internal_failure_is_left_to_its_chain_of_causes() {
        let open = stores::StoreError::Open {
            dir: PathBuf::from("/store"),
            source: std::io::Error::other("disk on fire"),
        };
        assert_eq!(explain(&open), None);
        let unknown = std::io::Error::other("not ours");
        assert_eq!(explain(&unknown), None);
    }
}
