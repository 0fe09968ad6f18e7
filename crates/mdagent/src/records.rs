//! Records as both faces give them: found by id in the stores a read
//! covers, listed, and as JSON (the same for `--json` and the MCP server's
//! tools).

use mdindex::Hit;
use mdstore::id::id_key;
use mdstore::store::id_from_rel_path;
use mdstore::view::StoreView;
use mdstore::{Record, RecordType, SkipReason, Skipped, Store, Summary, WalkItem};
use serde_json::{Value, json};

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
    NoRecord { id: String },
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
            FindError::NoRecord { .. } => Some(
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
    Err(FindError::NoRecord { id: id.to_string() })
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
pub fn summary_json(scoped: &ScopedStore, s: &Summary) -> Value {
    json!({
        "id": s.id,
        "name": s.meta.name,
        "type": s.record_type().map(RecordType::as_str),
        "scope": scoped.scope.as_str(),
        "path": scoped.store.root().join(&s.rel_path),
        "description": s.description(),
        "updated": s.meta.updated.map(|t| t.to_string()),
        "revision": s.meta.revision.unwrap_or(1),
        "source": s.source().as_str(),
        "tags": s.meta.tags,
    })
}

/// A whole record as `show --json` and the MCP server's `show` give it.
pub fn record_json(scoped: &ScopedStore, record: &Record) -> Value {
    let meta = &record.meta;
    json!({
        "id": record.id,
        "name": meta.name,
        "type": meta.record_type.map(RecordType::as_str),
        "scope": scoped.scope.as_str(),
        "path": scoped.store.root().join(&record.rel_path),
        "description": meta.description,
        "body": record.body,
        "created": meta.created.map(|t| t.to_string()),
        "updated": meta.updated.map(|t| t.to_string()),
        "revision": meta.revision.unwrap_or(1),
        "source": record.source().as_str(),
        "expires": meta.expires,
        "tags": meta.tags,
        "merged_from": meta.merged_from,
        "problems": record.problems.iter().map(|p| json!({"line": p.line, "message": p.message})).collect::<Vec<_>>(),
    })
}

/// One hit as `search --json` and the MCP server's `search` give it.
pub fn hit_json(scope: Scope, h: &Hit) -> Value {
    json!({
        "id": h.id,
        "name": h.name,
        "type": h.record_type,
        "scope": scope.as_str(),
        "path": h.path,
        "description": h.description,
        "snippet": h.snippet.bracketed(),
        "score": h.score,
        "updated": h.updated,
        "age_days": h.age_days,
        // As `show` and `list` say, and `--expect-revision` accepts.
        "revision": h.revision.unwrap_or(1),
        "source": h.source,
    })
}
