//! What an agent sees before a turn (SPEC §8): the policy, each store's
//! catalogue at session start (`MEMORY.md`, or one rendered from the
//! records; [`read`]), and the records judged relevant
//! to the prompt ([`choose`], `mdindex::relevance`), rendered
//! ([`render`]) within a budget of characters ([`fit`]), each shown once a
//! session ([`session`]).

pub mod choose;
pub mod fit;
pub mod meaning;
pub mod read;
pub mod render;
pub mod session;

use std::collections::HashSet;
use std::path::PathBuf;

use crate::Config;
use crate::stores::{ScopedStore, StoreError};
pub use render::{Catalogue, Context, POLICY, Recalled};

/// Characters of output by default: Claude Code shows a hook's output of
/// more than 10,000 characters only as a short preview.
pub const DEFAULT_BUDGET: usize = 9_000;

/// Records shown at most, by default.
pub const DEFAULT_MAX: usize = 5;

/// Hits weighed before the relevance judgement when at most `max` records
/// are shown: twice as many, and never fewer than ten, so that a record
/// the judgement passes is rarely ranked out before it.
pub const fn candidates(max: usize) -> usize {
    let twice = max * 2;
    if twice > 10 { twice } else { 10 }
}

/// What to gather.
#[derive(Debug, Default)]
pub struct Ask<'a> {
    pub prompt: Option<&'a str>,
    pub session_start: bool,
    pub max: usize,
    /// Keys (`scope:id`, [`key`]) not to show again.
    pub already_shown: HashSet<String>,
    /// How long this request may spend embedding the background of
    /// ordinary requests while its cached vectors are not all made
    /// ([`meaning::background_vectors`]); the words decide meanwhile. The
    /// hook gives [`meaning::HOOK_BACKGROUND_BUDGET`], under the agent's
    /// timeout; `None` (a person or a tool asking) waits until it is made.
    pub background_budget: Option<std::time::Duration>,
}

/// Why the context could not be gathered.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    #[error(transparent)]
    Stores(#[from] StoreError),
    #[error("cannot read {}", path.display())]
    ReadCatalogue {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot search the {scope} store {}", root.display())]
    Search {
        scope: &'static str,
        root: PathBuf,
        #[source]
        source: Box<mdindex::Error>,
    },
}

/// The context for `ask` from `stores`, those this folder reads
/// (`stores::read_stores`, found once by the caller, who may act on them
/// too; none: empty).
pub fn gather(
    config: &Config,
    stores: &[ScopedStore],
    ask: &Ask<'_>,
) -> Result<Context, ContextError> {
    let now = mdstore::clock::now();
    let mut context = Context {
        policy: POLICY,
        ..Context::default()
    };
    if ask.session_start {
        for scoped in stores {
            if let Some(catalogue) = read::catalogue(config.cache_dir(), scoped, now)? {
                context.catalogues.push(catalogue);
            }
        }
    }
    if let Some((prompt, query)) = ask
        .prompt
        .and_then(|prompt| Some((prompt, mdindex::relevance::prompt_query(prompt)?.at(now))))
    {
        let warnings = &mut context.warnings;
        warnings.extend(crate::semantic::say_once_what_is_missing(config));
        context.records = choose::recall(config, stores, &query, prompt, ask, now, warnings)?;
    }
    Ok(context)
}

/// The key of a record in session state.
pub fn key(scope: &str, id: &str) -> String {
    format!("{scope}:{id}")
}
