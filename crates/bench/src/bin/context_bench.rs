//! Whole-process time of `memctl context --hook claude-code` answering a
//! UserPromptSubmit event, at 1,000 and 10,000 generated records, with and
//! without a running `memctl watch` (docs/BENCHMARKS.md; target: under 50 ms
//! at 10,000 records with a watcher), with semantic matching on when
//! `MEMCTL_EMBED_MODEL` names a model. Run on demand, never as a test:
//!
//! `cargo build --release -p memctl -p memctl-bench &&
//!  target/release/context_bench --memctl target/release/memctl [--sizes 1000,10000] [--keep DIR]`
//!
//! `--keep DIR` builds the stores and caches in DIR and leaves them there,
//! to profile one hook run by hand.
#![forbid(unsafe_code)]

#[path = "../generate.rs"]
#[allow(dead_code)]
mod generate;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// Runs per figure; the median counts.
const RUNS: usize = 21;
/// Hook runs at most before timing: enough for the background's 1,214
/// requests at a few seconds a prompt on a loaded machine.
const WARM_UP_RUNS: usize = 60;

/// A prompt about nothing the generated records hold.
const NOTHING: &str = "rename this variable to something clearer";

/// A prompt about record 42 of a store of `n`: a question built from its
/// description, as a user would ask about something remembered.
fn matching_prompt(n: usize) -> String {
    let mut rng = generate::Rng::new(0x5eed ^ n as u64);
    let mut text = String::new();
    for i in 0..=42 {
        text = generate::record(i, &mut rng).1;
    }
    let description = text
        .lines()
        .find_map(|l| l.strip_prefix("description: "))
        .unwrap_or_default()
        .to_string();
    format!("what did we say about {description}?")
}

/// [`matching_prompt`] naming record 42 by its id as well: words most
/// records contain around one that only record 42 holds, so that the hook
/// has something to show.
fn answered_prompt(n: usize) -> String {
    format!("{} (see rec-{:06})", matching_prompt(n), 42)
}

/// Every topic word of the generated records: each is in about half of
/// them, and a record holding many of them passes the relevance threshold,
/// so the ranking must score every record that holds any of the words the
/// threshold cannot leave out (the worst case of `mdindex::relevance`).
fn common_words_prompt() -> String {
    generate::TOPICS.join(" ")
}

/// Three records written beside the generated ones, and a prompt that two
/// of them answer: with semantic matching on, the model is loaded to put
/// those two in order (the hook's dearest case; issue 18).
const TWO_TO_ORDER: [(&str, &str); 3] = [
    (
        "invoice-rounding",
        "---\nname: invoice-rounding\ndescription: Invoice totals round half to even, to the cent, since the rounding release\ntype: project\n---\nInvoice totals are rounded half to even at the cent. The rounding release changed it from half up; old invoices keep their totals.\n",
    ),
    (
        "ledger-export-signing",
        "---\nname: ledger-export-signing\ndescription: Ledger exports are signed with the release signing key from the vault\ntype: reference\n---\nEvery ledger export is signed with the release signing key; the key lives in the team vault, never in the repository.\n",
    ),
    (
        "pytest-only",
        "---\nname: pytest-only\ndescription: Tests use pytest, not unittest\ntype: feedback\n---\nWrite tests with pytest. Do not add unittest classes.\n",
    ),
];
const TWO_TO_ORDER_PROMPT: &str =
    "before the invoice rounding release, which key signs the ledger exports?";

fn main() -> anyhow::Result<()> {
    let mut memctl = PathBuf::from("target/release/memctl");
    let mut sizes = vec![1_000, 10_000];
    let mut keep: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--memctl" => memctl = PathBuf::from(value()?),
            "--keep" => keep = Some(PathBuf::from(value()?)),
            "--sizes" => {
                sizes = value()?
                    .split(',')
                    .map(|s| s.trim().parse().context("--sizes: a number"))
                    .collect::<anyhow::Result<_>>()?
            }
            other => bail!("unknown argument {other:?}"),
        }
    }
    let memctl = std::fs::canonicalize(&memctl)
        .with_context(|| format!("{}: build it with cargo build --release", memctl.display()))?;
    let temporary = tempfile::Builder::new()
        .prefix("memctl-ctx-bench-")
        .tempdir()?;
    let work = keep.as_deref().unwrap_or(temporary.path());
    println!(
        "| records | prompt | no watcher | live watcher | `memctl search` of the same words, live watcher | output chars |"
    );
    println!("|---|---|---|---|---|---|");
    for n in sizes {
        let store = work.join(format!("store-{n}"));
        generate::store(&store, n)?;
        for (name, text) in TWO_TO_ORDER {
            std::fs::write(store.join(format!("{name}.md")), text)?;
        }
        let bench = Bench {
            memctl: memctl.clone(),
            store,
            cache: work.join(format!("cache-{n}")),
        };
        let matching = matching_prompt(n);
        let answered = answered_prompt(n);
        let common = common_words_prompt();
        // The first runs build the index, embed the records and the
        // background; they are not what a prompt costs.
        bench.warm_up(&matching)?;
        for (label, prompt) in [
            ("matching", matching.as_str()),
            ("matching, naming the record", answered.as_str()),
            ("nothing relevant", NOTHING),
            ("34 words, each in half the records", common.as_str()),
            ("two records to order", TWO_TO_ORDER_PROMPT),
        ] {
            let cold = bench.median(prompt)?;
            let mut watcher = bench.start_watcher()?;
            let watched = bench.median(prompt);
            let search = bench.search_median(prompt);
            let _ = watcher.kill();
            let _ = watcher.wait();
            let (watched, chars) = watched?;
            println!(
                "| {n} | {label} | {:.1} ms | {:.1} ms | {:.1} ms | {chars} |",
                ms(cold.0),
                ms(watched),
                ms(search?)
            );
        }
    }
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

struct Bench {
    memctl: PathBuf,
    store: PathBuf,
    cache: PathBuf,
}

impl Bench {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.memctl);
        command
            .arg("--store")
            .arg(&self.store)
            .args(args)
            .env("MEMCTL_CACHE_DIR", &self.cache)
            .env("MEMCTL_GLOBAL_DIR", self.store.with_extension("no-global"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// One hook run for `prompt` in session `session`: its time and the
    /// characters it printed.
    fn hook(&self, prompt: &str, session: &str) -> anyhow::Result<(Duration, usize)> {
        let event = serde_json::json!({
            "session_id": session,
            "hook_event_name": "UserPromptSubmit",
            "cwd": self.store.parent().unwrap_or(Path::new("/")),
            "prompt": prompt,
        })
        .to_string();
        let start = Instant::now();
        let mut child = self
            .command(&["context", "--hook", "claude-code"])
            .spawn()?;
        child
            .stdin
            .take()
            .context("no stdin")?
            .write_all(event.as_bytes())?;
        let output = child.wait_with_output()?;
        let elapsed = start.elapsed();
        if !output.status.success() || !output.stderr.is_empty() {
            bail!(
                "the hook failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok((
            elapsed,
            String::from_utf8_lossy(&output.stdout).chars().count(),
        ))
    }

    /// Hook runs until one answers with nothing said on the side: with the
    /// model on, the hook embeds the background of ordinary requests a few
    /// seconds a prompt (`mdagent::context::meaning::HOOK_BACKGROUND_BUDGET`)
    /// and says so until it is done.
    fn warm_up(&self, prompt: &str) -> anyhow::Result<()> {
        let mut last = None;
        for run in 0..WARM_UP_RUNS {
            match self.hook(prompt, &format!("warm-up-{run}")) {
                Ok(_) => return Ok(()),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| anyhow::anyhow!("no warm-up run")))
    }

    /// Median of [`RUNS`] hook runs, each in a new session (so that the
    /// once-per-session rule never empties the answer).
    fn median(&self, prompt: &str) -> anyhow::Result<(Duration, usize)> {
        let mut samples = Vec::new();
        let mut chars = 0;
        for run in 0..RUNS {
            let (time, printed) = self.hook(prompt, &format!("session-{}-{run}", fastid()))?;
            samples.push(time);
            chars = printed;
        }
        samples.sort();
        Ok((samples[samples.len() / 2], chars))
    }

    /// Median of [`RUNS`] `memctl search --limit 10` runs of the prompt's
    /// words: the ranking alone, for comparison.
    fn search_median(&self, prompt: &str) -> anyhow::Result<Duration> {
        let mut samples = Vec::new();
        for _ in 0..RUNS {
            let mut args = vec!["search", "--limit", "10", "--"];
            args.extend(prompt.split_whitespace());
            let start = Instant::now();
            self.command(&args).stdin(Stdio::null()).output()?;
            samples.push(start.elapsed());
        }
        samples.sort();
        Ok(samples[samples.len() / 2])
    }

    /// Starts `memctl watch` and waits until it says it is ready.
    fn start_watcher(&self) -> anyhow::Result<Child> {
        let child = self.command(&["watch"]).stdin(Stdio::null()).spawn()?;
        memctl_bench::watcher::ready(child)
    }
}

/// A number unique enough to tell this run's sessions from an earlier one's.
fn fastid() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}
