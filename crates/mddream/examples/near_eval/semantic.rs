//! With `NEAR_EVAL_MODEL=DIR` (an installed mdembed model): each labelled
//! pair's cosine, and precision and recall of the rules with a semantic
//! second check (issue 18 item 3), in three variants, over a range of
//! cosine thresholds `t`:
//! - *rules OR meaning*: the rules' merges, and every LSH candidate pair
//!   whose cosine is at least `t` (what the vectors could add to recall);
//! - *guarded OR meaning*: the rules' merges, and the candidate pairs that
//!   pass every rule but the word floor (values, negations, one word
//!   replaced, a shared word) whose cosine is at least `t`;
//! - *rules AND meaning*: the rules' merges whose cosine is at least `t`
//!   (what the vectors could add to precision);
//! - *guards AND meaning*: the candidate pairs that pass every rule but the
//!   word floor whose cosine is at least `t` (meaning in the word floor's
//!   place).

use std::error::Error;
use std::path::Path;

use mddream::gather::{NEAR_THRESHOLD, near_candidates};
use mdembed::{Model, cosine};

use super::{Pair, Verdict, ratio, record, verdict};

/// The word floor of the guarded variant: every rule but the Jaccard one.
const GUARDED_FLOOR: f64 = 0.0;

/// Cosine thresholds measured.
const STEPS: [f32; 10] = [0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95];

/// What one pair is, for every variant.
struct Scored<'a> {
    pair: &'a Pair,
    cosine: f32,
    candidate: bool,
    rules: bool,
    guarded: bool,
}

pub fn open(dir: &Path) -> Result<Model, Box<dyn Error>> {
    Ok(Model::open(dir)?)
}

pub fn evaluate(pairs: &[Pair], model: &Model) -> Result<(), Box<dyn Error>> {
    let texts: Vec<&str> = pairs.iter().flat_map(|p| [&p.a[..], &p.b[..]]).collect();
    let vectors = model.embed_batch(&texts)?;
    let scored: Vec<Scored> = pairs
        .iter()
        .zip(vectors.chunks(2))
        .map(|(pair, v)| {
            let records = [
                record("a", &pair.a, "2026-03-01T00:00:00Z"),
                record("b", &pair.b, "2026-03-02T00:00:00Z"),
            ];
            Scored {
                pair,
                cosine: cosine(&v[0], &v[1]),
                candidate: !near_candidates(&records).is_empty(),
                rules: verdict(pair, NEAR_THRESHOLD) == Verdict::Merge,
                guarded: verdict(pair, GUARDED_FLOOR) == Verdict::Merge,
            }
        })
        .collect();
    distribution(&scored);
    println!(
        "\n| variant | t | precision | recall | English precision / recall | CJK precision / recall | different facts merged | corrections merged |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    row("rules alone", "-", &scored, |s| s.rules);
    type Variant = (&'static str, fn(&Scored, f32) -> bool);
    let variants: [Variant; 4] = [
        ("rules OR meaning", |s, t| {
            s.rules || (s.candidate && s.cosine >= t)
        }),
        ("guarded OR meaning", |s, t| {
            s.rules || (s.guarded && s.cosine >= t)
        }),
        ("rules AND meaning", |s, t| s.rules && s.cosine >= t),
        ("guards AND meaning", |s, t| s.guarded && s.cosine >= t),
    ];
    for (name, merges) in variants {
        for t in STEPS {
            row(name, &format!("{t:.2}"), &scored, |s| merges(s, t));
        }
    }
    if std::env::var_os("NEAR_EVAL_MISSES").is_some() {
        highest_wrong(&scored);
    }
    Ok(())
}

/// One table row: the variant's figures over all pairs, English and CJK.
fn row(name: &str, t: &str, scored: &[Scored], merges: impl Fn(&Scored) -> bool) {
    let figures = |in_group: &dyn Fn(&Pair) -> bool| {
        let chosen = || scored.iter().filter(|s| in_group(s.pair));
        let tp = chosen()
            .filter(|s| s.pair.label == "duplicate" && merges(s))
            .count();
        let fp = chosen()
            .filter(|s| s.pair.label != "duplicate" && merges(s))
            .count();
        let positives = chosen().filter(|s| s.pair.label == "duplicate").count();
        (ratio(tp, tp + fp), ratio(tp, positives))
    };
    let (p, r) = figures(&|_| true);
    let (en_p, en_r) = figures(&|p| p.lang == "en");
    let (cjk_p, cjk_r) = figures(&|p| p.lang != "en");
    let merged_of = |label: &str| {
        let of: Vec<&Scored> = scored.iter().filter(|s| s.pair.label == label).collect();
        let merged = of.iter().filter(|s| merges(s)).count();
        format!("{merged}/{}", of.len())
    };
    println!(
        "| {name} | {t} | {p} | {r} | {en_p} / {en_r} | {cjk_p} / {cjk_r} | {} | {} |",
        merged_of("different"),
        merged_of("correction"),
    );
}

/// The cosines of each label and language: lowest, median, highest, and
/// how many pairs the LSH makes candidates of.
fn distribution(scored: &[Scored]) {
    println!("| label | language | pairs | LSH candidates | cosine min | median | max |");
    println!("|---|---|---|---|---|---|---|");
    for label in ["duplicate", "different", "correction"] {
        for (lang, is) in [("en", true), ("CJK", false)] {
            let mut of: Vec<&Scored> = scored
                .iter()
                .filter(|s| s.pair.label == label && (s.pair.lang == "en") == is)
                .collect();
            if of.is_empty() {
                continue;
            }
            of.sort_by(|x, y| x.cosine.total_cmp(&y.cosine));
            let candidates = of.iter().filter(|s| s.candidate).count();
            println!(
                "| {label} | {lang} | {} | {candidates} | {:.3} | {:.3} | {:.3} |",
                of.len(),
                of[0].cosine,
                of[of.len() / 2].cosine,
                of[of.len() - 1].cosine
            );
        }
    }
}

/// With `NEAR_EVAL_MISSES=1`: the ten non-duplicates of highest cosine
/// among the LSH candidates (what a semantic accept would merge first),
/// and the duplicates the rules miss, with their cosines (on stderr).
fn highest_wrong(scored: &[Scored]) {
    let mut wrong: Vec<&Scored> = scored
        .iter()
        .filter(|s| s.pair.label != "duplicate" && s.candidate)
        .collect();
    wrong.sort_by(|x, y| y.cosine.total_cmp(&x.cosine));
    for s in wrong.iter().take(10) {
        let p = s.pair;
        eprintln!(
            "high-cosine {} ({} {:.3} guarded={}): {:?} / {:?}",
            p.label, p.lang, s.cosine, s.guarded, p.a, p.b
        );
    }
    for s in scored
        .iter()
        .filter(|s| s.pair.label == "duplicate" && !s.rules)
    {
        let p = s.pair;
        eprintln!(
            "rules miss ({} {:.3} candidate={} guarded={}): {:?} / {:?}",
            p.lang, s.cosine, s.candidate, s.guarded, p.a, p.b
        );
    }
}
