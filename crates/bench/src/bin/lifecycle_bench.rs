//! The prompt hook after a session start, with nothing started by hand
//! (issue 17 item 5; docs/BENCHMARKS.md; target: under 20 ms median at
//! 10,000 records). A project folder holds a generated `.memory` store;
//! `memctl hook claude-code` answers a SessionStart event there (timed: it
//! must never delay the session), which starts the store's watcher; once
//! `memctl status` says the watcher runs, UserPromptSubmit events are timed.
//! The store is then removed, and the watcher leaves with it. Run on
//! demand, never as a test:
//!
//! `cargo build --release -p memctl -p memctl-bench &&
//!  target/release/lifecycle_bench --memctl target/release/memctl [--records 10000]`
#![forbid(unsafe_code)]

#[path = "../generate.rs"]
#[allow(dead_code)]
mod generate;

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// Runs per figure; the median counts.
const RUNS: usize = 21;

/// How long the watcher may take to build its index and say it runs.
const PATIENCE: Duration = Duration::from_secs(600);

fn main() -> anyhow::Result<()> {
    let mut memctl = PathBuf::from("target/release/memctl");
    let mut records = 10_000;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--memctl" => memctl = PathBuf::from(value()?),
            "--records" => records = value()?.parse().context("--records: a number")?,
            other => bail!("unknown argument {other:?}"),
        }
    }
    let memctl = std::fs::canonicalize(&memctl)
        .with_context(|| format!("{}: build it with cargo build --release", memctl.display()))?;
    let temporary = tempfile::Builder::new()
        .prefix("memctl-lifecycle-bench-")
        .tempdir()?;
    let bench = Bench {
        memctl,
        work: temporary.path().join("project"),
        cache: temporary.path().join("cache"),
    };
    generate::store(&bench.work.join(".memory"), records)?;
    let result = bench.measure(records);
    // The watcher leaves when its store goes away; wait so that no process
    // outlives the benchmark.
    std::fs::remove_dir_all(bench.work.join(".memory"))?;
    bench.wait_for_no_watcher()?;
    result
}

struct Bench {
    memctl: PathBuf,
    work: PathBuf,
    cache: PathBuf,
}

impl Bench {
    fn measure(&self, records: usize) -> anyhow::Result<()> {
        let start = Instant::now();
        let answer = self.hook(&self.event("SessionStart", "bench-start", None))?;
        let session_start = start.elapsed();
        if !answer.contains("additionalContext") {
            bail!("SessionStart gave no context: {answer}");
        }
        let waited = Instant::now();
        while !self.status()?.contains("watcher: running") {
            if waited.elapsed() > PATIENCE {
                bail!("the watcher never said it runs");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let ready_after = start.elapsed();
        let mut samples = Vec::new();
        for (run, prompt) in prompts(records).iter().enumerate() {
            let event = self.event("UserPromptSubmit", &format!("bench-{run}"), Some(prompt));
            let start = Instant::now();
            self.hook(&event)?;
            samples.push(start.elapsed());
        }
        samples.sort();
        println!(
            "| records | SessionStart hook | watcher running after | prompt hook median (min, max) |"
        );
        println!("|---|---|---|---|");
        println!(
            "| {records} | {:.1} ms | {:.1} s | {:.1} ms ({:.1}, {:.1}) |",
            ms(session_start),
            ready_after.as_secs_f64(),
            ms(samples[samples.len() / 2]),
            ms(samples[0]),
            ms(samples[samples.len() - 1])
        );
        Ok(())
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.memctl);
        command
            .args(args)
            .current_dir(&self.work)
            .env("MEMCTL_CACHE_DIR", &self.cache)
            .env("MEMCTL_GLOBAL_DIR", self.work.with_extension("no-global"))
            // The gates are read (their cost is in SessionStart's time) but
            // stay closed: a dream over 10,000 records would share the CPU
            // with the prompts measured here.
            .env("MEMCTL_AUTO_DREAM", "on")
            .env("MEMCTL_DREAM_MIN_WRITES", "1000000000")
            .env("MEMCTL_AUTO_WATCH", "on")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn event(&self, name: &str, session: &str, prompt: Option<&str>) -> String {
        let mut event = serde_json::json!({
            "session_id": session,
            "hook_event_name": name,
            "cwd": self.work,
            "transcript_path": self.work.join("transcript.jsonl"),
            "source": "startup",
        });
        if let Some(prompt) = prompt {
            event["prompt"] = serde_json::Value::from(prompt);
        }
        event.to_string()
    }

    /// One `memctl hook claude-code` run: what it printed.
    fn hook(&self, event: &str) -> anyhow::Result<String> {
        let mut child = self.command(&["hook", "claude-code"]).spawn()?;
        child
            .stdin
            .take()
            .context("no stdin")?
            .write_all(event.as_bytes())?;
        let output = child.wait_with_output()?;
        if !output.status.success() || !output.stderr.is_empty() {
            bail!(
                "the hook failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    fn status(&self) -> anyhow::Result<String> {
        let output = self.command(&["status"]).stdin(Stdio::null()).output()?;
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    fn wait_for_no_watcher(&self) -> anyhow::Result<()> {
        let start = Instant::now();
        while watch_locks(&self.cache)?.iter().any(|lock| is_held(lock)) {
            if start.elapsed() > PATIENCE {
                bail!("the watcher did not leave with its store");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(())
    }
}

/// [`RUNS`] prompts, each about one record of the generated store (asked
/// from its description, as context_bench does for record 42), so that the
/// hook has something to rank and show.
fn prompts(records: usize) -> Vec<String> {
    let mut rng = generate::Rng::new(0x5eed ^ records as u64);
    let step = (records / RUNS).max(1);
    (0..records)
        .map(|i| generate::record(i, &mut rng).1)
        .step_by(step)
        .take(RUNS)
        .map(|text| {
            let description = text
                .lines()
                .find_map(|l| l.strip_prefix("description: "))
                .unwrap_or_default()
                .to_string();
            format!("what did we say about {description}?")
        })
        .collect()
}

fn watch_locks(cache: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut locks = Vec::new();
    for entry in std::fs::read_dir(cache)? {
        let path = entry?.path();
        if path.to_string_lossy().ends_with(".watch") {
            locks.push(path);
        }
    }
    Ok(locks)
}

fn is_held(lock: &Path) -> bool {
    File::open(lock).is_ok_and(|f| matches!(f.try_lock(), Err(std::fs::TryLockError::WouldBlock)))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
