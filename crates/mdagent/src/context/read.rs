//! Reading what is shown: a store's `MEMORY.md`, and a chosen record's
//! text from its file, with secrets kept from the agent, whose context may
//! be logged or sent on.

use mdindex::Hit;
use mdstore::redact::{self, Keep};

use super::render::freshness;
use super::{Catalogue, ContextError, Recalled};
use crate::stores::ScopedStore;

/// A store's `MEMORY.md`, if it has one with any text.
pub fn catalogue(scoped: &ScopedStore) -> Result<Option<Catalogue>, ContextError> {
    let path = scoped.store.catalog_path();
    let bytes = mdstore::catalog::disk::read_bounded(&path)
        .map_err(|source| ContextError::ReadCatalogue { path, source })?;
    Ok(bytes
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        // memctl's own first line says the file is generated: nothing an
        // agent needs.
        .map(|text| match text.split_once('\n') {
            Some((_, rest)) if mdstore::catalog::disk::is_generated(&text) => rest.to_string(),
            _ => text,
        })
        .filter(|text| !text.trim().is_empty())
        .map(|text| redact::lines(&text, Keep::Nothing))
        .map(|text| Catalogue {
            scope: scoped.scope.as_str(),
            text,
        }))
}

/// A hit as shown, its content read from the file (`None` if the file
/// went away since the search).
pub fn recalled(scoped: &ScopedStore, hit: Hit) -> Option<Recalled> {
    let rel = scoped.store.record_rel_path(&hit.path)?;
    let record = scoped.store.read_record(&rel).ok()?;
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
        source: hit.source,
        id: hit.id,
        record_type: hit.record_type,
        age_days: hit.age_days,
        freshness: freshness(hit.age_days),
        content,
        scope: scoped.scope.as_str(),
    })
}
