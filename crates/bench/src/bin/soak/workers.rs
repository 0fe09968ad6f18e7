//! The soak's workers: writers, searchers and a dreamer, each a thread
//! running the real binary until the deadline.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use crate::generate::{self, Rng};
use crate::tally::{Outcome, Tally};

/// What a writer last saved under one id, as searchers may check it.
#[derive(Clone, Debug, Default)]
pub struct Saved {
    /// The token its body holds now; `None` once forgotten.
    pub token: Option<String>,
    /// Bumped when a write of this id starts, so a search can tell whether
    /// the record changed while it ran.
    pub version: u64,
    pub busy: bool,
}

/// Everything the workers share.
pub struct Ctx {
    pub memctl: PathBuf,
    pub root: PathBuf,
    pub work: PathBuf,
    pub deadline: Instant,
    pub tally: Tally,
    pub saved: Mutex<HashMap<String, Saved>>,
}

impl Ctx {
    pub fn store(&self) -> PathBuf {
        self.work.join(".memory")
    }

    /// `memctl ARGS…` in the project folder with the soak's environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.memctl);
        cmd.args(args)
            .current_dir(&self.work)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root.join("home"))
            .env("XDG_CACHE_HOME", self.root.join("xdg-cache"))
            .env("MEMCTL_CACHE_DIR", self.root.join("cache"))
            .env("MEMCTL_GLOBAL_DIR", self.root.join("global"))
            .env("EDITOR", self.root.join("editor.sh"))
            .env("NO_COLOR", "1")
            .stdin(Stdio::null());
        cmd
    }

    pub fn run(&self, args: &[&str], vars: &[(&str, &str)]) -> Outcome {
        let started = Instant::now();
        let mut cmd = self.command(args);
        cmd.envs(vars.iter().copied());
        match cmd.output() {
            Ok(output) => Outcome {
                code: output.status.code().unwrap_or(-1),
                stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
                took: started.elapsed(),
            },
            Err(e) => Outcome {
                code: -1,
                stderr: format!("error: cannot run memctl: {e}"),
                took: started.elapsed(),
            },
        }
    }

    fn mark_busy(&self, id: &str) {
        if let Ok(mut saved) = self.saved.lock() {
            let entry = saved.entry(id.to_string()).or_default();
            entry.version += 1;
            entry.busy = true;
        }
    }

    fn settle(&self, id: &str, token: Option<String>) {
        if let Ok(mut saved) = self.saved.lock() {
            let entry = saved.entry(id.to_string()).or_default();
            entry.token = token;
            entry.busy = false;
        }
    }
}

/// The soak token (`soaktok3n17`) in a record file, if the file exists.
pub fn token_on_disk(store: &Path, id: &str) -> Option<String> {
    let text = std::fs::read_to_string(store.join(format!("{id}.md"))).ok()?;
    text.split_whitespace()
        .find(|w| w.starts_with("soaktok"))
        .map(str::to_string)
}

/// A description and body of generated text, with `token` in the body.
fn content(rng: &mut Rng, index: usize, token: &str) -> (String, String) {
    let (_, text) = generate::record(index, rng);
    let description = text
        .lines()
        .find_map(|line| line.strip_prefix("description: "))
        .unwrap_or("a soak record")
        .to_string();
    let body = text
        .splitn(3, "---\n")
        .nth(2)
        .unwrap_or("")
        .trim()
        .to_string();
    (description, format!("{body}\n\n{token}"))
}

/// One writer: new records, updates, edits and forgets of its own ids.
pub fn writer(ctx: &Ctx, number: usize) {
    let mut rng = Rng::new(0x50a4 + number as u64);
    let mut mine: Vec<String> = Vec::new();
    let mut n = 0usize;
    while Instant::now() < ctx.deadline {
        n += 1;
        let token = format!("soaktok{number}n{n}");
        let roll = rng.below(100);
        let (op, id) = if mine.is_empty() || roll < 40 {
            let id = format!("soak-w{number}-{n}");
            mine.push(id.clone());
            ("remember (new)", id)
        } else {
            let id = mine[rng.below(mine.len())].clone();
            match roll {
                40..70 => ("remember (update)", id),
                70..85 => ("edit", id),
                _ => ("forget", id),
            }
        };
        ctx.mark_busy(&id);
        let outcome = match op {
            "edit" => ctx.run(&["edit", &id], &[("SOAK_TOKEN", &token)]),
            "forget" => ctx.run(&["forget", "--yes", &id], &[]),
            _ => {
                let (description, body) = content(&mut rng, 1_000_000 * (number + 1) + n, &token);
                let args = ["remember", "--yes", "--name", &id, "--type", "project"];
                let args = [&args[..], &["--description", &description, &body]].concat();
                ctx.run(&args, &[])
            }
        };
        ctx.tally.count(op, &outcome, outcome.code == 0);
        let now = if outcome.code == 0 {
            (op != "forget").then_some(token)
        } else {
            // What a failed write left is whatever the file says.
            token_on_disk(&ctx.store(), &id)
        };
        if now.is_none() {
            mine.retain(|m| *m != id);
        }
        ctx.settle(&id, now);
    }
}

/// A record some writer saved and is not writing now: `(id, token, version)`.
fn pick_saved(ctx: &Ctx, rng: &mut Rng) -> Option<(String, String, u64)> {
    let saved = ctx.saved.lock().ok()?;
    let ready: Vec<(&String, &Saved)> = saved
        .iter()
        .filter(|(_, s)| !s.busy && s.token.is_some())
        .collect();
    let (id, s) = ready.get(rng.below(ready.len().max(1)))?;
    Some(((*id).clone(), s.token.clone()?, s.version))
}

/// One searcher: a saved record's token must find it (SPEC §4: a search
/// answers from the files as they are when it starts); other searches are
/// counted only.
pub fn searcher(ctx: &Ctx, number: usize) {
    let mut rng = Rng::new(0x5ea4 + number as u64);
    let words = [generate::MARKER, "deploy", "pytest", "测试", "why", "cache"];
    while Instant::now() < ctx.deadline {
        let Some((id, token, version)) = pick_saved(ctx, &mut rng).filter(|_| rng.below(3) > 0)
        else {
            let word = words[rng.below(words.len())];
            let outcome = ctx.run(&["search", "--limit", "20", word], &[]);
            ctx.tally
                .count("search (word)", &outcome, outcome.code <= 1);
            continue;
        };
        let mut cmd = ctx.command(&[
            "search",
            "--json",
            "--scope",
            "workspace",
            "--limit",
            "10",
            &token,
        ]);
        let started = Instant::now();
        let output = cmd.output();
        let (code, found, stderr) = match output {
            Ok(out) => {
                let text = String::from_utf8_lossy(&out.stdout);
                let found = serde_json::from_str::<serde_json::Value>(&text)
                    .ok()
                    .and_then(|v| v.as_array().cloned())
                    .is_some_and(|hits| hits.iter().any(|h| h["id"] == id.as_str()));
                (
                    out.status.code().unwrap_or(-1),
                    found,
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                )
            }
            Err(e) => (-1, false, e.to_string()),
        };
        let outcome = Outcome {
            code,
            stderr,
            took: started.elapsed(),
        };
        ctx.tally
            .count("search (saved record)", &outcome, code <= 1);
        let unchanged = ctx
            .saved
            .lock()
            .map(|saved| {
                saved
                    .get(&id)
                    .is_some_and(|s| s.version == version && !s.busy)
            })
            .unwrap_or(false);
        if !found && unchanged {
            ctx.tally.finding(format!(
                "search for {token} (exit {code}) did not find {id}, saved before it began"
            ));
        }
    }
}

/// `dream --yes` every `every`, when the binary has a `dream` command.
pub fn dreamer(ctx: &Ctx, every: Duration) {
    loop {
        let next = Instant::now() + every;
        while Instant::now() < next {
            if Instant::now() >= ctx.deadline {
                return;
            }
            thread::sleep(Duration::from_millis(200));
        }
        let outcome = ctx.run(&["dream", "--yes"], &[]);
        ctx.tally.count("dream --yes", &outcome, outcome.code == 0);
    }
}
