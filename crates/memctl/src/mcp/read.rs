//! The tools that only read: `search`, `show` and `list`, with the same
//! library calls and the same JSON as `memctl search|show|list --json`.

use mdindex::query::{self, QueryError};
use mdstore::RecordType;
use mdstore::view::StoreView;
use serde_json::{Value, json};

use super::args::{Args, MAX_TEXT_BYTES, ToolError};
use crate::cli::GlobalArgs;
use crate::cmd;
use crate::stores::{self, Scope};

pub const SEARCH_FIELDS: &[&str] = &["query", "scope", "type", "limit"];
pub const SHOW_FIELDS: &[&str] = &["id"];
pub const LIST_FIELDS: &[&str] = &["type", "scope"];

const TYPES: &[&str] = &["user", "feedback", "project", "reference"];
const SCOPES: &[&str] = &["workspace", "global", "all"];

/// The most hits one search returns.
pub const MAX_LIMIT: u64 = 100;

pub fn search(global: &GlobalArgs, args: &Args) -> Result<Value, ToolError> {
    // A query pasted from a prompt may span lines, as a shell argument may.
    let text = args
        .text("query", MAX_TEXT_BYTES, true)?
        .ok_or_else(|| ToolError::new("argument \"query\" is required"))?;
    let types: Vec<RecordType> = record_type(args)?.into_iter().collect();
    let limit = args.integer("limit", 1, MAX_LIMIT)?.unwrap_or(10) as usize;
    let query = query::parse(&text)
        .and_then(|query| query.ensure_selective(&types).map(|()| query))
        .map_err(query_error)?;
    let wanted = match args.choice("scope", SCOPES)?.as_deref() {
        Some("workspace") => vec![Scope::Workspace],
        Some("global") => vec![Scope::Global],
        Some(_) => vec![Scope::Workspace, Scope::Global],
        None if query.scopes.is_empty() => vec![Scope::Workspace, Scope::Global],
        None => query
            .scopes
            .iter()
            .map(|s| match s {
                query::Scope::Workspace => Scope::Workspace,
                query::Scope::Global => Scope::Global,
            })
            .collect(),
    };
    let stores: Vec<_> = read_stores(global)?
        .into_iter()
        .filter(|s| wanted.contains(&s.scope))
        .collect();
    if stores.is_empty() {
        return Err(ToolError::new("no store to search").with_hint(NO_STORE_HINT));
    }
    let cache = mdindex::cache_dir_from_env();
    let mut per_store = Vec::new();
    let mut notes = Vec::new();
    for scoped in &stores {
        let outcome =
            mdindex::search_store(&scoped.store, &cache, &query, limit, &types, &mut |_| {})
                .map_err(|e| match e {
                    mdindex::Error::Query(e) => query_error(e),
                    e => ToolError::new(format!(
                        "cannot search the {} store: {e}",
                        scoped.scope.as_str()
                    )),
                })?;
        notes.extend(outcome.sync.notice());
        per_store.push((scoped.scope, outcome.hits));
    }
    let hits = mdindex::merge_ranked(per_store, limit);
    let results: Vec<Value> = hits
        .iter()
        .map(|(scope, hit)| cmd::search::hit_json(*scope, hit))
        .collect();
    Ok(json!({ "results": results, "notes": notes }))
}

pub fn show(global: &GlobalArgs, args: &Args) -> Result<Value, ToolError> {
    let id = args.required_text("id", MAX_TEXT_BYTES)?;
    let (scoped, record) = cmd::read::find_record(global, &id).map_err(|e| {
        let error = ToolError::from_anyhow(&e);
        // The CLI's hint names its commands; an agent has tools.
        if error.message.starts_with("no record") {
            error.with_hint("the search and list tools give the ids")
        } else {
            error
        }
    })?;
    Ok(cmd::read::record_json(&scoped, &record))
}

pub fn list(global: &GlobalArgs, args: &Args) -> Result<Value, ToolError> {
    let wanted = record_type(args)?;
    let scope = args.choice("scope", SCOPES)?;
    let mut records = Vec::new();
    let mut skipped = Vec::new();
    for scoped in read_stores(global)? {
        if scope
            .as_deref()
            .is_some_and(|s| s != "all" && s != scoped.scope.as_str())
        {
            continue;
        }
        let view = StoreView::load(&scoped.store);
        skipped.extend(view.skipped.iter().map(|s| {
            json!({
                "path": scoped.store.root().join(&s.rel_path),
                "reason": s.reason.to_string(),
            })
        }));
        let mut summaries = view.summaries;
        summaries.sort_by(|a, b| a.id.cmp(&b.id));
        records.extend(
            summaries
                .iter()
                .filter(|s| wanted.is_none() || s.record_type() == wanted)
                .map(|s| cmd::read::summary_json(&scoped, s)),
        );
    }
    Ok(json!({ "records": records, "skipped": skipped }))
}

fn record_type(args: &Args) -> Result<Option<RecordType>, ToolError> {
    Ok(args
        .choice("type", TYPES)?
        .and_then(|t| RecordType::parse(&t)))
}

fn read_stores(global: &GlobalArgs) -> Result<Vec<stores::ScopedStore>, ToolError> {
    stores::read_stores(global).map_err(|e| ToolError::from_anyhow(&e))
}

const NO_STORE_HINT: &str = "start the server in a project with a `.memory/` folder (`memctl init`), pass --store DIR, or create the global store with `memctl init --global`";

/// A query that cannot be searched for, as `memctl search` says it.
fn query_error(e: QueryError) -> ToolError {
    let hint = match &e {
        QueryError::NothingToSearch => {
            "give a word or a phrase to search for, or a filter such as `type:project`".to_string()
        }
        QueryError::UnknownFilterValue { filter, value, .. } => {
            format!("to search for the text itself, quote it: \"{filter}:{value}\"")
        }
    };
    ToolError::new(format!("argument \"query\": {e}")).with_hint(hint)
}
