//! Precision and recall of the near-duplicate and correction gatherers on
//! labelled pairs, per threshold: the tables in docs/DREAM.md. With no
//! argument it reads both sets, tests/fixtures/near_pairs.jsonl (tuned on)
//! and tests/fixtures/near_pairs_2.jsonl (held out); else the files named.
//!
//! `cargo run --release -p mddream --example near_eval [FILE.jsonl…]`;
//! with `NEAR_EVAL_MISSES=1` it also lists what the chosen threshold gets
//! wrong (on stderr). With `NEAR_EVAL_MODEL=DIR` (an installed mdembed
//! model) it also measures a semantic second check ([`semantic`]).
#![forbid(unsafe_code)]

mod semantic;

use std::error::Error;
use std::path::PathBuf;

use jiff::Timestamp;
use mddream::gather::{GatherOptions, NEAR_THRESHOLD, gather_with};
use mddream::plan::{Finding, Operation, Scope};
use mddream::records::DreamRecord;
use mdstore::frontmatter::Frontmatter;
use mdstore::{Meta, Record, RecordType, Source};
use serde_json::Value;

struct Pair {
    lang: String,
    label: String,
    a: String,
    b: String,
}

/// What the rules proposed for one pair.
#[derive(PartialEq)]
enum Verdict {
    Merge,
    Correction,
    Nothing,
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        paths = vec![
            fixtures.join("near_pairs.jsonl"),
            fixtures.join("near_pairs_2.jsonl"),
        ];
    }
    let model = match std::env::var_os("NEAR_EVAL_MODEL") {
        Some(dir) => Some(semantic::open(std::path::Path::new(&dir))?),
        None => None,
    };
    for path in paths {
        println!("## {}\n", path.display());
        let pairs = read_pairs(&path)?;
        evaluate(&pairs);
        if let Some(model) = &model {
            println!("\nWith the semantic check:\n");
            semantic::evaluate(&pairs, model)?;
        }
        println!();
    }
    Ok(())
}

fn evaluate(pairs: &[Pair]) {
    let cjk = pairs.iter().filter(|p| p.lang != "en").count();
    println!(
        "{} labelled pairs ({} CJK): {} duplicates, {} different facts, {} corrections\n",
        pairs.len(),
        cjk,
        count(pairs, "duplicate"),
        count(pairs, "different"),
        count(pairs, "correction")
    );
    println!(
        "| threshold | precision | recall | English precision / recall | CJK precision / recall | different facts merged | corrections found |"
    );
    println!("|---|---|---|---|---|---|---|");
    // Around the chosen threshold in steps of 0.025, and a few further out.
    let steps = [
        0.15, 0.2, 0.25, 0.3, 0.325, 0.35, 0.375, 0.4, 0.425, 0.45, 0.5, 0.6, 0.7,
    ];
    for threshold in steps {
        let verdicts: Vec<Verdict> = pairs.iter().map(|p| verdict(p, threshold)).collect();
        let merged = |filter: &dyn Fn(&Pair) -> bool| {
            let chosen: Vec<usize> = (0..pairs.len()).filter(|&i| filter(&pairs[i])).collect();
            let merged = chosen
                .iter()
                .filter(|&&i| verdicts[i] == Verdict::Merge)
                .count();
            (merged, chosen.len())
        };
        let figures = |in_group: &dyn Fn(&Pair) -> bool| {
            let (tp, positives) = merged(&|p| in_group(p) && p.label == "duplicate");
            let (fp, _) = merged(&|p| in_group(p) && p.label != "duplicate");
            (ratio(tp, tp + fp), ratio(tp, positives))
        };
        let (precision, recall) = figures(&|_| true);
        let (en_precision, en_recall) = figures(&|p| p.lang == "en");
        let (cjk_precision, cjk_recall) = figures(&|p| p.lang != "en");
        let (different_merged, different) = merged(&|p| p.label == "different");
        let corrections = (0..pairs.len())
            .filter(|&i| pairs[i].label == "correction" && verdicts[i] == Verdict::Correction)
            .count();
        let wrong_corrections = (0..pairs.len())
            .filter(|&i| pairs[i].label != "correction" && verdicts[i] == Verdict::Correction)
            .count();
        let chosen = (threshold - NEAR_THRESHOLD).abs() < 1e-9;
        let mark = if chosen { " **(chosen)**" } else { "" };
        println!(
            "| {threshold:.3}{mark} | {precision} | {recall} | {en_precision} / {en_recall} | {cjk_precision} / {cjk_recall} | {different_merged}/{different} | {corrections}/{} (+{wrong_corrections} wrong) |",
            count(pairs, "correction"),
        );
        if chosen && std::env::var_os("NEAR_EVAL_MISSES").is_some() {
            misses(pairs, &verdicts);
        }
    }
}

/// With `NEAR_EVAL_MISSES=1`: the pairs the chosen threshold gets wrong.
fn misses(pairs: &[Pair], verdicts: &[Verdict]) {
    for (pair, verdict) in pairs.iter().zip(verdicts) {
        let merged = *verdict == Verdict::Merge;
        let corrected = *verdict == Verdict::Correction;
        let what = if merged != (pair.label == "duplicate") {
            if merged { "merged" } else { "missed" }
        } else if corrected != (pair.label == "correction") {
            if corrected {
                "corrected"
            } else {
                "correction missed"
            }
        } else {
            continue;
        };
        eprintln!(
            "{what} ({} {}): {:?} / {:?}",
            pair.lang, pair.label, pair.a, pair.b
        );
    }
}

fn ratio(a: usize, b: usize) -> String {
    if b == 0 {
        "-".to_string()
    } else {
        format!("{:.2}", a as f64 / b as f64)
    }
}

fn count(pairs: &[Pair], label: &str) -> usize {
    pairs.iter().filter(|p| p.label == label).count()
}

fn read_pairs(path: &std::path::Path) -> Result<Vec<Pair>, Box<dyn Error>> {
    let text = std::fs::read_to_string(path)?;
    let mut pairs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let value: Value = serde_json::from_str(line)?;
        let field = |key: &str| {
            value[key]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("{}:{}: no {key:?}", path.display(), n + 1))
        };
        pairs.push(Pair {
            lang: field("lang")?,
            label: field("label")?,
            a: field("a")?,
            b: field("b")?,
        });
    }
    Ok(pairs)
}

/// Gathers the pair as two records of one store, source and type, `b`
/// written a day after `a`.
fn verdict(pair: &Pair, threshold: f64) -> Verdict {
    let records = [
        record("a", &pair.a, "2026-03-01T00:00:00Z"),
        record("b", &pair.b, "2026-03-02T00:00:00Z"),
    ];
    let options = GatherOptions {
        near_threshold: threshold,
    };
    let now: Timestamp = "2026-06-01T00:00:00Z"
        .parse()
        .unwrap_or(Timestamp::UNIX_EPOCH);
    let plan = gather_with(&records, now, &options);
    let found = |f: Finding| plan.operations.iter().any(|op| op.finding() == f);
    if plan
        .operations
        .iter()
        .any(|op| matches!(op, Operation::Merge { .. }))
    {
        Verdict::Merge
    } else if found(Finding::Correction) {
        Verdict::Correction
    } else {
        Verdict::Nothing
    }
}

/// A record from the fixture's text: its first line is the description,
/// the rest the body.
pub fn record(id: &str, text: &str, updated: &str) -> DreamRecord {
    let (description, body) = text.split_once('\n').unwrap_or((text, ""));
    let at: Option<Timestamp> = updated.parse().ok();
    let meta = Meta {
        name: Some(id.to_string()),
        description: Some(description.to_string()),
        record_type: Some(RecordType::Project),
        created: at,
        updated: at,
        revision: Some(1),
        source: Some(Source::User),
        ..Meta::default()
    };
    let mut frontmatter = Frontmatter::new();
    frontmatter.set_meta(&meta);
    DreamRecord {
        scope: Scope::Workspace,
        record: Record {
            id: id.to_string(),
            rel_path: PathBuf::from(format!("{id}.md")),
            meta,
            written_name: Some(id.to_string()),
            frontmatter: Some(frontmatter),
            body: format!("{body}\n"),
            problems: Vec::new(),
        },
    }
}
