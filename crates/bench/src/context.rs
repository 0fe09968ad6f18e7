//! The evaluation of `memctl context`'s relevance judgement
//! (docs/CONTEXT.md): labelled prompts, each naming the records of its
//! store that would help with it, or none; a store copied and asked through
//! the library as the commands ask it; and the figures. The old development
//! set is `fixtures/context/` (`src/bin/context_eval.rs`); the sets of issue
//! 14 are found by [`crate::sets`].

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use mdindex::query::Query;
use mdindex::relevance::{self, Evidence, Threshold};
use mdstore::Store;

/// Records shown at most (`--max`'s default).
pub const SHOWN: usize = mdagent::context::DEFAULT_MAX;

/// Hits weighed for each prompt before the judgement, as `memctl context`
/// asks the index for them.
pub const CANDIDATES: usize = mdagent::context::candidates(SHOWN);

/// The old development set's folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/context")
}

/// What a prompt of the issue-14 sets is (`kind` in `prompts.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// The user may use the record's own words.
    Direct,
    /// The need, phrased without the record's identifiers and rare terms.
    Paraphrase,
    /// An everyday request in the project's vocabulary that no record speaks to.
    Negative,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Direct, Kind::Paraphrase, Kind::Negative];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Direct => "direct",
            Kind::Paraphrase => "paraphrase",
            Kind::Negative => "negative",
        }
    }

    fn parse(text: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.as_str() == text)
    }
}

/// One labelled prompt.
#[derive(Clone, Debug)]
pub struct Prompt {
    pub text: String,
    /// Ids of the records that would help; empty when none would.
    pub relevant: Vec<String>,
    pub lang: String,
    /// `None` in the old development set, which has no `kind`.
    pub kind: Option<Kind>,
    /// A long prompt with pasted code, logs or a stack trace.
    pub long: bool,
    /// Where it falls: even positions are the dev half, odd the held-out half.
    pub dev: bool,
}

/// The labelled prompts of a `prompts.json`: an array of `{prompt,
/// relevant[], lang, kind?, long?}`. A missing or mistyped field is an
/// error naming the file, the prompt's position and the field.
pub fn prompts(path: &Path) -> anyhow::Result<Vec<Prompt>> {
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a JSON array", path.display()))?;
    rows.iter()
        .enumerate()
        .map(|(at, row)| {
            prompt(row, at).with_context(|| format!("{}: prompt {at}", path.display()))
        })
        .collect()
}

fn prompt(row: &serde_json::Value, at: usize) -> anyhow::Result<Prompt> {
    let text = row["prompt"].as_str().context("no `prompt` text")?;
    let relevant = row["relevant"]
        .as_array()
        .context("no `relevant` list")?
        .iter()
        .map(|id| {
            id.as_str()
                .map(str::to_string)
                .context("a `relevant` id that is not a string")
        })
        .collect::<anyhow::Result<_>>()?;
    let kind = match &row["kind"] {
        serde_json::Value::Null => None,
        value => {
            let name = value.as_str().context("a `kind` that is not a string")?;
            Some(Kind::parse(name).with_context(|| {
                format!("`kind` {name:?} is none of direct, paraphrase, negative")
            })?)
        }
    };
    let lang = match &row["lang"] {
        serde_json::Value::Null => "en",
        value => value.as_str().context("a `lang` that is not a string")?,
    };
    let long = match &row["long"] {
        serde_json::Value::Null => false,
        value => value
            .as_bool()
            .context("a `long` that is not true or false")?,
    };
    Ok(Prompt {
        text: text.to_string(),
        relevant,
        lang: lang.to_string(),
        kind,
        long,
        dev: at.is_multiple_of(2),
    })
}

/// Files a fixture folder holds about where it came from, not from the
/// user's memory folder (tests/fixtures/claude-memory/README.md): left out
/// of the copy, so that the store is the folder as its user has it.
const PROVENANCE: [&str; 2] = ["LICENSE", "SOURCE.md"];

/// Copies the store folder `from` into `to` (created), every file and
/// folder but the top-level [`PROVENANCE`] files; returns the files copied.
pub fn copy_store(from: &Path, to: &Path) -> anyhow::Result<usize> {
    let mut copied = 0;
    for entry in walkdir::WalkDir::new(from).sort_by_file_name() {
        let entry = entry.with_context(|| format!("cannot list {}", from.display()))?;
        let rel = entry.path().strip_prefix(from)?;
        let target = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target)
                .with_context(|| format!("cannot create {}", target.display()))?;
        } else if !(entry.depth() == 1 && PROVENANCE.iter().any(|p| rel == Path::new(p))) {
            std::fs::copy(entry.path(), &target).with_context(|| {
                format!(
                    "cannot copy {} to {}",
                    entry.path().display(),
                    target.display()
                )
            })?;
            copied += 1;
        }
    }
    Ok(copied)
}

/// A copy of a fixture store (plus `extra` generated records, to see the
/// judgement in a larger store) with its own cache folder, asked through
/// the library as `memctl search` and `memctl context` ask.
pub struct EvalStore {
    _dir: tempfile::TempDir,
    pub store: Store,
    pub cache: PathBuf,
}

impl EvalStore {
    pub fn new(store_dir: &Path, extra: &[(String, String)]) -> anyhow::Result<EvalStore> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().join("store");
        copy_store(store_dir, &root)?;
        let store = Store::create(&root)?;
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

    /// The first `candidates` hits for `prompt`, best first, with their
    /// evidence: the full ranking, for judging many thresholds at once.
    pub fn judge(
        &self,
        prompt: &str,
        candidates: usize,
    ) -> anyhow::Result<Vec<(String, Evidence)>> {
        self.ask(prompt, &|store, cache, query| {
            mdindex::search_store_with_evidence(store, cache, query, candidates, &mut |_| {})
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
            mdindex::recall_store(store, cache, query, CANDIDATES, threshold, &mut |_| {})
        })
    }

    /// What `memctl search --limit LIMIT PROMPT` returns: the prompt read
    /// as the query language, as the command reads its argument; a query
    /// the command refuses (only stop words, say) returns nothing.
    pub fn search(&self, prompt: &str, limit: usize) -> anyhow::Result<Vec<String>> {
        let Ok(query) = mdindex::query::parse(prompt) else {
            return Ok(Vec::new());
        };
        match mdindex::search_store(&self.store, &self.cache, &query, limit, &[], &mut |_| {}) {
            Ok(outcome) => Ok(outcome.hits.into_iter().map(|h| h.id).collect()),
            Err(mdindex::Error::Query(_)) => Ok(Vec::new()),
            Err(e) => Err(e.into()),
        }
    }

    /// [`EvalStore::search`] with semantic matching on: what `memctl
    /// search` returns with `model` named (issue 18).
    pub fn search_hybrid(
        &self,
        prompt: &str,
        limit: usize,
        model: &mdembed::Model,
    ) -> anyhow::Result<Vec<String>> {
        let Ok(query) = mdindex::query::parse(prompt) else {
            return Ok(Vec::new());
        };
        let semantic = mdindex::Semantic {
            model,
            text: prompt,
            deadline: None,
        };
        let (store, cache) = (&self.store, &self.cache);
        match mdindex::hybrid_search_store(store, cache, &query, limit, &[], semantic, &mut |_| {})
        {
            Ok(outcome) => match outcome.semantic_failed {
                Some(failure) => Err(failure.into()),
                None => Ok(outcome.hits.into_iter().map(|h| h.id).collect()),
            },
            Err(mdindex::Error::Query(_)) => Ok(Vec::new()),
            Err(e) => Err(e.into()),
        }
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

/// What one prompt brought under a threshold: nothing when its first
/// candidate does not stand out ([`Threshold::admits`]).
pub fn shown<'a>(candidates: &'a [(String, Evidence)], threshold: &Threshold) -> Vec<&'a str> {
    if candidates
        .first()
        .is_some_and(|(_, top)| !threshold.admits(top))
    {
        return Vec::new();
    }
    candidates
        .iter()
        .filter(|(_, e)| e.passes(threshold))
        .take(SHOWN)
        .map(|(id, _)| id.as_str())
        .collect()
}

/// hit@5, quiet and records shown over some prompts.
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
    /// Records shown on average, per prompt without one.
    pub shown_per_negative: f64,
}

impl Figures {
    /// The figures of prompts and what each brought (at most [`SHOWN`]
    /// records each, best first).
    pub fn of<'a, S: AsRef<str> + 'a>(
        rows: impl IntoIterator<Item = (&'a Prompt, &'a [S])>,
    ) -> Figures {
        let (mut with, mut hits, mut shown_with) = (0, 0, 0);
        let (mut without, mut quiet, mut shown_without) = (0, 0, 0);
        for (prompt, shown) in rows {
            if prompt.relevant.is_empty() {
                without += 1;
                quiet += usize::from(shown.is_empty());
                shown_without += shown.len();
            } else {
                with += 1;
                shown_with += shown.len();
                hits += usize::from(
                    shown
                        .iter()
                        .any(|id| prompt.relevant.iter().any(|r| r == id.as_ref())),
                );
            }
        }
        let share = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
        Figures {
            with,
            hit_at_5: share(hits, with),
            without,
            quiet: share(quiet, without),
            shown_per_prompt: share(shown_with, with),
            shown_per_negative: share(shown_without, without),
        }
    }
}

/// The figures of `judged` (a prompt and its candidates) under `threshold`.
pub fn figures<'a>(
    judged: impl IntoIterator<Item = &'a (Prompt, Vec<(String, Evidence)>)>,
    threshold: &Threshold,
) -> Figures {
    let shown: Vec<(&Prompt, Vec<&str>)> = judged
        .into_iter()
        .map(|(prompt, candidates)| (prompt, shown(candidates, threshold)))
        .collect();
    Figures::of(shown.iter().map(|(p, s)| (*p, s.as_slice())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_label_names_a_record_of_the_fixture_store() {
        let fixtures = fixtures();
        let prompts = prompts(&fixtures.join("prompts.json")).unwrap();
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

    /// What docs/CONTEXT.md ("Real folders: after") reports for the rule in
    /// use through recall on each labelled set: hit@5 and quiet. Issue 14's
    /// targets (0.9 and 0.8) are not met on these sets (CONTEXT.md says by
    /// how much and why); this pins what is, so that no change lowers it
    /// unseen.
    /// Each figure is the reported one, to three places, less 0.001.
    const REPORTED: [(&str, f64, f64); 5] = [
        ("real/en-js2", 0.916, 0.166),
        ("real/ja-resonite", 0.928, 0.074),
        ("own/ko", 0.816, 0.210),
        ("own/zh", 0.804, 0.224),
        ("context", 0.919, 0.817),
    ];

    #[test]
    fn the_rule_in_use_keeps_the_figures_reported_for_every_labelled_set_through_recall() {
        let found = crate::sets::find(&crate::sets::fixtures_root()).unwrap();
        for (name, hit, quiet) in REPORTED {
            let Some(set) = found.sets.iter().find(|s| s.name == name) else {
                println!("SKIPPED: {name} (its prompts or store are absent)");
                continue;
            };
            let store = EvalStore::new(&set.store, &[]).unwrap();
            let shown: Vec<(&Prompt, Vec<String>)> = set
                .prompts
                .iter()
                .map(|p| {
                    let recalled = store.recall(&p.text, &relevance::THRESHOLD).unwrap();
                    (
                        p,
                        recalled.into_iter().take(SHOWN).map(|(id, _)| id).collect(),
                    )
                })
                .collect();
            let figures = Figures::of(shown.iter().map(|(p, ids)| (*p, ids.as_slice())));
            assert!(figures.hit_at_5 >= hit, "{name}: {figures:?}");
            assert!(figures.quiet >= quiet, "{name}: {figures:?}");
        }
    }
}
