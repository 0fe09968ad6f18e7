//! Measures the secret guard (docs/SECRETS.md): detection per family on the
//! generated labelled set, false positives on the labelled negatives, the
//! demo store, the committed frontmatter-wild sample and, when it is there,
//! the whole corpus, and the scanning speed.
//!
//! `cargo run --release -p mdstore --example secrets_eval [CORPUS_DIR]`
//! (default: `../shared/corpora/frontmatter-wild` beside the checkout).

// A measurement program: a missing fixture is a panic with its path.
#![allow(clippy::expect_used, clippy::unwrap_used)]

#[path = "../tests/it/labelled_secrets.rs"]
mod labelled_secrets;

use std::path::{Path, PathBuf};
use std::time::Instant;

use labelled_secrets::{SEED, detection_by_family, negatives, positives, scan_tree};
use mdstore::guard::secrets::find_secrets;

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("../shared/corpora/frontmatter-wild"));

    let set = positives();
    println!(
        "## Labelled set (seed {SEED}, {} secret lines)\n",
        set.len()
    );
    println!("| family | lines | detected | named by the expected rule |");
    println!("|---|---|---|---|");
    let (mut found, mut named, mut total) = (0, 0, 0);
    for (family, (f, n, t)) in detection_by_family(&set) {
        println!("| {family} | {t} | {f} ({:.1}%) | {n} |", percent(f, t));
        (found, named, total) = (found + f, named + n, total + t);
    }
    println!(
        "| **all** | {total} | {found} ({:.1}%) | {named} ({:.1}%) |\n",
        percent(found, total),
        percent(named, total)
    );
    for missed in set.iter().filter(|l| find_secrets(&l.line).is_empty()) {
        println!(
            "missed ({}, {}): {}",
            missed.group, missed.rule, missed.line
        );
    }

    let negatives = negatives();
    let reported: Vec<_> = negatives
        .iter()
        .filter(|l| !find_secrets(&l.line).is_empty())
        .collect();
    println!(
        "\n## Labelled negatives: {} of {} lines reported\n",
        reported.len(),
        negatives.len()
    );
    for line in reported {
        println!("reported ({}): {:?}", line.group, find_secrets(&line.line));
    }

    println!("\n## False positives on real files\n");
    println!("| set | files | bytes | findings | files with findings | time |");
    println!("|---|---|---|---|---|---|");
    for (label, root) in [
        ("demo store", repo.join("tests/demo-store")),
        (
            "frontmatter-wild sample",
            repo.join("tests/fixtures/frontmatter-wild-sample"),
        ),
        ("frontmatter-wild corpus", corpus),
    ] {
        if !root.is_dir() {
            println!(
                "| {label} | skipped: {} is missing | | | | |",
                root.display()
            );
            continue;
        }
        let started = Instant::now();
        let (findings, files, bytes) = scan_tree(&root);
        let elapsed = started.elapsed();
        let mut with_findings: Vec<_> = findings.iter().map(|(path, _)| path).collect();
        with_findings.dedup();
        println!(
            "| {label} | {files} | {bytes} | {} | {} | {:.1} ms ({:.0} MB/s) |",
            findings.len(),
            with_findings.len(),
            elapsed.as_secs_f64() * 1000.0,
            bytes as f64 / 1e6 / elapsed.as_secs_f64()
        );
        for (path, finding) in &findings {
            eprintln!("  {label}: {} {finding}", path.display());
        }
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}
