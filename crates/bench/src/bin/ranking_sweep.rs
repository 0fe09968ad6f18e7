//! Tries every setting of the ranking candidates (crates/bench/src/candidates.rs)
//! on the TUNE half of the other-words questions only, to choose
//! `candidates::CHOSEN`; the held-out half is left for retrieval_eval.
//!
//! `cargo run --release -p memctl-bench --bin ranking_sweep`
#![forbid(unsafe_code)]

use memctl_bench::candidates;
use memctl_bench::other_words::{self, Half, Systems};

fn main() -> anyhow::Result<()> {
    let fixtures = other_words::fixtures();
    let questions = other_words::questions(&fixtures.join("questions.json"))?;
    let tune: Vec<&other_words::Question> =
        questions.iter().filter(|q| q.half == Half::Tune).collect();
    let systems = Systems::new(&fixtures.join("store"))?;
    println!("tune half, {} questions", tune.len());
    println!("| candidate | R@5 | R@10 | MRR@10 | all needs @10 |");
    println!("|---|---:|---:|---:|---:|");
    let ours = other_words::score(tune.iter().copied(), |q| systems.rank_ours(q))?;
    print_row("memctl search", &ours);
    for candidate in candidates::grid() {
        let s = other_words::score(tune.iter().copied(), |q| {
            systems.rank_candidate(q, candidate)
        })?;
        print_row(&format!("{candidate:?}"), &s);
    }
    Ok(())
}

fn print_row(name: &str, s: &other_words::Scores) {
    println!(
        "| {name} | {:.3} | {:.3} | {:.3} | {:.3} |",
        s.recall_at_5, s.recall_at_10, s.mrr_at_10, s.all_needs_at_10
    );
}
