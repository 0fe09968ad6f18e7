//! Times dream's orient (load every record) and gather (the rules' plan)
//! on generated stores with planted duplicates, and prints the table for
//! docs/BENCHMARKS.md. With `--memctl BIN` (repeatable: a build before a
//! change and after it, on the same stores) it also times whole
//! `memctl dream --dry-run --json` processes with their peak memory (GNU
//! time), and `memctl reindex` of the same store for comparison.
//!
//! `cargo run --release -p memctl-bench --bin dream_bench -- [--sizes 10000,100000]
//! [--generator users|salad|mixed] [--keep DIR] [--memctl BIN]… [--runs 3]`
//!
//! `--generator users` (the default) writes records as people write
//! memories, 5% in Chinese, Japanese or Korean (src/users.rs); `salad` the
//! ~1 KB word-salad records of the search benchmarks (src/generate.rs);
//! `mixed` prose with long lines, Zipf-distributed project words, 5% Chinese
//! or Japanese, revisions and 2% faulty files (src/mixed.rs).
//! `--keep DIR` writes the stores under DIR and reuses them when present,
//! for profiling a store between runs.
#![forbid(unsafe_code)]

#[path = "../generate.rs"]
mod generate;
#[path = "../mixed.rs"]
mod mixed;
#[path = "../users.rs"]
mod users;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use mddream::plan::{Finding, Scope};
use mdstore::Store;

/// One record in this many gets an exact copy, one a copy with a sentence
/// added (a near-duplicate), one a copy with its lines joined into one
/// (the third of a group, with the exact copy when both fall on it).
const EXACT_EVERY: usize = 100;
const NEAR_EVERY: usize = 150;
const JOINED_EVERY: usize = 300;

#[derive(Clone, Copy, PartialEq)]
enum Generator {
    Users,
    Salad,
    Mixed,
}

struct Options {
    sizes: Vec<usize>,
    generator: Generator,
    keep: Option<PathBuf>,
    memctl: Vec<PathBuf>,
    runs: usize,
}

fn options() -> anyhow::Result<Options> {
    let mut options = Options {
        sizes: vec![10_000, 100_000],
        generator: Generator::Users,
        keep: None,
        memctl: Vec::new(),
        runs: 3,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--sizes" => {
                options.sizes = value()?
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .replace('_', "")
                            .parse()
                            .with_context(|| format!("--sizes: bad number {s:?}"))
                    })
                    .collect::<anyhow::Result<_>>()?;
            }
            "--generator" => {
                options.generator = match value()?.as_str() {
                    "users" => Generator::Users,
                    "salad" => Generator::Salad,
                    "mixed" => Generator::Mixed,
                    other => bail!("--generator: {other:?} is not users, salad or mixed"),
                }
            }
            "--keep" => options.keep = Some(PathBuf::from(value()?)),
            "--memctl" => options.memctl.push(PathBuf::from(value()?)),
            "--runs" => {
                options.runs = match value()?.parse() {
                    Ok(n) if n > 0 => n,
                    _ => bail!("--runs needs a whole number above 0"),
                }
            }
            other => bail!(
                "unknown argument {other:?} (see the doc comment of crates/bench/src/bin/dream_bench.rs)"
            ),
        }
    }
    Ok(options)
}

fn main() -> anyhow::Result<()> {
    let options = options()?;
    let scratch = tempfile::tempdir()?;
    let base = options
        .keep
        .clone()
        .unwrap_or_else(|| scratch.path().to_path_buf());
    println!(
        "| records | planted exact / near / joined copies | load (CPU) | gather (CPU) | exact merges | near merges | corrections | left alone |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut stores = Vec::new();
    for &n in &options.sizes {
        let name = match options.generator {
            Generator::Users => format!("users-{n}"),
            Generator::Salad => format!("salad-{n}"),
            Generator::Mixed => format!("mixed-{n}"),
        };
        let root = base.join(name);
        let planted = if root.join("planted.txt").exists() {
            fs::read_to_string(root.join("planted.txt"))?
        } else {
            let planted = plant(&root, n, options.generator)?;
            fs::write(root.join("planted.txt"), &planted)?;
            planted
        };
        in_process(&root, planted.trim())?;
        stores.push(root);
    }
    if !options.memctl.is_empty() {
        whole_processes(&options, &stores, &base.join("cache"))?;
    }
    Ok(())
}

/// Orient and gather in this process, timed.
fn in_process(root: &Path, planted: &str) -> anyhow::Result<()> {
    let store = Store::open(root)?;
    let (started, cpu) = (Instant::now(), cpu_time());
    let loaded = mddream::records::load(&store, Scope::Workspace);
    let load = (started.elapsed(), cpu_time() - cpu);
    let (started, cpu) = (Instant::now(), cpu_time());
    let plan = mddream::gather::gather(&loaded.records, jiff::Timestamp::now());
    let gather = (started.elapsed(), cpu_time() - cpu);
    let ops = |f: Finding| {
        plan.operations
            .iter()
            .filter(|op| op.finding() == f)
            .count()
    };
    println!(
        "| {} | {planted} | {} | {} | {} | {} | {} | {} |",
        loaded.records.len(),
        both(load),
        both(gather),
        ops(Finding::ExactDuplicate),
        ops(Finding::NearDuplicate),
        ops(Finding::Correction),
        plan.left_alone.len(),
    );
    Ok(())
}

/// For each store and binary: `dream --dry-run --json` and `reindex` of the
/// same store, `--runs` runs each (3 unless told): the median wall time with
/// its CPU time, and the highest peak RSS (GNU time's; not measured without
/// /usr/bin/time). Each binary has its own cache folder, so that one
/// build's index (another format) is never rebuilt by the other's runs.
fn whole_processes(options: &Options, stores: &[PathBuf], cache: &Path) -> anyhow::Result<()> {
    println!();
    println!(
        "| records | memctl | `dream --dry-run --json` (CPU) | peak RSS | `reindex` (CPU) | reindex peak RSS | dream / reindex |"
    );
    println!("|---|---|---|---|---|---|---|");
    for store in stores {
        for (n, bin) in options.memctl.iter().enumerate() {
            let cache = cache.join(format!("memctl-{n}"));
            let runs = options.runs;
            let dream = median_run(runs, bin, store, &cache, &["dream", "--dry-run", "--json"])?;
            let reindex = median_run(runs, bin, store, &cache, &["reindex"])?;
            println!(
                "| {} | {} | {} ({}) | {} | {} ({}) | {} | {:.1}x |",
                count_records(store)?,
                bin.display(),
                secs(dream.wall),
                secs(dream.cpu),
                rss(dream.rss_kib),
                secs(reindex.wall),
                secs(reindex.cpu),
                rss(reindex.rss_kib),
                dream.wall.as_secs_f64() / reindex.wall.as_secs_f64()
            );
        }
    }
    Ok(())
}

fn rss(kib: Option<u64>) -> String {
    kib.map_or("not measured".to_string(), |k| {
        format!("{:.0} MiB", k as f64 / 1024.0)
    })
}

fn count_records(store: &Path) -> anyhow::Result<usize> {
    Ok(fs::read_dir(store)?
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .filter(|e| e.file_name() != "MEMORY.md")
        .count())
}

/// One whole process, measured.
struct Measured {
    wall: Duration,
    cpu: Duration,
    rss_kib: Option<u64>,
}

/// `runs` runs: the median wall time and its run's CPU time, the highest
/// peak RSS.
fn median_run(
    runs: usize,
    bin: &Path,
    store: &Path,
    cache: &Path,
    args: &[&str],
) -> anyhow::Result<Measured> {
    let mut runs = (0..runs)
        .map(|_| run(bin, store, cache, args))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let rss_kib = runs.iter().filter_map(|m| m.rss_kib).max();
    runs.sort_by_key(|m| m.wall);
    let middle = runs.swap_remove(runs.len() / 2);
    Ok(Measured { rss_kib, ..middle })
}

/// One run, through GNU time when it is installed (for the CPU time and
/// peak RSS of the process alone).
fn run(bin: &Path, store: &Path, cache: &Path, args: &[&str]) -> anyhow::Result<Measured> {
    let time = Path::new("/usr/bin/time");
    let mut command = if time.exists() {
        let mut command = Command::new(time);
        command.args(["-f", "%U %S %M"]).arg(bin);
        command
    } else {
        Command::new(bin)
    };
    command
        .arg("--store")
        .arg(store)
        .args(args)
        .env("MEMCTL_CACHE_DIR", cache)
        .env("MEMCTL_GLOBAL_DIR", cache.join("no-global-store"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let output = command
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    let wall = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        bail!(
            "{} {args:?} failed: {}",
            bin.display(),
            stderr.lines().next().unwrap_or("")
        );
    }
    let fields: Vec<f64> = stderr
        .lines()
        .last()
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    let (cpu, rss_kib) = match fields[..] {
        [user, system, kib] if time.exists() => {
            (Duration::from_secs_f64(user + system), Some(kib as u64))
        }
        _ => (Duration::ZERO, None),
    };
    Ok(Measured { wall, cpu, rss_kib })
}

/// Writes `n` generated records, then copies: every `EXACT_EVERY`th record
/// again under another name, every `NEAR_EVERY`th with a sentence added,
/// every `JOINED_EVERY`th with its lines joined into one. Returns what was
/// planted, for the table.
fn plant(dir: &Path, n: usize, generator: Generator) -> anyhow::Result<String> {
    match generator {
        Generator::Users => users::store(dir, n)?,
        Generator::Salad => generate::store(dir, n)?,
        Generator::Mixed => mixed::store(dir, n)?,
    }
    let (mut exact, mut near, mut joined) = (0, 0, 0);
    for i in 0..n {
        let path = dir.join(format!("rec-{i:06}.md"));
        let copy = |kind: &str| -> anyhow::Result<String> {
            Ok(fs::read_to_string(&path)?.replacen(
                &format!("name: rec-{i:06}"),
                &format!("name: {kind}-{i:06}"),
                1,
            ))
        };
        if i % EXACT_EVERY == 3 {
            fs::write(dir.join(format!("copy-{i:06}.md")), copy("copy")?)?;
            exact += 1;
        } else if i % NEAR_EVERY == 5 {
            let text = copy("near")?;
            fs::write(
                dir.join(format!("near-{i:06}.md")),
                format!("{text}Also noted again later.\n"),
            )?;
            near += 1;
        }
        if i % JOINED_EVERY == 3 && generator != Generator::Salad {
            let text = copy("joined")?;
            let (head, body) = text.split_at(text.find("\n---\n").map_or(0, |e| e + 5));
            let one_line = body.lines().collect::<Vec<_>>().join(" ");
            fs::write(
                dir.join(format!("joined-{i:06}.md")),
                format!("{head}{one_line}\n"),
            )?;
            joined += 1;
        }
    }
    Ok(format!("{exact} / {near} / {joined}"))
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
