//! Choosing the records for a prompt: each store's hits that pass the
//! relevance threshold (`mdindex::relevance`), merged across stores, none
//! already shown this session and none expired (SPEC §8: `dream` retires an
//! expired record later; until then it is not current, so never shown).

use mdindex::Hit;
use mdindex::relevance::THRESHOLD;

use super::{Ask, ContextError, Recalled, candidates, key, meaning, read};
use crate::Config;
use crate::stores::ScopedStore;

/// The records of `stores` that pass the relevance threshold for `query`,
/// best first, at most `ask.max`, none already shown; `warnings` gets what
/// the caller should say on the side (a temporary index, a model that
/// failed). Which records pass is decided by words; with semantic matching
/// on, meaning then orders each store's records ([`order_by_meaning`]).
pub fn recall(
    config: &Config,
    stores: &[ScopedStore],
    query: &mdindex::query::Query,
    prompt: &str,
    ask: &Ask<'_>,
    now: jiff::Timestamp,
    warnings: &mut Vec<String>,
) -> Result<Vec<Recalled>, ContextError> {
    let cache = config.cache_dir();
    let mut per_store: Vec<(&ScopedStore, Vec<Hit>)> = Vec::new();
    let mut in_cache = Vec::new();
    let mut words_pass = false;
    let limit = candidates(ask.max);
    for scoped in stores {
        let outcome =
            mdindex::recall_store(&scoped.store, cache, query, limit, &THRESHOLD, &mut |_| {})
                .map_err(|source| search_error(scoped, source))?;
        if let Some(why) = &outcome.temporary_index {
            warnings.push(format!(
                "the index of the {} store cannot be kept in the cache folder ({why}); answered from a temporary index, rebuilt for every prompt",
                scoped.scope.as_str()
            ));
        }
        in_cache.push(outcome.temporary_index.is_none());
        words_pass |= !outcome.hits.is_empty();
        per_store.push((scoped, outcome.hits));
    }
    // A store whose index lives in no cache folder would have every
    // record embedded again for every prompt: the words decide there.
    if in_cache.iter().all(|&kept| kept) && !stores.is_empty() {
        if let Some(model) = crate::semantic::in_force(config, warnings) {
            judge_by_meaning(
                config,
                &mut per_store,
                &model,
                query,
                prompt,
                words_pass,
                limit,
                ask.background_budget,
                warnings,
            );
        }
    } else {
        order_by_meaning(config, &mut per_store, &in_cache, prompt, warnings);
    }
    for (scoped, hits) in &mut per_store {
        hits.retain(|hit| {
            !ask.already_shown
                .contains(&key(scoped.scope.as_str(), &hit.id))
                && read::is_current(hit, now)
        });
    }
    // Merged over every candidate, then cut to `max` after reading: a hit
    // whose record has expired (or went away) leaves its place to the next.
    Ok(mdindex::merge_ranked(per_store, candidates(ask.max))
        .into_iter()
        .filter_map(|(scoped, hit)| read::recalled(scoped, hit, now))
        .take(ask.max)
        .collect())
}

/// With semantic matching on, whether the prompt deserves any record is
/// judged by meaning and words together ([`meaning::GATE`]): when it
/// does, each store's records are those of words and meaning fused (as
/// `search` ranks them); when it does not, none. When the model or an
/// index fails (said in `warnings`), the words alone have decided and
/// `per_store` is as they left it.
#[allow(clippy::too_many_arguments)]
fn judge_by_meaning(
    config: &Config,
    per_store: &mut [(&ScopedStore, Vec<Hit>)],
    model: &mdembed::Model,
    query: &mdindex::query::Query,
    prompt: &str,
    words_pass: bool,
    limit: usize,
    background_budget: Option<std::time::Duration>,
    warnings: &mut Vec<String>,
) {
    let stores: Vec<&ScopedStore> = per_store.iter().map(|(scoped, _)| *scoped).collect();
    // One budget for the request: the records without a vector first,
    // then the background, whatever is left of it.
    let deadline = background_budget.map(|budget| std::time::Instant::now() + budget);
    let judged = judge(
        config, &stores, model, query, prompt, words_pass, limit, deadline,
    );
    let judged = judged.and_then(|mut judgement| {
        let left = deadline.map(|d| d.saturating_duration_since(std::time::Instant::now()));
        let background = meaning::background_vectors(model, config.cache_dir(), left)?;
        judgement.to_background = meaning::to_background(&judgement.prompt, &background);
        Ok(judgement)
    });
    match judged {
        Ok(judgement) => {
            let passes = judgement.passes();
            for ((_, hits), fused) in per_store.iter_mut().zip(judgement.fused) {
                *hits = if passes { fused } else { Vec::new() };
            }
        }
        Err(why) => warnings.push(crate::semantic::off_because(why)),
    }
}

/// What the encoder's judgement reads for a prompt ([`judge`]).
pub struct Judgement {
    /// The prompt's best cosine to any record of the stores (their stored
    /// vectors, `mdindex::semantic`).
    pub closest: f32,
    /// Its best cosines to the background, best first (empty until
    /// [`meaning::background_vectors`] gives the background).
    pub to_background: Vec<f32>,
    /// The prompt's vector.
    pub prompt: mdembed::Embedding,
    /// Whether the words alone pass (`mdindex::relevance::THRESHOLD`).
    pub words_pass: bool,
    /// Each store's records, words and meaning fused, best first.
    pub fused: Vec<Vec<Hit>>,
}

impl Judgement {
    /// Whether the prompt deserves records ([`meaning::GATE`]).
    pub fn passes(&self) -> bool {
        meaning::GATE.passes(self.closest, &self.to_background, self.words_pass)
    }
}

/// What the judgement by meaning reads for `prompt` over `stores`, and
/// each store's records of words and meaning fused (at most `limit`);
/// why not, when the model or an index failed, or when `deadline` passed
/// while records were being embedded (`mdindex::Semantic::deadline`).
#[allow(clippy::too_many_arguments)]
pub fn judge(
    config: &Config,
    stores: &[&ScopedStore],
    model: &mdembed::Model,
    query: &mdindex::query::Query,
    prompt: &str,
    words_pass: bool,
    limit: usize,
    deadline: Option<std::time::Instant>,
) -> Result<Judgement, String> {
    let cache = config.cache_dir();
    let semantic = mdindex::Semantic {
        model,
        text: prompt,
        deadline,
    };
    let mut fused = Vec::new();
    let mut closest = f32::MIN;
    for scoped in stores {
        let outcome = mdindex::hybrid_search_store(
            &scoped.store,
            cache,
            query,
            limit,
            &[],
            semantic,
            &mut |_| {},
        )
        .map_err(|e| format!("the {} store: {e}", scoped.scope.as_str()))?;
        if let Some(failure) = outcome.semantic_failed {
            return Err(failure.to_string());
        }
        closest = closest.max(outcome.closest.unwrap_or(f32::MIN));
        fused.push(outcome.hits);
    }
    let vector = model.embed(prompt).map_err(|e| e.to_string())?;
    Ok(Judgement {
        closest,
        to_background: Vec::new(),
        prompt: vector,
        words_pass,
        fused,
    })
}

/// Puts each store's records in the order of words and meaning fused
/// (`mdindex::rerank_store`), when semantic matching is on and a store has
/// two records or more to order: only then is the model loaded (about
/// 12 ms, beside a hook's 5 to 15 ms). A store whose index lives in no cache
/// folder (`in_cache` false) keeps the order of words: its vectors would
/// be embedded again for every prompt. A model that fails is said once,
/// and the stores not yet ordered keep the order of words.
fn order_by_meaning(
    config: &Config,
    per_store: &mut [(&ScopedStore, Vec<Hit>)],
    in_cache: &[bool],
    prompt: &str,
    warnings: &mut Vec<String>,
) {
    let to_order = |hits: &Vec<Hit>, kept: bool| kept && hits.len() >= 2;
    if !per_store
        .iter()
        .zip(in_cache)
        .any(|((_, hits), &kept)| to_order(hits, kept))
    {
        return;
    }
    let Some(model) = crate::semantic::in_force(config, warnings) else {
        return;
    };
    let semantic = mdindex::Semantic {
        model: &model,
        text: prompt,
        deadline: None,
    };
    for ((scoped, hits), &kept) in per_store.iter_mut().zip(in_cache) {
        if !to_order(hits, kept) {
            continue;
        }
        match mdindex::rerank_store(&scoped.store, config.cache_dir(), hits.clone(), semantic) {
            Ok(Some(Ok((ordered, _)))) => *hits = ordered,
            Ok(Some(Err(failure))) => {
                warnings.push(crate::semantic::off_because(failure));
                return;
            }
            // The index went away since the words were searched.
            Ok(None) => {}
            // Found since the words were searched; the next prompt rebuilds.
            Err(e) => warnings.push(format!(
                "the {} store's records are in the order of words: {e}",
                scoped.scope.as_str()
            )),
        }
    }
}

fn search_error(scoped: &ScopedStore, source: mdindex::Error) -> ContextError {
    ContextError::Search {
        scope: scoped.scope.as_str(),
        root: scoped.store.root().to_path_buf(),
        source: Box::new(source),
    }
}
