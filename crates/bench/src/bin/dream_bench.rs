//! Times dream's orient (load every record) and gather (the rules' plan)
//! on generated stores with planted duplicates, and prints the table for
//! docs/BENCHMARKS.md. With `--memctl BIN` it also times a whole
//! `memctl dream --dry-run --json` process when that command exists.
//!
//! `cargo run --release -p memctl-bench --bin dream_bench -- [--sizes 10000,100000] [--memctl target/release/memctl]`
#![forbid(unsafe_code)]

#[path = "../generate.rs"]
mod generate;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use mddream::plan::{Finding, Scope};
use mdstore::Store;

/// One record in this many gets an exact copy, and one a copy with a
/// sentence added (a near-duplicate).
const EXACT_EVERY: usize = 100;
const NEAR_EVERY: usize = 150;

fn main() -> anyhow::Result<()> {
    let mut sizes = vec![10_000, 100_000];
    let mut memctl: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--sizes" => {
                sizes = value()?
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .replace('_', "")
                            .parse()
                            .with_context(|| format!("--sizes: bad number {s:?}"))
                    })
                    .collect::<anyhow::Result<_>>()?;
            }
            "--memctl" => memctl = Some(PathBuf::from(value()?)),
            other => bail!(
                "unknown argument {other:?} (see the doc comment of crates/bench/src/bin/dream_bench.rs)"
            ),
        }
    }
    println!(
        "| records | planted exact / near copies | load (CPU) | gather (CPU) | exact merges | near merges | whole `dream --dry-run` |"
    );
    println!("|---|---|---|---|---|---|---|");
    for n in sizes {
        let dir = tempfile::tempdir()?;
        let root = dir.path().join("store");
        let (exact, near) = plant(&root, n)?;
        let store = Store::open(&root)?;
        let (started, cpu) = (Instant::now(), cpu_time());
        let loaded = mddream::records::load(&store, Scope::Workspace);
        let load = (started.elapsed(), cpu_time() - cpu);
        let (started, cpu) = (Instant::now(), cpu_time());
        let plan = mddream::gather::gather(&loaded.records, jiff::Timestamp::now());
        let gather = (started.elapsed(), cpu_time() - cpu);
        let merges = |f: Finding| {
            plan.operations
                .iter()
                .filter(|op| op.finding() == f)
                .count()
        };
        let whole = match &memctl {
            Some(bin) => whole_process(bin, &root, &dir.path().join("cache"))?,
            None => "not measured".to_string(),
        };
        println!(
            "| {} | {exact} / {near} | {} | {} | {} | {} | {whole} |",
            loaded.records.len(),
            both(load),
            both(gather),
            merges(Finding::ExactDuplicate),
            merges(Finding::NearDuplicate),
        );
    }
    Ok(())
}

/// Writes `n` generated records, then copies: every `EXACT_EVERY`th record
/// again under another name, every `NEAR_EVERY`th with a sentence added.
fn plant(dir: &Path, n: usize) -> anyhow::Result<(usize, usize)> {
    generate::store(dir, n)?;
    let (mut exact, mut near) = (0, 0);
    for i in 0..n {
        let path = dir.join(format!("rec-{i:06}.md"));
        if i % EXACT_EVERY == 3 {
            let text = fs::read_to_string(&path)?.replacen(
                &format!("name: rec-{i:06}"),
                &format!("name: copy-{i:06}"),
                1,
            );
            fs::write(dir.join(format!("copy-{i:06}.md")), text)?;
            exact += 1;
        } else if i % NEAR_EVERY == 5 {
            let text = fs::read_to_string(&path)?.replacen(
                &format!("name: rec-{i:06}"),
                &format!("name: near-{i:06}"),
                1,
            );
            fs::write(
                dir.join(format!("near-{i:06}.md")),
                format!("{text}Also noted again later.\n"),
            )?;
            near += 1;
        }
    }
    Ok((exact, near))
}

/// The median of three whole `memctl dream --dry-run --json` runs.
fn whole_process(bin: &Path, store: &Path, cache: &Path) -> anyhow::Result<String> {
    let mut times = Vec::new();
    for _ in 0..3 {
        let started = Instant::now();
        let output = Command::new(bin)
            .args(["--store"])
            .arg(store)
            .args(["dream", "--dry-run", "--json"])
            .env("MEMCTL_CACHE_DIR", cache)
            .output()
            .with_context(|| format!("running {}", bin.display()))?;
        if !output.status.success() && output.status.code() != Some(1) {
            return Ok(format!(
                "failed: {}",
                String::from_utf8_lossy(&output.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            ));
        }
        times.push(started.elapsed());
    }
    times.sort();
    Ok(secs(times[1]))
}

/// Wall time, and in brackets the CPU time of every thread: the machine
/// is shared, so wall time alone says little.
fn both((wall, cpu): (Duration, Duration)) -> String {
    format!("{} ({})", secs(wall), secs(cpu))
}

/// This process's user and system CPU time so far (Linux; zero elsewhere).
fn cpu_time() -> Duration {
    let stat = fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at 3.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    // The kernel's clock tick for these fields is 100 Hz on Linux.
    Duration::from_millis(ticks * 10)
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}
