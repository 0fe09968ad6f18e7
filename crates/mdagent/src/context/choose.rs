//! Choosing the records for a prompt: each store's hits that pass the
//! relevance threshold (`mdindex::relevance`), merged across stores, none
//! already shown this session and none expired (SPEC §8: `dream` retires an
//! expired record later; until then it is not current, so never shown).

use mdindex::Hit;
use mdindex::relevance::THRESHOLD;

use super::{Ask, ContextError, Recalled, candidates, key, read};
use crate::stores::ScopedStore;

/// The records of `stores` that pass the relevance threshold for `query`,
/// best first, at most `ask.max`, none already shown; `warnings` gets what
/// the caller should say on the side (a temporary index).
pub fn recall(
    stores: &[ScopedStore],
    query: &mdindex::query::Query,
    ask: &Ask<'_>,
    now: jiff::Timestamp,
    warnings: &mut Vec<String>,
) -> Result<Vec<Recalled>, ContextError> {
    let cache = mdindex::cache_dir_from_env();
    let mut per_store: Vec<(&ScopedStore, Vec<Hit>)> = Vec::new();
    for scoped in stores {
        let outcome = mdindex::recall_store(
            &scoped.store,
            &cache,
            query,
            candidates(ask.max),
            &THRESHOLD,
            &mut |_| {},
        )
        .map_err(|source| ContextError::Search {
            scope: scoped.scope.as_str(),
            root: scoped.store.root().to_path_buf(),
            source: Box::new(source),
        })?;
        if let Some(why) = &outcome.temporary_index {
            warnings.push(format!(
                "the index of the {} store cannot be kept in the cache folder ({why}); answered from a temporary index, rebuilt for every prompt",
                scoped.scope.as_str()
            ));
        }
        let relevant = outcome
            .hits
            .into_iter()
            .filter(|hit| {
                !ask.already_shown
                    .contains(&key(scoped.scope.as_str(), &hit.id))
                    && read::is_current(scoped, hit, now)
            })
            .collect();
        per_store.push((scoped, relevant));
    }
    Ok(mdindex::merge_ranked(per_store, ask.max)
        .into_iter()
        .filter_map(|(scoped, hit)| read::recalled(scoped, hit))
        .collect())
}
