//! The tools that only read: `search`, `show` and `list`, with the same
//! library calls and the same JSON as `memctl search|show|list --json`.

use mdindex::query::QueryError;
use mdstore::RecordType;
use serde_json::{Value, json};

use mdagent::Config;
use mdagent::records;
use mdagent::stores::{self, Scope};

use super::args::{Args, MAX_TEXT_BYTES, ToolError};

pub const SEARCH_FIELDS: &[&str] = &["query", "scope", "type", "limit"];
pub const SHOW_FIELDS: &[&str] = &["id"];
pub const LIST_FIELDS: &[&str] = &["type", "scope"];

const TYPES: &[&str] = &["user", "feedback", "project", "reference"];
const SCOPES: &[&str] = &["workspace", "global", "all"];

/// The most hits one search returns.
pub const MAX_LIMIT: u64 = 100;

pub fn search(config: &Config, args: &Args) -> Result<Value, ToolError> {
    // A query pasted from a prompt may span lines, as a shell argument may.
    let text = args
        .text("query", MAX_TEXT_BYTES, true)?
        .ok_or_else(|| ToolError::new("argument \"query\" is required"))?;
    let types: Vec<RecordType> = record_type(args)?.into_iter().collect();
    let limit = args.integer("limit", 1, MAX_LIMIT)?.unwrap_or(10) as usize;
    let query = mdagent::search::parse(&text, &types).map_err(query_error)?;
    let asked: Option<&[Scope]> = args
        .choice("scope", SCOPES)?
        .map(|scope| match scope.as_str() {
            "workspace" => &[Scope::Workspace][..],
            "global" => &[Scope::Global][..],
            _ => &[Scope::Workspace, Scope::Global][..],
        });
    let wanted = mdagent::search::wanted_scopes(asked, &query);
    let stores: Vec<_> = read_stores(config)?
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
        .map(|(scope, hit)| records::hit_json(*scope, hit))
        .collect();
    Ok(json!({ "results": results, "notes": notes }))
}

pub fn show(config: &Config, args: &Args) -> Result<Value, ToolError> {
    let id = args.required_text("id", MAX_TEXT_BYTES)?;
    let (scoped, record) = records::find(config, &id).map_err(|e| {
        let error = ToolError::from_error(e);
        // The CLI's hint names its commands; an agent has tools.
        if error.message.starts_with("no record") {
            error.with_hint("the search and list tools give the ids")
        } else {
            error
        }
    })?;
    Ok(records::record_json(&scoped, &record))
}

pub fn list(config: &Config, args: &Args) -> Result<Value, ToolError> {
    let wanted = record_type(args)?;
    let scope = args.choice("scope", SCOPES)?;
    let mut listed = Vec::new();
    let mut skipped = Vec::new();
    for scoped in read_stores(config)? {
        if scope
            .as_deref()
            .is_some_and(|s| s != "all" && s != scoped.scope.as_str())
        {
            continue;
        }
        let (summaries, not_records) = records::list(&scoped.store, wanted);
        skipped.extend(not_records.iter().map(|s| {
            json!({
                "path": scoped.store.root().join(&s.rel_path),
                "reason": s.reason.to_string(),
            })
        }));
        listed.extend(summaries.iter().map(|s| records::summary_json(&scoped, s)));
    }
    Ok(json!({ "records": listed, "skipped": skipped }))
}

fn record_type(args: &Args) -> Result<Option<RecordType>, ToolError> {
    Ok(args
        .choice("type", TYPES)?
        .and_then(|t| RecordType::parse(&t)))
}

fn read_stores(config: &Config) -> Result<Vec<stores::ScopedStore>, ToolError> {
    stores::read_stores(config).map_err(ToolError::from_error)
}

const NO_STORE_HINT: &str = "start the server in a project with a `.memory/` folder (`memctl init`), pass --store DIR, or create the global store with `memctl init --global`";

/// A query that cannot be searched for, as `memctl search` says it.
fn query_error(e: QueryError) -> ToolError {
    let hint = mdagent::search::query_hint(&e, false);
    ToolError::new(format!("argument \"query\": {e}")).with_hint(hint)
}
