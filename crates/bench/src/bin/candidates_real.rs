//! The ranking candidates (crates/bench/src/candidates.rs) on the labelled
//! real and own folders: hit@5 of ours in memory and of each chosen
//! candidate, through the library (not the binary: the candidates are not
//! in `memctl search`), to see whether a candidate that gains on the
//! other-words store lowers search on real folders (docs/RETRIEVAL.md).
//!
//! `cargo run --release -p memctl-bench --bin candidates_real`
#![forbid(unsafe_code)]

use memctl_bench::candidates::{self, Candidate};
use memctl_bench::other_words::Systems;
use memctl_bench::sets;

/// `memctl search --limit 5`.
const SHOWN: usize = 5;

fn main() -> anyhow::Result<()> {
    let found = sets::find(&sets::fixtures_root())?;
    let mut systems: Vec<(String, Candidate)> = vec![("ours in memory".into(), candidates::BASE)];
    systems.extend(candidates::CHOSEN.map(|(name, c)| (format!("+ {name}"), c)));
    // µs per prompt: parse, rank and any second query, in memory, one run.
    println!("| set | prompts | system | hit@5 | µs/prompt |");
    println!("|---|---:|---|---:|---:|");
    for set in &found.sets {
        let ranked = Systems::with_untyped(&set.store, Some(mdstore::RecordType::Project))?;
        let asked: Vec<_> = set
            .prompts
            .iter()
            .filter(|p| !p.relevant.is_empty())
            .collect();
        for (name, candidate) in &systems {
            let mut hits = 0usize;
            let started = std::time::Instant::now();
            for prompt in &asked {
                let top = ranked.rank_candidate(&prompt.text, *candidate)?;
                hits += usize::from(
                    top.iter()
                        .take(SHOWN)
                        .any(|id| prompt.relevant.contains(id)),
                );
            }
            let us = started.elapsed().as_secs_f64() * 1e6 / asked.len().max(1) as f64;
            let share = hits as f64 / asked.len().max(1) as f64;
            println!(
                "| {} | {} | {name} | {share:.3} | {us:.0} |",
                set.name,
                asked.len()
            );
        }
    }
    for skipped in &found.skipped {
        println!("- SKIPPED: {skipped}");
    }
    Ok(())
}
