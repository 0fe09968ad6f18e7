//! One soak: the store is set up, the workers and a watcher run until the
//! deadline, then the files, the index, `MEMORY.md` and what the writers
//! saved are checked against each other.

use std::fmt;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::Options;
use crate::generate;
use crate::tally::Tally;
use crate::workers::{self, Ctx, token_on_disk};

/// The figures of one soak, printed as Markdown for docs/RELIABILITY.md.
pub struct Report {
    setup: String,
    ran_for: Duration,
    tally_text: String,
    failures: u64,
    findings: usize,
    dream: String,
    watcher: String,
    watcher_alive: bool,
    end_checks: Vec<(String, bool)>,
}

impl Report {
    /// Everything agreed and nothing failed.
    pub fn agrees(&self) -> bool {
        self.failures == 0
            && self.findings == 0
            && self.watcher_alive
            && self.end_checks.iter().all(|(_, ok)| *ok)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.setup)?;
        writeln!(
            f,
            "Ran for {:.1} minutes. {}. {}\n",
            self.ran_for.as_secs_f64() / 60.0,
            self.dream,
            self.watcher
        )?;
        write!(f, "{}", self.tally_text)?;
        writeln!(f, "\nAt the end:")?;
        for (check, ok) in &self.end_checks {
            writeln!(f, "- {} {check}", if *ok { "✓" } else { "✗" })?;
        }
        writeln!(
            f,
            "\nVerdict: {}",
            if self.agrees() {
                "no errors; files, index and MEMORY.md agree"
            } else {
                "PROBLEMS (above)"
            }
        )
    }
}

/// A temporary project with `options.records` generated records, indexed,
/// with a `MEMORY.md` written by memctl.
fn set_up(ctx: &Ctx, records: usize) -> anyhow::Result<String> {
    for dir in ["work", "home", "cache", "xdg-cache"] {
        fs::create_dir_all(ctx.root.join(dir))?;
    }
    let editor = ctx.root.join("editor.sh");
    fs::write(
        &editor,
        "#!/bin/sh\nsed -i \"s/soaktok[0-9n]*/$SOAK_TOKEN/\" \"$1\"\n",
    )?;
    fs::set_permissions(&editor, fs::Permissions::from_mode(0o755))?;
    expect_ok(ctx, &["init"])?;
    let started = Instant::now();
    generate::store(&ctx.store(), records).context("generating the records")?;
    let generated = started.elapsed();
    let started = Instant::now();
    expect_ok(ctx, &["reindex"])?;
    let indexed = started.elapsed();
    let started = Instant::now();
    expect_ok(
        ctx,
        &[
            "remember",
            "--yes",
            "--name",
            "soak-start",
            "--type",
            "project",
            "--description",
            "The soak began here",
            "soaktok0n0",
        ],
    )?;
    let first_write = started.elapsed();
    let check = ctx.run(&["check", "-q"], &[]);
    Ok(format!(
        "Store: {records} generated records (written in {:.1} s), `reindex` {:.1} s, first `remember` {:.2} s; `check` before the run: exit {}.",
        generated.as_secs_f64(),
        indexed.as_secs_f64(),
        first_write.as_secs_f64(),
        check.code
    ))
}

fn expect_ok(ctx: &Ctx, args: &[&str]) -> anyhow::Result<()> {
    let outcome = ctx.run(args, &[]);
    if outcome.code != 0 {
        bail!(
            "memctl {args:?} exited {}: {}",
            outcome.code,
            outcome.stderr
        );
    }
    Ok(())
}

fn start_watcher(ctx: &Ctx) -> anyhow::Result<Child> {
    let mut cmd = ctx.command(&["watch"]);
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let child = cmd.spawn().context("starting memctl watch")?;
    // Give it time to take its lock and say it is ready before the load starts.
    thread::sleep(Duration::from_secs(3));
    Ok(child)
}

/// Whether the watcher lived through the run; then stops it with SIGINT.
fn stop_watcher(mut watcher: Child) -> (bool, String) {
    let alive = matches!(watcher.try_wait(), Ok(None));
    let said = if alive {
        let _ = Command::new("kill")
            .args(["-INT", &watcher.id().to_string()])
            .status();
        let _ = watcher.wait();
        "A watcher ran throughout and was stopped with SIGINT.".to_string()
    } else {
        format!(
            "The watcher DIED during the run ({:?}).",
            watcher.try_wait()
        )
    };
    (alive, said)
}

pub fn soak(options: &Options) -> anyhow::Result<Report> {
    let temp = tempfile::Builder::new().prefix("memctl-soak-").tempdir()?;
    let root = options
        .dir
        .clone()
        .unwrap_or_else(|| temp.path().to_path_buf());
    let memctl = fs::canonicalize(&options.memctl)?;
    let mut ctx = Ctx {
        memctl,
        work: root.join("work"),
        root,
        deadline: Instant::now(),
        tally: Tally::default(),
        saved: Mutex::new(Default::default()),
    };
    let setup = set_up(&ctx, options.records)?;
    eprintln!("{setup}");
    let has_dream = ctx.run(&["dream", "--help"], &[]).code == 0;
    let watcher = start_watcher(&ctx)?;
    let started = Instant::now();
    ctx.deadline = started + options.duration;
    thread::scope(|scope| {
        let ctx = &ctx;
        for n in 0..options.writers {
            scope.spawn(move || workers::writer(ctx, n + 1));
        }
        for n in 0..options.searchers {
            scope.spawn(move || workers::searcher(ctx, n + 1));
        }
        if has_dream {
            scope.spawn(move || workers::dreamer(ctx, options.dream_every));
        }
    });
    let ran_for = started.elapsed();
    let (watcher_alive, watcher_said) = stop_watcher(watcher);
    let end_checks = end_checks(&ctx)?;
    let dream = if has_dream {
        format!("`dream --yes` every {} s", options.dream_every.as_secs())
    } else {
        "No dreams: this memctl has no `dream` command".to_string()
    };
    Ok(Report {
        setup,
        ran_for,
        tally_text: ctx.tally.to_string(),
        failures: ctx.tally.failure_count(),
        findings: ctx.tally.finding_count(),
        dream,
        watcher: watcher_said,
        watcher_alive,
        end_checks,
    })
}

/// The index and `MEMORY.md` agree with the files, and every record a
/// writer saved is on disk as it saved it (nothing lost, nothing torn).
fn end_checks(ctx: &Ctx) -> anyhow::Result<Vec<(String, bool)>> {
    let mut checks = Vec::new();
    let reindex = ctx.run(&["reindex", "--check"], &[]);
    checks.push((
        format!(
            "`reindex --check`: exit {} (the index matches the files)",
            reindex.code
        ),
        reindex.code == 0,
    ));
    let check = ctx
        .command(&["check", "-q"])
        .output()
        .context("memctl check")?;
    let code = check.status.code().unwrap_or(-1);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr),
    );
    let said = stdout
        .lines()
        .chain(stderr.lines())
        .take(3)
        .collect::<Vec<_>>()
        .join(" / ");
    checks.push((
        format!("`check -q`: exit {code} (records and MEMORY.md) {said}"),
        code == 0,
    ));
    let saved = ctx.saved.lock().map(|s| s.clone()).unwrap_or_default();
    let mut wrong = Vec::new();
    for (id, state) in &saved {
        let on_disk = token_on_disk(&ctx.store(), id);
        if on_disk != state.token {
            wrong.push(format!(
                "{id}: saved {:?}, on disk {on_disk:?}",
                state.token
            ));
        }
    }
    let kept = saved.values().filter(|s| s.token.is_some()).count();
    checks.push((
        format!("the writers' {} ids ({kept} kept, the rest forgotten) are on disk as last saved; wrong: {wrong:?}", saved.len()),
        wrong.is_empty(),
    ));
    let list = ctx
        .command(&["list", "--json"])
        .output()
        .context("memctl list")?;
    let listed = serde_json::from_slice::<serde_json::Value>(&list.stdout)
        .ok()
        .and_then(|v| v.as_array().map(Vec::len))
        .unwrap_or(0);
    let files = count_records(&ctx.store());
    checks.push((
        format!("`list --json` shows {listed} records; the store holds {files} record files"),
        listed == files,
    ));
    Ok(checks)
}

fn count_records(store: &Path) -> usize {
    walkdir::WalkDir::new(store)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy();
            e.file_type().is_file()
                && name.ends_with(".md")
                && !name.starts_with('.')
                && name != "MEMORY.md"
        })
        .count()
}
