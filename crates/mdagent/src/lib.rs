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
  command (transcripts, the 8-word provenance rule, the request, the answer),
  and `memctl extract` whole ([`extract::run`]: saved through `remember`'s
  batch, or kept for review);
- [`remember`]: a batch of candidates planned, shown, confirmed and
  written, or one an agent gives written unconfirmed; what is said about
  candidates and refusals, the same to a person and to an agent;
- [`forget`]: records removed behind tombstones, confirmed by a person or
  only as an agent read them;
- [`write_failure`]: why a write use case stopped;
- [`records`]: records, headers and hits as JSON, and finding one by id;
- [`edit`]: a hand edit saved in one transaction;
- [`search`]: a query parsed and checked, the stores it covers, its hints;
- [`status`]: the stores, or why one is not there, with their records,
  `MEMORY.md`, index and watcher, as `memctl status` reports them;
- [`dream`]: dream's whole sequence ([`dream::run`]: the lock and gates, a
  plan from the rules or a model, validated, shown and confirmed through a
  [`dream::DreamFace`], applied, committed, what it did); [`dream::auto`], [`dream::model`]:
  `dream --auto`'s gates, lock and unattended policy, and a plan asked of a
  model command;
- [`model`]: running a model command with a timeout and a cap on its answer
  ([`model::cmd`]), where that command comes from (the user, never a
  repository: [`model::source`]), a runner's result wrapper taken off
  ([`model::answer`]);
- [`hook_event`]: an agent's hook event, typed (one type per agent and event);
- [`lifecycle`]: what a session's hook starts in the background (a watcher,
  `dream --auto`), what those jobs did, said at the next session start, and
  the after-session work: the job the end of a session starts
  ([`lifecycle::after_session`]) and the candidates it finds, waiting for
  `memctl review` ([`lifecycle::pending`]), accepted or discarded
  ([`lifecycle::review`]);
- [`maintain`]: keeping a store: created with its `MEMORY.md`
  ([`maintain::init`]), linted ([`maintain::check`]), its index rebuilt or
  compared with the files ([`maintain::reindex`]), kept current by a
  watcher ([`maintain::watch`]);
- [`face`]: what a use case needs from its face ([`face::Tell`],
  [`face::Ask`], [`face::Batches`]);
- [`git`]: a store's changed files committed after a write, when asked
  (what it says goes through [`face::Tell`], which each face implements),
  and a record's revisions ([`git::history`], `memctl log`);
- [`config`]: memctl's settings (a store's `.memctl.toml`: [`config::store_file`]).

It takes a plain [`Config`] (the settings resolved once, at start), never
a command line's types, and reads no environment outside [`config::env`];
it returns typed errors; [`explain()`] gives a face the kind of failure and a
hint for any error of this crate or of the engine crates below it, the one
table of them ([`explain`](mod@explain)).
*/
#![forbid(unsafe_code)]

pub mod config;
pub mod context;
pub mod dream;
pub mod edit;
pub mod explain;
pub mod extract;
pub mod face;
pub mod forget;
pub mod freshen;
pub mod git;
pub mod hook_event;
pub mod index_sink;
pub mod lifecycle;
pub mod maintain;
pub mod model;
pub mod records;
pub mod remember;
pub mod repeats;
pub mod search;
pub mod semantic;
pub mod status;
pub mod stores;
pub mod write_failure;

use std::path::PathBuf;

use mdindex::IndexPaths;

pub use config::Config;
pub use explain::{Explained, Kind, explain};

/// `<cache>/<the store's index name>.<suffix>`: what memctl keeps about a
/// store outside it (dream's lock and gates, background jobs' logs), beside
/// the store's index and named from the same hash of its path.
pub(crate) fn cache_file(config: &Config, store: &mdstore::Store, suffix: &str) -> PathBuf {
    let db = IndexPaths::new(config.cache_dir(), store).db;
    db.with_extension(suffix)
}
