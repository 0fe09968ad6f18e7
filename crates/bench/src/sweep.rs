//! Choosing a relevance threshold on some labelled sets and measuring it on
//! another (`src/bin/relevance_sweep.rs`, docs/CONTEXT.md): leave one real
//! folder out at a time. Every prompt is judged once (its candidates and
//! their evidence, through the library), then each threshold of the grid
//! only filters them, so a sweep of hundreds of thresholds costs one
//! search a prompt; the held-out folder is then measured once, through
//! [`EvalStore::recall`](crate::context::EvalStore::recall), the path
//! `memctl context` takes.

use mdindex::relevance::{Evidence, THRESHOLD, Threshold};

use crate::context::{self, Figures, Prompt};

/// Candidates judged for each prompt in a sweep: recall judges three times
/// the ten `memctl context` asks for.
pub const SWEEP_CANDIDATES: usize = 3 * context::CANDIDATES;

/// The targets of issue 14 for every real folder's held-out prompts.
pub const TARGET_HIT_AT_5: f64 = 0.9;
pub const TARGET_QUIET: f64 = 0.8;

/// One set's prompts, each with its candidates and their evidence.
#[derive(Clone, Debug)]
pub struct JudgedSet {
    pub name: String,
    pub judged: Vec<(Prompt, Vec<(String, Evidence)>)>,
}

/// The thresholds swept, the one in use first (so that a tie keeps it):
/// least specificities 0.6 to 2.4, least coverages 0 to 0.6, strong
/// specificities 2.2 to 4.0 and none, least rarest words 0, 0.3 and 0.5;
/// and the gate on the first candidate: its gap 1 (none) to 2, or its
/// specificity 2.0 to 4.0 or none. 52,920 rules.
pub fn grid() -> Vec<Threshold> {
    let steps = |from: f64, step: f64, n: usize| (0..n).map(move |i| from + step * i as f64);
    let mut grid = vec![THRESHOLD];
    for min_rarest in [0.0, 0.3, 0.5] {
        for strong_specificity in [2.2, 2.5, 3.0, 3.5, 4.0, f64::INFINITY] {
            for min_specificity in steps(0.6, 0.2, 10) {
                for min_coverage in steps(0.0, 0.1, 7) {
                    for min_top_gap in [1.0, 1.1, 1.2, 1.3, 1.5, 1.75, 2.0] {
                        for top_specificity in [2.0, 2.5, 3.0, 3.5, 4.0, f64::INFINITY] {
                            grid.push(Threshold {
                                min_specificity,
                                min_coverage,
                                strong_specificity,
                                min_rarest,
                                min_top_gap,
                                top_specificity,
                            });
                        }
                    }
                }
            }
        }
    }
    grid
}

/// How far one set's figures are from the targets: the worse of the two
/// ratios to them (1 means both met just), over the kinds of prompt the
/// set has (a set without negatives is judged on hit@5 alone).
pub fn margin(f: &Figures) -> f64 {
    let hit = (f.with > 0).then(|| f.hit_at_5 / TARGET_HIT_AT_5);
    let quiet = (f.without > 0).then(|| f.quiet / TARGET_QUIET);
    match (hit, quiet) {
        (Some(h), Some(q)) => h.min(q),
        (Some(m), None) | (None, Some(m)) => m,
        (None, None) => f64::INFINITY,
    }
}

/// The threshold of the grid whose worst margin over `sets` is largest
/// (every folder must meet the targets, not their average); fewer records
/// shown on average breaks ties, then the grid's order. With its worst
/// margin.
pub fn choose(sets: &[&JudgedSet]) -> (Threshold, f64) {
    let mut best = (THRESHOLD, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for threshold in grid() {
        let figures: Vec<Figures> = sets
            .iter()
            .map(|set| context::figures(&set.judged, &threshold))
            .collect();
        let worst = figures.iter().map(margin).fold(f64::INFINITY, f64::min);
        let shown =
            figures.iter().map(|f| f.shown_per_prompt).sum::<f64>() / figures.len().max(1) as f64;
        let merit = worst - 0.001 * shown;
        if merit > best.2 {
            best = (threshold, worst, merit);
        }
    }
    (best.0, best.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(relevant: &[&str]) -> Prompt {
        Prompt {
            text: String::new(),
            relevant: relevant.iter().map(|s| s.to_string()).collect(),
            lang: "en".into(),
            kind: None,
            long: false,
            dev: false,
        }
    }

    fn evidence(specificity: f64) -> Evidence {
        Evidence {
            specificity,
            coverage: 1.0,
            gap: 1.0,
            head_specificity: specificity,
            matched: 1,
            rarest: 1.0,
        }
    }

    #[test]
    fn choose_takes_the_threshold_that_separates_the_worst_set_and_keeps_the_one_in_use_on_a_tie() {
        // Relevant records at specificity 1.5, irrelevant ones at 1.3: only
        // a least specificity between them meets both targets.
        let set = JudgedSet {
            name: "t".into(),
            judged: vec![
                (prompt(&["a"]), vec![("a".into(), evidence(1.5))]),
                (prompt(&[]), vec![("b".into(), evidence(1.3))]),
            ],
        };
        let (chosen, worst) = choose(&[&set]);
        assert!(
            chosen.min_specificity > 1.3 && chosen.min_specificity <= 1.5,
            "{chosen:?}"
        );
        assert_eq!(worst, (1.0f64 / 0.9).min(1.0 / 0.8));
        let easy = JudgedSet {
            name: "easy".into(),
            judged: vec![(prompt(&["a"]), vec![("a".into(), evidence(9.0))])],
        };
        assert_eq!(choose(&[&easy]).0, THRESHOLD);
    }

    #[test]
    fn margin_is_the_worse_ratio_to_the_targets_of_the_prompts_a_set_has() {
        let f = Figures {
            with: 10,
            hit_at_5: 0.9,
            without: 5,
            quiet: 0.4,
            ..Figures::default()
        };
        assert_eq!(margin(&f), 0.5);
        assert_eq!(margin(&Figures { without: 0, ..f }), 1.0);
    }
}
