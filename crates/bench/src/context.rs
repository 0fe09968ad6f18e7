//! The evaluation of `memctl context`'s relevance judgement
//! (`src/bin/context_eval.rs`, docs/CONTEXT.md): a store of realistic
//! records and labelled prompts, written by hand, in `fixtures/context/`.
//! Each prompt names the records that would help with it, or none.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use mdindex::query::Query;
use mdindex::relevance::{self, Evidence, Threshold};
use mdstore::Store;

/// Records shown at most (`--max`'s default).
pub const SHOWN: usize = mdagent::context::DEFAULT_MAX;

/// Hits weighed for each prompt before the judgement, as `memctl context`
/// asks the index for them.
fn candidates() -> usize {
    mdagent::context::candidates(SHOWN)
}

/// The fixtures folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/context")
}

/// One labelled prompt.
#[derive(Clone, Debug)]
pub struct Prompt {
    pub text: String,
    /// Ids of the records that would help; empty when none would.
    pub relevant: Vec<String>,
    pub lang: String,
    /// A long prompt with pasted code, logs or a stack trace.
    pub long: bool,
    /// Where it falls: even positions are the dev half, odd the held-out half.
    pub dev: bool,
}

/// The labelled prompts of `fixtures/context/prompts.json`.
pub fn prompts(fixtures: &Path) -> anyhow::Result<Vec<Prompt>> {
    let path = fixtures.join("prompts.json");
    let text = std::fs::read_to_string(&path).with_context(|| path.display().to_string())?;
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text)?;
    rows.iter()
        .enumerate()
        .map(|(at, row)| {
            let text = row["prompt"].as_str().context("a prompt without text")?;
            let relevant = row["relevant"]
                .as_array()
                .context("a prompt without `relevant`")?
                .iter()
                .filter_map(|id| id.as_str().map(str::to_string))
                .collect();
            Ok(Prompt {
                text: text.to_string(),
                relevant,
                lang: row["lang"].as_str().unwrap_or("en").to_string(),
                long: row["long"].as_bool().unwrap_or(false),
                dev: at % 2 == 0,
            })
        })
        .collect()
}

/// A copy of the fixture store (plus `extra` generated records, to see
/// the judgement in a larger store) with its index built.
pub struct EvalStore {
    _dir: tempfile::TempDir,
    pub store: Store,
    pub cache: PathBuf,
}

impl EvalStore {
    pub fn new(fixtures: &Path, extra: &[(String, String)]) -> anyhow::Result<EvalStore> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().join("store");
        let store = Store::create(&root)?;
        for entry in std::fs::read_dir(fixtures.join("store"))? {
            let entry = entry?;
            std::fs::copy(entry.path(), root.join(entry.file_name()))?;
        }
        for (name, text) in extra {
            std::fs::write(root.join(format!("{name}.md")), text)?;
        }
        let cache = dir.path().join("cache");
        Ok(EvalStore {
            _dir: dir,
            store,
            cache,
        })
    }

    /// The candidates for `prompt`, best first, with their evidence.
    pub fn judge(&self, prompt: &str) -> anyhow::Result<Vec<(String, Evidence)>> {
        self.ask(prompt, &|store, cache, query| {
            mdindex::search_store_with_evidence(store, cache, query, candidates(), &mut |_| {})
        })
    }

    /// What `memctl context` shows for `prompt` under `threshold`: the
    /// records [`mdindex::recall_store`] passes, best first, with their
    /// evidence (the words too common to decide left out of the ranking).
    pub fn recall(
        &self,
        prompt: &str,
        threshold: &Threshold,
    ) -> anyhow::Result<Vec<(String, Evidence)>> {
        self.ask(prompt, &|store, cache, query| {
            mdindex::recall_store(store, cache, query, candidates(), threshold, &mut |_| {})
        })
    }

    /// The ids and evidence `search` gives for `prompt` as a query.
    fn ask(&self, prompt: &str, search: &Search<'_>) -> anyhow::Result<Vec<(String, Evidence)>> {
        let Some(query) = relevance::prompt_query(prompt) else {
            return Ok(Vec::new());
        };
        let outcome = search(&self.store, &self.cache, &query)?;
        Ok(outcome
            .hits
            .into_iter()
            .map(|h| h.id)
            .zip(outcome.evidence)
            .collect())
    }
}

/// One way of searching an evaluation store.
type Search<'a> = dyn Fn(&Store, &Path, &Query) -> mdindex::Result<mdindex::SearchOutcome> + 'a;

/// What one prompt brought under a threshold.
pub fn shown<'a>(candidates: &'a [(String, Evidence)], threshold: &Threshold) -> Vec<&'a str> {
    candidates
        .iter()
        .filter(|(_, e)| e.passes(threshold))
        .take(SHOWN)
        .map(|(id, _)| id.as_str())
        .collect()
}

/// hit@5 and quiet rate over some judged prompts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Figures {
    /// Prompts with a relevant record.
    pub with: usize,
    /// Share of those where a relevant record was among those shown.
    pub hit_at_5: f64,
    /// Prompts without one.
    pub without: usize,
    /// Share of those that brought nothing.
    pub quiet: f64,
    /// Records shown on average, per prompt with a relevant record.
    pub shown_per_prompt: f64,
}

/// The figures of `judged` (a prompt and its candidates) under `threshold`.
pub fn figures<'a>(
    judged: impl IntoIterator<Item = &'a (Prompt, Vec<(String, Evidence)>)>,
    threshold: &Threshold,
) -> Figures {
    let (mut with, mut hits, mut without, mut quiet, mut shown_total) = (0, 0, 0, 0, 0);
    for (prompt, candidates) in judged {
        let shown = shown(candidates, threshold);
        if prompt.relevant.is_empty() {
            without += 1;
            quiet += usize::from(shown.is_empty());
        } else {
            with += 1;
            shown_total += shown.len();
            hits += usize::from(
                shown
                    .iter()
                    .any(|id| prompt.relevant.iter().any(|r| r == id)),
            );
        }
    }
    let share = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    Figures {
        with,
        hit_at_5: share(hits, with),
        without,
        quiet: share(quiet, without),
        shown_per_prompt: share(shown_total, with),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_label_names_a_record_of_the_fixture_store() {
        let fixtures = fixtures();
        let prompts = prompts(&fixtures).unwrap();
        assert!(prompts.len() >= 100, "{}", prompts.len());
        let without = prompts.iter().filter(|p| p.relevant.is_empty()).count();
        let foreign = prompts.iter().filter(|p| p.lang != "en").count();
        assert!(without * 3 >= prompts.len() - 2, "{without}");
        assert!(foreign * 3 >= prompts.len() - 2, "{foreign}");
        for prompt in &prompts {
            for id in &prompt.relevant {
                let file = fixtures.join("store").join(format!("{id}.md"));
                assert!(file.is_file(), "{id} in {:?}", prompt.text);
            }
        }
    }

    #[test]
    fn the_chosen_threshold_meets_the_targets_on_the_held_out_half_through_recall() {
        let fixtures = fixtures();
        let store = EvalStore::new(&fixtures, &[]).unwrap();
        let judged: Vec<_> = prompts(&fixtures)
            .unwrap()
            .into_iter()
            .filter(|p| !p.dev)
            .map(|p| {
                let shown = store.recall(&p.text, &relevance::THRESHOLD).unwrap();
                (p, shown)
            })
            .collect();
        let figures = figures(&judged, &relevance::THRESHOLD);
        assert!(figures.hit_at_5 >= 0.9, "{figures:?}");
        assert!(figures.quiet >= 0.8, "{figures:?}");
    }
}
