//! The tools that only read: `search`, `show` and `list`, with the same
//! library calls and rows as `memctl search|show|list --json`, each row
//! marked `expired` when its `expires` has passed (SPEC §8), and `show`
//! giving the `read_hash` that `forget` asks for.

use jiff::Timestamp;
use mdindex::query::QueryError;
use mdstore::expiry::has_expired;
use mdstore::hash::read_hash;

use mdagent::Config;
use mdagent::records;
use mdagent::stores::{self, Scope, ScopedStore};

use super::answers::{
    ListAnswer, ListedRecord, NotShown, SearchAnswer, SearchRow, ShowAnswer, ShownRecord,
    SkippedFile,
};
use super::args::{ToolError, shown_value};
use super::params::{ListParams, SearchParams, ShowParams};

pub fn search(config: &Config, params: SearchParams) -> Result<SearchAnswer, ToolError> {
    let types: Vec<_> = params.record_type.map(|t| t.0).into_iter().collect();
    let limit = params.limit.map_or(10, |l| l.0) as usize;
    let query = mdagent::search::parse(&params.query.0, &types).map_err(query_error)?;
    let asked: Option<&[Scope]> = params.scope.map(|scope| match scope.0 {
        Some(Scope::Workspace) => &[Scope::Workspace][..],
        Some(Scope::Global) => &[Scope::Global][..],
        None => &[Scope::Workspace, Scope::Global][..],
    });
    let wanted = mdagent::search::wanted_scopes(asked, &query);
    let stores: Vec<_> = read_stores(config)?
        .into_iter()
        .filter(|s| wanted.contains(&s.scope))
        .collect();
    if stores.is_empty() {
        return Err(ToolError::new("no store to search").with_hint(NO_STORE_HINT));
    }
    let cache = config.cache_dir();
    let mut per_store = Vec::new();
    let mut notes = Vec::new();
    // As `memctl search`: meaning fused in when the user turned it on.
    let mut model = mdagent::semantic::in_force(config, &mut notes);
    let asked = mdagent::search::Asked {
        query: &query,
        text: &params.query.0,
        limit,
        types: &types,
    };
    for scoped in &stores {
        let outcome = mdagent::search::search_store(
            &scoped.store,
            cache,
            &asked,
            model.as_deref(),
            &mut |_| {},
        )
        .map_err(|e| match e {
            mdindex::Error::Query(e) => query_error(e),
            e => ToolError::new(format!(
                "cannot search the {} store: {e}",
                scoped.scope.as_str()
            )),
        })?;
        notes.extend(outcome.sync.notice());
        if let Some(failure) = &outcome.semantic_failed {
            notes.push(mdagent::semantic::off_because(failure));
            model = None;
        }
        per_store.push((scoped, outcome.hits));
    }
    let now = Timestamp::now();
    let results = mdindex::merge_ranked(per_store, limit)
        .into_iter()
        .map(|(scoped, hit)| {
            // The index keeps no `expires`; a header is a short read.
            let expired = scoped
                .store
                .record_rel_path(&hit.path)
                .and_then(|rel| scoped.store.read_summary(&rel).ok())
                .is_some_and(|s| has_expired(&s.meta, now));
            SearchRow {
                hit: records::hit_json(scoped.scope, &hit),
                expired,
            }
        })
        .collect();
    Ok(SearchAnswer { results, notes })
}

/// Each id read whole, or named as not found; a tool error only when none
/// was found.
pub fn show(config: &Config, params: ShowParams) -> Result<(ShowAnswer, bool), ToolError> {
    let mut ids = params.ids.0;
    let mut seen = std::collections::HashSet::new();
    ids.retain(|id| seen.insert(id.clone()));
    let now = Timestamp::now();
    let mut answer = ShowAnswer {
        records: Vec::new(),
        not_found: Vec::new(),
    };
    for id in ids {
        match records::find(config, &id) {
            Ok((scoped, record)) => answer.records.push(ShownRecord {
                read_hash: read_hash(&record),
                expired: has_expired(&record.meta, now),
                record: records::record_json(&scoped, &record),
            }),
            Err(records::FindError::Stores(e)) => return Err(ToolError::from_error(e)),
            Err(e) => {
                let error = ToolError::from_error(e);
                // The CLI's hint names its commands; an agent has tools.
                let hint = if error.message.starts_with("no record") {
                    Some("the search and list tools give the ids".to_string())
                } else {
                    error.hint
                };
                answer.not_found.push(NotShown {
                    id: shown_value(&id),
                    error: error.message,
                    hint,
                });
            }
        }
    }
    let none_found = answer.records.is_empty();
    Ok((answer, none_found))
}

pub fn list(config: &Config, params: ListParams) -> Result<ListAnswer, ToolError> {
    let wanted = params.record_type.map(|t| t.0);
    let only = params.scope.and_then(|s| s.0);
    let now = Timestamp::now();
    let mut answer = ListAnswer {
        records: Vec::new(),
        skipped: Vec::new(),
    };
    for scoped in read_stores(config)? {
        if only.is_some_and(|scope| scope != scoped.scope) {
            continue;
        }
        let (summaries, not_records) = records::list(&scoped.store, wanted);
        answer
            .skipped
            .extend(not_records.iter().map(|s| SkippedFile {
                path: scoped.store.root().join(&s.rel_path),
                reason: s.reason.to_string(),
            }));
        answer
            .records
            .extend(summaries.iter().map(|s| ListedRecord {
                summary: records::summary_json(&scoped, s),
                expired: has_expired(&s.meta, now),
            }));
    }
    Ok(answer)
}

fn read_stores(config: &Config) -> Result<Vec<ScopedStore>, ToolError> {
    stores::read_stores(config).map_err(ToolError::from_error)
}

const NO_STORE_HINT: &str = "start the server in a project with a `.memory/` folder (`memctl init`), pass --store DIR, or create the global store with `memctl init --global`";

/// A query that cannot be searched for, as `memctl search` says it.
fn query_error(e: QueryError) -> ToolError {
    let hint = mdagent::search::query_hint(&e, false);
    ToolError::new(format!("argument \"query\": {e}")).with_hint(hint)
}
