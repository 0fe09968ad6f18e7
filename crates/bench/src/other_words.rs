//! Questions asked in other words (issue 14 item 4, docs/RETRIEVAL.md):
//! `fixtures/other-words/`, a long project store and questions written
//! without the records' words. `memctl search` (through the library, as
//! the command searches) against plain FTS5 BM25 on the same records.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use mdstore::{RecordType, Store, WalkItem};

use crate::candidates::{Candidate, Candidates};
use crate::context::EvalStore;
use crate::eval::{Doc, System, SystemIndex};

/// Results looked at: recall@10.
pub const DEPTH: usize = 10;

/// `crates/bench/fixtures/other-words/`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/other-words")
}

/// One question of `questions.json`.
#[derive(Clone, Debug)]
pub struct Question {
    pub text: String,
    /// Every record that helps: any of them counts as a hit.
    pub relevant: Vec<String>,
    /// `single`, `multi` or `when`.
    pub kind: String,
    /// The records an answer requires.
    pub needs: Vec<String>,
    /// Which half of the split it is in ([`Half`]).
    pub half: Half,
}

/// The split made before any ranking candidate was run (issue 14 item 4):
/// within each kind, in the file's order, the 1st, 3rd, 5th… question of
/// that kind tunes and the 2nd, 4th, 6th… is held out. Candidates are
/// chosen on [`Half::Tune`] only; [`Half::HeldOut`] says whether the choice
/// carries over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Half {
    Tune,
    HeldOut,
}

impl Half {
    /// The half of the `nth` (from 0) question of its kind.
    pub fn of_nth_in_kind(nth: usize) -> Half {
        if nth.is_multiple_of(2) {
            Half::Tune
        } else {
            Half::HeldOut
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Half::Tune => "tune",
            Half::HeldOut => "held out",
        }
    }
}

/// The kinds of question, in the order the tables show them.
pub const KINDS: [&str; 3] = ["single", "multi", "when"];

/// The questions of `path`; a missing or mistyped field, an unknown kind,
/// or a `needs` outside `relevant` is an error naming the question.
pub fn questions(path: &Path) -> anyhow::Result<Vec<Question>> {
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a JSON array", path.display()))?;
    let mut seen_of_kind = std::collections::HashMap::<String, usize>::new();
    rows.iter()
        .enumerate()
        .map(|(at, row)| {
            let mut q =
                question(row).with_context(|| format!("{}: question {at}", path.display()))?;
            let nth = seen_of_kind.entry(q.kind.clone()).or_default();
            q.half = Half::of_nth_in_kind(*nth);
            *nth += 1;
            Ok(q)
        })
        .collect()
}

fn question(row: &serde_json::Value) -> anyhow::Result<Question> {
    let ids = |field: &str| -> anyhow::Result<Vec<String>> {
        row[field]
            .as_array()
            .with_context(|| format!("no `{field}` list"))?
            .iter()
            .map(|id| {
                id.as_str()
                    .map(str::to_string)
                    .with_context(|| format!("a `{field}` id that is not a string"))
            })
            .collect()
    };
    let kind = row["kind"].as_str().context("no `kind`")?;
    anyhow::ensure!(
        KINDS.contains(&kind),
        "`kind` {kind:?} is none of {KINDS:?}"
    );
    let q = Question {
        text: row["question"]
            .as_str()
            .context("no `question` text")?
            .to_string(),
        relevant: ids("relevant")?,
        kind: kind.to_string(),
        needs: ids("needs")?,
        half: Half::Tune,
    };
    anyhow::ensure!(!q.relevant.is_empty(), "an empty `relevant` list");
    if let Some(id) = q.needs.iter().find(|id| !q.relevant.contains(id)) {
        anyhow::bail!("`needs` names {id:?}, which `relevant` does not");
    }
    Ok(q)
}

/// The store's records as the baseline indexes them: the raw text of id,
/// name, description, tags (space-separated) and body. The files the store
/// skips (ours does not index them either) are left out. A record without
/// a `type` is an error unless `untyped_as` gives one (real folders have
/// such records; the type does not take part in ranking).
pub fn docs(store: &Store, untyped_as: Option<RecordType>) -> anyhow::Result<Vec<Doc>> {
    let mut docs = Vec::new();
    for item in store.walk() {
        let WalkItem::Record(entry) = item else {
            continue;
        };
        let record = store
            .read_entry(&entry)
            .map_err(|skipped| anyhow::anyhow!("{}: {skipped:?}", entry.rel_path.display()))?;
        let kind = record
            .meta
            .record_type
            .or(untyped_as)
            .with_context(|| format!("{}: no `type`", record.rel_path.display()))?;
        docs.push(Doc {
            id: record.id.clone(),
            kind,
            name: record.meta.name.clone().unwrap_or_default(),
            description: record.meta.description.clone().unwrap_or_default(),
            tags: record.meta.tags.join(" "),
            body: record.body.clone(),
        });
    }
    Ok(docs)
}

/// Recall and reciprocal rank of one system on some questions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Scores {
    pub questions: usize,
    /// Share with a relevant record in the first 5.
    pub recall_at_5: f64,
    /// Share with a relevant record in the first 10.
    pub recall_at_10: f64,
    /// Mean reciprocal rank of the first relevant record within 10.
    pub mrr_at_10: f64,
    /// Share with at least one of `needs` in the first 10.
    pub any_need_at_10: f64,
    /// Share with every one of `needs` in the first 10.
    pub all_needs_at_10: f64,
}

/// Scores of the rankings `rank` gives each question (ids, best first).
pub fn score<'q>(
    questions: impl IntoIterator<Item = &'q Question>,
    mut rank: impl FnMut(&str) -> anyhow::Result<Vec<String>>,
) -> anyhow::Result<Scores> {
    let mut s = Scores::default();
    for q in questions {
        let ranked = rank(&q.text)?;
        let top = &ranked[..ranked.len().min(DEPTH)];
        s.questions += 1;
        if let Some(at) = top.iter().position(|id| q.relevant.contains(id)) {
            s.recall_at_10 += 1.0;
            s.mrr_at_10 += 1.0 / (at + 1) as f64;
            s.recall_at_5 += f64::from(u8::from(at < 5));
        }
        s.any_need_at_10 += f64::from(u8::from(q.needs.iter().any(|n| top.contains(n))));
        s.all_needs_at_10 += f64::from(u8::from(q.needs.iter().all(|n| top.contains(n))));
    }
    let n = s.questions.max(1) as f64;
    for share in [
        &mut s.recall_at_5,
        &mut s.recall_at_10,
        &mut s.mrr_at_10,
        &mut s.any_need_at_10,
        &mut s.all_needs_at_10,
    ] {
        *share /= n;
    }
    Ok(s)
}

/// The two systems over one store: ours (`memctl search`'s own index and
/// query) and plain BM25 on the same records.
pub struct Systems {
    pub ours: EvalStore,
    pub baseline: SystemIndex,
    /// Ours in memory with the ranking candidates (crate::candidates).
    pub candidates: Candidates,
    ids: Vec<String>,
}

impl Systems {
    /// The systems over the store at `store_dir`, every record typed.
    pub fn new(store_dir: &Path) -> anyhow::Result<Systems> {
        Systems::with_untyped(store_dir, None)
    }

    /// [`Systems::new`], records without a `type` taken as `untyped_as`.
    pub fn with_untyped(
        store_dir: &Path,
        untyped_as: Option<RecordType>,
    ) -> anyhow::Result<Systems> {
        let ours = EvalStore::new(store_dir, &[])?;
        let docs = docs(&ours.store, untyped_as)?;
        let baseline = SystemIndex::build(System::Baseline, &docs)?;
        let candidates = Candidates::new(&docs)?;
        let ids = docs.into_iter().map(|d| d.id).collect();
        Ok(Systems {
            ours,
            baseline,
            candidates,
            ids,
        })
    }

    /// `memctl search --limit 10 QUESTION`'s ids.
    pub fn rank_ours(&self, question: &str) -> anyhow::Result<Vec<String>> {
        self.ours.search(question, DEPTH)
    }

    /// `memctl search --limit 10 QUESTION`'s ids with `model` on.
    pub fn rank_hybrid(
        &self,
        question: &str,
        model: &mdembed::Model,
    ) -> anyhow::Result<Vec<String>> {
        self.ours.search_hybrid(question, DEPTH, model)
    }

    /// Plain BM25's ids.
    pub fn rank_baseline(&self, question: &str) -> anyhow::Result<Vec<String>> {
        Ok(self.ids_of(self.baseline.rank(question, DEPTH)?))
    }

    /// The ids `candidate` ranks first.
    pub fn rank_candidate(
        &self,
        question: &str,
        candidate: Candidate,
    ) -> anyhow::Result<Vec<String>> {
        Ok(self.ids_of(self.candidates.rank(question, candidate, DEPTH)?))
    }

    fn ids_of(&self, docs: Vec<usize>) -> Vec<String> {
        docs.into_iter()
            .filter_map(|doc| self.ids.get(doc).cloned())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_question_names_records_of_the_store_and_ours_finds_some() {
        let fixtures = fixtures();
        let questions = questions(&fixtures.join("questions.json")).unwrap();
        assert!(questions.len() >= 100, "{}", questions.len());
        for q in &questions {
            for id in &q.relevant {
                assert!(
                    fixtures.join("store").join(format!("{id}.md")).is_file(),
                    "{id} in {:?}",
                    q.text
                );
            }
        }
        let systems = Systems::new(&fixtures.join("store")).unwrap();
        let ours = score(&questions, |q| systems.rank_ours(q)).unwrap();
        let base = score(&questions, |q| systems.rank_baseline(q)).unwrap();
        // Not a target: both must find something, or the harness is broken.
        assert!(
            ours.recall_at_10 > 0.2 && base.recall_at_10 > 0.2,
            "{ours:?} {base:?}"
        );
    }

    #[test]
    fn scores_count_any_relevant_and_all_needs_within_ten() {
        let q = |relevant: &[&str], needs: &[&str]| Question {
            text: relevant.join(" "),
            relevant: relevant.iter().map(|s| s.to_string()).collect(),
            kind: "multi".into(),
            needs: needs.iter().map(|s| s.to_string()).collect(),
            half: Half::Tune,
        };
        let questions = [q(&["a", "b"], &["a", "b"]), q(&["c"], &["c"])];
        let ranked = |text: &str| -> anyhow::Result<Vec<String>> {
            let mut ids: Vec<String> = (0..12).map(|i| format!("x{i}")).collect();
            if text == "a b" {
                ids[5] = "b".into();
                ids[11] = "a".into();
            }
            Ok(ids)
        };
        let s = score(&questions, ranked).unwrap();
        assert_eq!(s.questions, 2);
        assert_eq!((s.recall_at_5, s.recall_at_10), (0.0, 0.5));
        assert_eq!(s.mrr_at_10, 1.0 / 6.0 / 2.0);
        assert_eq!((s.any_need_at_10, s.all_needs_at_10), (0.5, 0.0));
    }

    #[test]
    fn each_kind_is_split_alternately_in_file_order() {
        let questions = questions(&fixtures().join("questions.json")).unwrap();
        for kind in KINDS {
            let halves: Vec<Half> = questions
                .iter()
                .filter(|q| q.kind == kind)
                .map(|q| q.half)
                .collect();
            for (nth, half) in halves.iter().enumerate() {
                assert_eq!(*half, Half::of_nth_in_kind(nth), "{kind} {nth}");
            }
            let tune = halves.iter().filter(|h| **h == Half::Tune).count();
            assert_eq!(tune, halves.len().div_ceil(2), "{kind}");
        }
    }

    #[test]
    fn a_question_whose_needs_are_not_relevant_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("questions.json");
        std::fs::write(
            &path,
            r#"[{"question": "q", "relevant": ["a"], "kind": "single", "needs": ["a"]},
                {"question": "q", "relevant": ["a"], "kind": "single", "needs": ["b"]}]"#,
        )
        .unwrap();
        let err = format!("{:#}", questions(&path).unwrap_err());
        assert!(err.contains("question 1") && err.contains("\"b\""), "{err}");
    }
}
