//! `search` across the stores, as both faces run it (SPEC §5): the query
//! parsed and checked, the stores it covers, each searched (by meaning too
//! when a model is in force), the rankings merged, and what to say of a
//! query that cannot be searched for. A face gives the request and a
//! [`Face`] for what is said on the way, and renders [`Found`].

use std::path::{Path, PathBuf};

use mdindex::query::{self, Query, QueryError};
use mdindex::{Hit, Progress, RebuildReport, SearchOutcome};
use mdstore::{RecordType, Scope, Store};

use crate::Config;
use crate::stores::{self, ScopedStore, StoreError};

/// What a search needs from the face that runs it while it runs.
pub trait Face {
    /// How far a rebuild of one store's index has read its records.
    fn progress(&mut self, progress: Progress);
    /// One store searched; `rebuilt` when its index in the cache folder had
    /// to be rebuilt first (a temporary index, always built, is not).
    fn searched(&mut self, scoped: &ScopedStore, rebuilt: Option<&RebuildReport>);
    /// A line to say once: the model is off, the index is temporary, the
    /// files changed oddly meanwhile.
    fn warn(&mut self, line: &str);
}

/// A search as a face asks for it.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// As the user wrote it (the model reads text, not the parsed terms).
    pub text: &'a str,
    pub types: &'a [RecordType],
    pub limit: usize,
    /// The stores asked for; `None`: those the query's `scope:` filters
    /// name, else both.
    pub scopes: Option<&'a [Scope]>,
}

/// The answer: at most `limit` hits, best first, each with its store's
/// scope, and the stores searched, nearest first.
#[derive(Debug)]
pub struct Found {
    pub hits: Vec<(Scope, Hit)>,
    pub stores: Vec<ScopedStore>,
}

/// Why a search gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The query cannot be searched for ([`query_hint`] says what to do).
    #[error("{0}")]
    Query(QueryError),
    /// None of the stores `wanted` exists; `global`: where the global
    /// store was looked for, when it alone was wanted.
    #[error("{}", no_store_message(.wanted, .global.as_deref()))]
    NoStore {
        wanted: Vec<Scope>,
        global: Option<PathBuf>,
    },
    #[error(transparent)]
    Stores(StoreError),
    #[error("cannot search the {} store {}", scope.as_str(), root.display())]
    Store {
        scope: Scope,
        root: PathBuf,
        #[source]
        source: mdindex::Error,
    },
}

/// Why none of the `wanted` stores can be searched, naming the store asked for.
fn no_store_message(wanted: &[Scope], global: Option<&Path>) -> String {
    match (wanted, global) {
        ([Scope::Global], Some(dir)) => format!(
            "no global store to search: {} does not exist",
            dir.display()
        ),
        ([Scope::Workspace], _) => "no workspace store to search here".to_string(),
        _ => "no store to search here".to_string(),
    }
}

/// What to do when none of the `wanted` stores exists.
pub fn no_store_hint(wanted: &[Scope]) -> &'static str {
    match wanted {
        [Scope::Global] => "create it with `memctl init --global`",
        [Scope::Workspace] => "run `memctl init` in your project's root, or pass --store DIR",
        _ => {
            "run `memctl init` in your project's root, pass --store DIR, or create the global store with `memctl init --global`"
        }
    }
}

/// Runs `request` over the stores it covers ([`Config::global`] narrows
/// them to the global store) and merges their rankings; ties go to the
/// nearer store. When the model fails in one store, that is said once and
/// the other stores are searched by words alone.
pub fn search(
    config: &Config,
    request: &Request<'_>,
    face: &mut dyn Face,
) -> Result<Found, SearchError> {
    // One clock a search: every store's hits are aged from the same now.
    let query = parse(request.text, request.types)
        .map_err(SearchError::Query)?
        .at(mdstore::clock::now());
    let wanted = if config.global {
        vec![Scope::Global]
    } else {
        wanted_scopes(request.scopes, &query)
    };
    let stores: Vec<ScopedStore> = stores::read_stores(config)
        .map_err(SearchError::Stores)?
        .into_iter()
        .filter(|s| wanted.contains(&s.scope))
        .collect();
    if stores.is_empty() {
        let global = match wanted[..] {
            [Scope::Global] => Some(stores::global_dir(config).map_err(SearchError::Stores)?),
            _ => None,
        };
        return Err(SearchError::NoStore { wanted, global });
    }
    let mut warnings = Vec::new();
    let mut model = crate::semantic::in_force(config, &mut warnings);
    warnings.iter().for_each(|line| face.warn(line));
    let asked = Asked {
        query: &query,
        text: request.text,
        limit: request.limit,
        types: request.types,
    };
    let mut per_store = Vec::with_capacity(stores.len());
    let mut said_temporary = false;
    for scoped in &stores {
        let outcome = search_store(
            &scoped.store,
            config.cache_dir(),
            &asked,
            model.as_deref(),
            &mut |p| face.progress(p),
        )
        .map_err(|e| match e {
            mdindex::Error::Query(e) => SearchError::Query(e),
            source => SearchError::Store {
                scope: scoped.scope,
                root: scoped.store.root().to_path_buf(),
                source,
            },
        })?;
        let temporary = outcome.temporary_index.as_ref();
        face.searched(
            scoped,
            outcome.rebuilt.as_ref().filter(|_| temporary.is_none()),
        );
        if let Some(why) = temporary
            && !std::mem::replace(&mut said_temporary, true)
        {
            face.warn(&format!(
                "the index cannot be kept in the cache folder ({why}); answered from a temporary index"
            ));
        }
        if let Some(notice) = outcome.sync.notice() {
            face.warn(&notice);
        }
        if let Some(failure) = &outcome.semantic_failed {
            face.warn(&crate::semantic::off_because(failure));
            model = None;
        }
        per_store.push((scoped.scope, outcome.hits));
    }
    let hits = mdindex::merge_ranked(per_store, request.limit);
    Ok(Found { hits, stores })
}

/// SPEC §5's query, refused only when it names an unknown filter value or
/// selects nothing (`*`, `(`) even with the `types` asked for.
fn parse(text: &str, types: &[RecordType]) -> Result<Query, QueryError> {
    query::parse(text).and_then(|query| query.ensure_selective(types).map(|()| query))
}

/// The stores a search covers: those `asked` for, else those the query's
/// `scope:` filters name, else both, nearest first.
fn wanted_scopes(asked: Option<&[Scope]>, query: &Query) -> Vec<Scope> {
    match asked {
        Some(asked) => asked.to_vec(),
        None if query.scopes.is_empty() => vec![Scope::Workspace, Scope::Global],
        None => query.scopes.clone(),
    }
}

/// A search as asked: the query parsed ([`parse`]) and as the user wrote
/// it (the model reads text, not the parsed terms), how many hits, which
/// types.
#[derive(Clone, Copy, Debug)]
struct Asked<'a> {
    query: &'a Query,
    text: &'a str,
    limit: usize,
    types: &'a [RecordType],
}

/// One store's answer to `asked`: words and meaning fused when `model` is
/// given (`crate::semantic::in_force`), words alone otherwise. When the
/// model fails mid-search the answer is by words and
/// [`SearchOutcome::semantic_failed`] says why: say it once and search the
/// other stores without the model.
fn search_store(
    store: &Store,
    cache: &Path,
    asked: &Asked<'_>,
    model: Option<&mdembed::Model>,
    progress: &mut dyn FnMut(Progress),
) -> mdindex::Result<SearchOutcome> {
    let Asked {
        query,
        text,
        limit,
        types,
    } = *asked;
    match model {
        Some(model) => {
            // A search the user asked for waits until every record is embedded.
            let semantic = mdindex::Semantic {
                model,
                text,
                deadline: None,
            };
            mdindex::hybrid_search_store(store, cache, query, limit, types, semantic, progress)
        }
        None => mdindex::search_store(store, cache, query, limit, types, progress),
    }
}

/// What to do about a query that cannot be searched for. `shell` quotes
/// the suggested query for a shell (`'"type:x"'`), as the CLI takes it.
pub fn query_hint(error: &QueryError, shell: bool) -> String {
    match error {
        QueryError::NothingToSearch => {
            "give a word or a phrase to search for, or a filter such as `type:project`".to_string()
        }
        QueryError::UnknownFilterValue { filter, value, .. } => {
            let quoted = format!("\"{filter}:{value}\"");
            let quoted = if shell { format!("'{quoted}'") } else { quoted };
            format!("to search for the text itself, quote it: {quoted}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_asked_for_win_over_the_query_and_both_are_the_default() {
        let plain = parse("deploy", &[]).unwrap();
        let global_only = parse("deploy scope:global", &[]).unwrap();
        let both = [Scope::Workspace, Scope::Global];
        assert_eq!(wanted_scopes(None, &plain), both);
        assert_eq!(wanted_scopes(None, &global_only), [Scope::Global]);
        assert_eq!(
            wanted_scopes(Some(&[Scope::Workspace]), &global_only),
            [Scope::Workspace]
        );
    }

    #[test]
    fn the_hint_quotes_for_a_shell_only_when_asked() {
        let error = parse("type:bogus", &[]).unwrap_err();
        assert!(query_hint(&error, true).ends_with("quote it: '\"type:bogus\"'"));
        assert!(query_hint(&error, false).ends_with("quote it: \"type:bogus\""));
        let nothing = parse("*", &[]).unwrap_err();
        assert!(query_hint(&nothing, false).starts_with("give a word"));
    }
}
