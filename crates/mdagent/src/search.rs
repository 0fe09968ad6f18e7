//! What both faces' `search` decide alike: the query as parsed and
//! checked, the stores it covers, how each is searched (by meaning too
//! when a model is in force), and what to say of a query that cannot be
//! searched for.

use std::path::Path;

use mdindex::query::{self, Query, QueryError};
use mdindex::{Progress, SearchOutcome};
use mdstore::{RecordType, Scope, Store};

/// SPEC §5's query, refused only when it names an unknown filter value or
/// selects nothing (`*`, `(`) even with the `types` asked for.
pub fn parse(text: &str, types: &[RecordType]) -> Result<Query, QueryError> {
    query::parse(text).and_then(|query| query.ensure_selective(types).map(|()| query))
}

/// The stores a search covers: those `asked` for, else those the query's
/// `scope:` filters name, else both, nearest first.
pub fn wanted_scopes(asked: Option<&[Scope]>, query: &Query) -> Vec<Scope> {
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
pub struct Asked<'a> {
    pub query: &'a Query,
    pub text: &'a str,
    pub limit: usize,
    pub types: &'a [RecordType],
}

/// One store's answer to `asked`: words and meaning fused when `model` is
/// given (`crate::semantic::in_force`), words alone otherwise. When the
/// model fails mid-search the answer is by words and
/// [`SearchOutcome::semantic_failed`] says why: say it once and search the
/// other stores without the model.
pub fn search_store(
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
            let semantic = mdindex::Semantic { model, text };
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
