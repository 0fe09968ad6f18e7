//! Records as both faces give them: found by id in the stores a read
//! covers, listed, and as JSON (the same for `--json` and the MCP server's
//! tools).

use std::path::PathBuf;

use mdindex::Hit;
use mdstore::id::id_key;
use mdstore::store::id_from_rel_path;
use mdstore::view::StoreView;
use mdstore::{Record, RecordType, SkipReason, Skipped, Store, Summary, WalkItem};
use schemars::JsonSchema;
use serde::Serialize;

use crate::stores::{self, Scope, ScopedStore, StoreError};
use crate::{Config, Kind};

/// The most characters of an id echoed in an error message.
const MESSAGE_NAME_CHARS: usize = 40;

/// Why no record `id` can be shown.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    #[error(transparent)]
    Stores(#[from] StoreError),
    /// A file by that name is there but is not a record (too large, a
    /// symlink leading outside, conflict markers…).
    #[error("{}: {}", mdstore::escape::escape_controls(&path.display().to_string()), reason)]
    NotARecord {
        path: std::path::PathBuf,
        reason: SkipReason,
    },
    #[error(
        "no record \"{}\"",
        mdstore::escape::for_message(id, MESSAGE_NAME_CHARS)
    )]
    NoRecord {
        id: String,
        /// The id of a record spelt nearly so ([`near_id`]).
        near: Option<String>,
    },
}

impl FindError {
    pub fn kind(&self) -> Kind {
        match self {
            FindError::Stores(e) => e.kind(),
            FindError::NotARecord { .. } | FindError::NoRecord { .. } => Kind::BadInput,
        }
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            FindError::Stores(e) => e.hint(),
            FindError::NotARecord {
                reason: SkipReason::Conflicted(_),
                ..
            } => Some(
                "edit the file to keep what each side should, remove the markers, then `git add` it"
                    .to_string(),
            ),
            FindError::NotARecord { .. } => Some(NOT_A_RECORD_HINT.to_string()),
            FindError::NoRecord { near: Some(near), .. } => Some(format!(
                "did you mean {}? `memctl list` shows the ids",
                mdstore::escape::for_message(near, MESSAGE_NAME_CHARS)
            )),
            FindError::NoRecord { near: None, .. } => Some(
                "`memctl list` shows the ids; `memctl search` finds them by content".to_string(),
            ),
        }
    }
}

/// Why a file named like a record is not shown.
const NOT_A_RECORD_HINT: &str = "a file or link by that name is there, but only UTF-8 text files of at most 256 KiB inside the store are records; `memctl check` lists every file that is not one";

/// Finds a record by id in the stores a read covers, workspace first.
pub fn find(config: &Config, id: &str) -> Result<(ScopedStore, Record), FindError> {
    let stores = stores::read_stores(config)?;
    for scoped in &stores {
        if let Some(entry) = scoped.store.find(id) {
            let record = scoped
                .store
                .read_record(&entry.rel_path)
                .map_err(|s| not_a_record(&scoped.store, s))?;
            return Ok((scoped.clone(), record));
        }
    }
    if let Some((scoped, skipped)) = stores
        .iter()
        .find_map(|scoped| skipped_record(&scoped.store, id).map(|skipped| (scoped, skipped)))
    {
        return Err(not_a_record(&scoped.store, skipped));
    }
    let ids = stores
        .iter()
        .flat_map(|s| StoreView::load(&s.store).summaries);
    let near = near_id(id, ids.map(|s| s.id));
    Err(FindError::NoRecord {
        id: id.to_string(),
        near,
    })
}

/// The id among `ids` that `typed` most likely misspells, for "did you
/// mean": the closest by Jaro-Winkler similarity (clap's measure for
/// options), if at least 0.8, on the ids' keys (case and width folded).
pub fn near_id(typed: &str, ids: impl IntoIterator<Item = String>) -> Option<String> {
    let typed = id_key(typed);
    ids.into_iter()
        .map(|id| (strsim::jaro_winkler(&typed, &id_key(&id)), id))
        .filter(|(similarity, _)| *similarity >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, id)| id)
}

fn not_a_record(store: &Store, skipped: Skipped) -> FindError {
    FindError::NotARecord {
        path: store.root().join(&skipped.rel_path),
        reason: skipped.reason,
    }
}

/// The file that would be record `id` but is skipped (too large, a symlink
/// leading outside the store…), so that `show` says why rather than "no
/// record".
fn skipped_record(store: &Store, id: &str) -> Option<Skipped> {
    let key = id_key(id);
    store.walk().find_map(|item| match item {
        WalkItem::Skipped(skipped) if id_key(&id_from_rel_path(&skipped.rel_path)) == key => {
            Some(skipped)
        }
        _ => None,
    })
}

/// The headers of a store's records of type `wanted` (all when `None`),
/// sorted by id, and the files skipped as not records.
pub fn list(store: &Store, wanted: Option<RecordType>) -> (Vec<Summary>, Vec<Skipped>) {
    let view = StoreView::load(store);
    let mut summaries = view.summaries;
    summaries.retain(|s| wanted.is_none() || s.record_type() == wanted);
    summaries.sort_by(|a, b| a.id.cmp(&b.id));
    (summaries, view.skipped)
}

/// One record's header as `list --json` and the MCP server's `list` give it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SummaryJson {
    pub id: String,
    pub name: Option<String>,
    #[serde(rename = "type")]
    pub record_type: Option<&'static str>,
    pub scope: &'static str,
    pub path: PathBuf,
    pub description: String,
    pub updated: Option<String>,
    pub revision: u64,
    pub source: &'static str,
    pub tags: Vec<String>,
}

pub fn summary_json(scoped: &ScopedStore, s: &Summary) -> SummaryJson {
    SummaryJson {
        id: s.id.clone(),
        name: s.meta.name.clone(),
        record_type: s.record_type().map(RecordType::as_str),
        scope: scoped.scope.as_str(),
        path: scoped.store.root().join(&s.rel_path),
        description: s.description().to_string(),
        updated: s.meta.updated.map(|t| t.to_string()),
        revision: s.meta.revision.unwrap_or(1),
        source: s.source().as_str(),
        tags: s.meta.tags.clone(),
    }
}

/// A whole record as `show --json` and the MCP server's `show` give it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RecordJson {
    pub id: String,
    pub name: Option<String>,
    #[serde(rename = "type")]
    pub record_type: Option<&'static str>,
    pub scope: &'static str,
    pub path: PathBuf,
    pub description: Option<String>,
    pub body: String,
    pub created: Option<String>,
    pub updated: Option<String>,
    pub revision: u64,
    pub source: &'static str,
    pub expires: Option<String>,
    pub tags: Vec<String>,
    pub merged_from: Vec<String>,
    pub problems: Vec<ProblemJson>,
}

/// What `check` would say of a record, with the line it is on.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ProblemJson {
    pub line: Option<usize>,
    pub message: String,
}

pub fn record_json(scoped: &ScopedStore, record: &Record) -> RecordJson {
    let meta = &record.meta;
    RecordJson {
        id: record.id.clone(),
        name: meta.name.clone(),
        record_type: meta.record_type.map(RecordType::as_str),
        scope: scoped.scope.as_str(),
        path: scoped.store.root().join(&record.rel_path),
        description: meta.description.clone(),
        body: record.body.clone(),
        created: meta.created.map(|t| t.to_string()),
        updated: meta.updated.map(|t| t.to_string()),
        revision: meta.revision.unwrap_or(1),
        source: record.source().as_str(),
        expires: meta.expires.clone(),
        tags: meta.tags.clone(),
        merged_from: meta.merged_from.clone(),
        problems: record
            .problems
            .iter()
            .map(|p| ProblemJson {
                line: p.line,
                message: p.message.clone(),
            })
            .collect(),
    }
}

/// One hit as `search --json` and the MCP server's `search` give it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HitJson {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub record_type: Option<String>,
    pub scope: &'static str,
    pub path: PathBuf,
    pub description: String,
    /// The matched words between `[` and `]`.
    pub snippet: String,
    pub score: f64,
    pub updated: Option<String>,
    pub age_days: Option<i64>,
    /// As `show` and `list` say, and `--expect-revision` accepts.
    pub revision: u64,
    pub source: String,
}

pub fn hit_json(scope: Scope, h: &Hit) -> HitJson {
    HitJson {
        id: h.id.clone(),
        name: h.name.clone(),
        record_type: h.record_type.map(|t| t.as_str().to_string()),
        scope: scope.as_str(),
        path: h.path.clone(),
        description: h.description.clone(),
        snippet: h.snippet.bracketed(),
        score: h.score,
        updated: h.updated.clone(),
        age_days: h.age_days,
        revision: h.revision.unwrap_or(1),
        source: h.source.as_str().to_string(),
    }
}
