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
use mdagent::search::{self, SearchError};
use mdagent::stores::{self, Scope, ScopedStore};
use mdindex::{Progress, RebuildReport};

use super::answers::{
    ListAnswer, ListedRecord, NotShown, SearchAnswer, SearchRow, ShowAnswer, ShownRecord,
    SkippedFile,
};
use super::args::{ToolError, shown_value};
use super::params::{ListParams, SearchParams, ShowParams};

pub fn search(config: &Config, params: SearchParams) -> Result<SearchAnswer, ToolError> {
    let types: Vec<_> = params.record_type.map(|t| t.0).into_iter().collect();
    let scopes: Option<&[Scope]> = params.scope.map(|scope| match scope.0 {
        Some(Scope::Workspace) => &[Scope::Workspace][..],
        Some(Scope::Global) => &[Scope::Global][..],
        None => &[Scope::Workspace, Scope::Global][..],
    });
    let request = search::Request {
        text: &params.query.0,
        types: &types,
        limit: params.limit.map_or(10, |l| l.0) as usize,
        scopes,
    };
    // As `memctl search`, what it would say on the way is the answer's notes.
    let mut notes = Notes(Vec::new());
    let found = search::search(config, &request, &mut notes).map_err(search_error)?;
    let now = Timestamp::now();
    let results = found
        .hits
        .into_iter()
        .map(|(scope, hit)| SearchRow {
            hit: records::hit_json(scope, &hit),
            expired: hit.has_expired(now),
        })
        .collect();
    Ok(SearchAnswer {
        results,
        notes: notes.0,
    })
}

/// What a search says on the way, kept for the answer.
struct Notes(Vec<String>);

impl search::Face for Notes {
    fn progress(&mut self, _: Progress) {}

    fn searched(&mut self, _: &ScopedStore, _: Option<&RebuildReport>) {}

    fn warn(&mut self, line: &str) {
        self.0.push(line.to_string());
    }
}

fn search_error(e: SearchError) -> ToolError {
    match e {
        SearchError::Query(e) => query_error(e),
        SearchError::NoStore { .. } => {
            ToolError::new("no store to search").with_hint(NO_STORE_HINT)
        }
        SearchError::Stores(e) => ToolError::from_error(e),
        SearchError::Store { scope, source, .. } => ToolError::new(format!(
            "cannot search the {} store: {source}",
            scope.as_str()
        )),
    }
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
    let hint = search::query_hint(&e, false);
    ToolError::new(format!("argument \"query\": {e}")).with_hint(hint)
}
