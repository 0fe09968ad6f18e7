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
/// the caller should say on the side (a temporary index, a model that
/// failed). With `semantic`, those that pass are ordered by words and
/// meaning fused; which pass is still decided by words.
pub fn recall(
    stores: &[ScopedStore],
    query: &mdindex::query::Query,
    mut semantic: Option<mdindex::Semantic<'_>>,
    ask: &Ask<'_>,
    now: jiff::Timestamp,
    warnings: &mut Vec<String>,
) -> Result<Vec<Recalled>, ContextError> {
    let cache = mdindex::cache_dir_from_env();
    let mut per_store: Vec<(&ScopedStore, Vec<Hit>)> = Vec::new();
    let limit = candidates(ask.max);
    for scoped in stores {
        let (store, progress) = (&scoped.store, &mut |_| {});
        let outcome = match semantic {
            Some(semantic) => mdindex::hybrid_recall_store(
                store, &cache, query, limit, &THRESHOLD, semantic, progress,
            ),
            None => mdindex::recall_store(store, &cache, query, limit, &THRESHOLD, progress),
        }
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
        if let Some(failure) = &outcome.semantic_failed {
            // Said once: the other stores are searched by words alone.
            warnings.push(format!(
                "semantic matching is off: {failure}; searching words only"
            ));
            semantic = None;
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
    // Merged over every candidate, then cut to `max` after reading: a hit
    // whose record has expired (or went away) leaves its place to the next.
    let now = jiff::Timestamp::now();
    Ok(mdindex::merge_ranked(per_store, candidates(ask.max))
        .into_iter()
        .filter_map(|(scoped, hit)| read::recalled(scoped, hit, now))
        .take(ask.max)
        .collect())
}
