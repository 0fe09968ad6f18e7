//! Reading what is shown: a store's `MEMORY.md`, and a chosen record's
//! text from its file, with secrets kept from the agent, whose context may
//! be logged or sent on.

use std::path::Path;

use jiff::Timestamp;
use mdindex::{Hit, Index};
use mdstore::catalog;
use mdstore::expiry::has_expired;
use mdstore::redact::{self, Keep};
use mdstore::view::StoreView;
use mdstore::{Store, Summary};

use super::render::freshness;
use super::{Catalogue, ContextError, Recalled};
use crate::stores::ScopedStore;

/// A store's catalogue as an agent is shown it at session start: its
/// `MEMORY.md` without the lines of records expired at `now`, or, when the
/// store has no `MEMORY.md` (hand-written records, a clone whose
/// `MEMORY.md` was deleted), one rendered from the current records as
/// `MEMORY.md` would be. `None` when neither holds any text.
pub fn catalogue(
    cache: &Path,
    scoped: &ScopedStore,
    now: Timestamp,
) -> Result<Option<Catalogue>, ContextError> {
    let path = scoped.store.catalog_path();
    let bytes = mdstore::catalog::disk::read_bounded(&path)
        .map_err(|source| ContextError::ReadCatalogue { path, source })?;
    let on_disk = bytes
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .filter(|text| !text.trim().is_empty());
    let text = match on_disk {
        Some(text) => {
            let expired: Vec<String> = headers(cache, &scoped.store, Headers::Expiring)
                .iter()
                .filter(|s| has_expired(&s.meta, now))
                .map(|s| format!("]({})", catalog::link_target(&s.rel_path)))
                .collect();
            text.lines()
                .filter(|line| !expired.iter().any(|link| line.contains(link.as_str())))
                .map(|line| format!("{line}\n"))
                .collect()
        }
        None => {
            let current: Vec<Summary> = headers(cache, &scoped.store, Headers::All)
                .into_iter()
                .filter(|s| !has_expired(&s.meta, now))
                .collect();
            if current.is_empty() {
                return Ok(None);
            }
            catalog::render(&current, catalog::Budget::default()).text
        }
    };
    // memctl's own first line says the file is generated: nothing an
    // agent needs.
    let text = match text.split_once('\n') {
        Some((_, rest)) if catalog::disk::is_generated(&text) => rest.to_string(),
        _ => text,
    };
    if text.trim().is_empty() {
        return Ok(None);
    }
    Ok(Some(Catalogue {
        scope: scoped.scope.as_str(),
        text: redact::lines(&text, Keep::Nothing),
    }))
}

/// Which headers [`headers`] reads.
#[derive(Clone, Copy)]
enum Headers {
    /// Only those of records that carry an `expires`.
    Expiring,
    All,
}

/// Records' headers as they are now: from the search index (synced first:
/// cheap with a watcher, a stat of every file without, built when missing,
/// as the first prompt would build it), else, when the cache folder cannot
/// hold one, from the files themselves.
fn headers(cache: &Path, store: &Store, which: Headers) -> Vec<Summary> {
    let from_index = || -> Result<Vec<Summary>, mdindex::Error> {
        let mut index = Index::open(store, cache, &mut |_| {})?.index;
        index.sync()?;
        match which {
            Headers::Expiring => index.expiring(),
            Headers::All => index.summaries(),
        }
    };
    from_index().unwrap_or_else(|_| StoreView::load(store).summaries)
}

/// Whether a hit's record is still current at `now`, by the `expires` the
/// index holds (synced with the files just before the search): no file is
/// read for a candidate that may not be shown.
pub fn is_current(hit: &Hit, now: Timestamp) -> bool {
    !hit.has_expired(now)
}

/// A hit as shown, its content read from the file (`None` if the file
/// went away since the search, or if its `expires` has passed at `now`: a
/// record that no longer holds is never recalled as if it did).
pub fn recalled(scoped: &ScopedStore, hit: Hit, now: Timestamp) -> Option<Recalled> {
    let rel = scoped.store.record_rel_path(&hit.path)?;
    let record = scoped.store.read_record(&rel).ok()?;
    if has_expired(&record.meta, now) {
        return None;
    }
    let body = record.body.trim();
    let mut content = if body.is_empty() {
        hit.description.clone()
    } else {
        format!("{}\n\n{body}", hit.description)
    };
    // A hand-written record may hold a secret (`check` reports it); it is
    // never handed to an agent.
    if let Some(found) = mdstore::guard::secrets::find_secrets(&content).first() {
        content = format!(
            "(The text of this record is not shown: it looks like it holds a secret ({found}). \
             Run `memctl check` to find it.)"
        );
    }
    Some(Recalled {
        source: hit.source.as_str().to_string(),
        id: hit.id,
        record_type: hit.record_type.map(|t| t.as_str().to_string()),
        age_days: hit.age_days,
        freshness: freshness(hit.age_days),
        content,
        scope: scoped.scope.as_str(),
    })
}
