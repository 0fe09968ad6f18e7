/*!
The crash program (issue 25; run on demand, never a test): `kill -9` at
random moments across writes (`remember` new and update, `edit`, `forget`),
`reindex` and `dream --yes`, again and again on one store, and after every
kill a check that nothing is half-written or lost:

- the first reading command after the kill (`list --json`) finds no
  journal, no pending tombstone and no temporary file of memctl's left
  visible, and lists exactly the record files on disk;
- every record file reads as a whole record; the record a killed write was
  changing is its old or its new version, byte for byte;
- every record that was there before and is gone now has a tombstone (a
  forget or a dream removed it), and a killed dream removed none or all it
  planned; a forget that said it was done is gone, with its tombstone;
- a write acknowledged (exit 0) is on disk as it said;
- every tenth step, and at the end: the next write succeeds, `check -q`
  exits 0 and `reindex --check` exits 0.

Kill delays are drawn up to 1.25 times how long each operation takes
uncontested, measured first, so that kills land all through each run.

Usage: `memctl-crash --memctl target/release/memctl [--records 2000]
[--kills 160] [--seed 1] [--dir DIR]`. docs/RELIABILITY.md has the figures.
*/
#![forbid(unsafe_code)]

#[path = "../generate.rs"]
#[allow(dead_code, reason = "the benchmark's generator; crash uses part of it")]
mod generate;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use generate::Rng;

struct Options {
    memctl: PathBuf,
    records: usize,
    kills: usize,
    seed: u64,
    dir: Option<PathBuf>,
}

fn parse_args() -> anyhow::Result<Options> {
    let mut options = Options {
        memctl: PathBuf::from("target/release/memctl"),
        records: 2_000,
        kills: 160,
        seed: 1,
        dir: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .with_context(|| format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<u64>()
                .with_context(|| format!("{flag} {value:?}: not a number"))
        };
        match flag.as_str() {
            "--memctl" => options.memctl = PathBuf::from(&value),
            "--records" => options.records = number()? as usize,
            "--kills" => options.kills = number()? as usize,
            "--seed" => options.seed = number()?,
            "--dir" => options.dir = Some(PathBuf::from(&value)),
            _ => bail!("unknown argument {flag:?}; see crates/bench/src/bin/crash.rs"),
        }
    }
    if !options.memctl.is_file() {
        bail!(
            "{}: no memctl binary there; build it with `cargo build --release -p memctl`",
            options.memctl.display()
        );
    }
    // Runs happen in the project folder.
    options.memctl = fs::canonicalize(&options.memctl)?;
    Ok(options)
}

/// The project, its store and the binary.
struct World {
    memctl: PathBuf,
    root: PathBuf,
}

impl World {
    fn store(&self) -> PathBuf {
        self.root.join("work/.memory")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.memctl);
        cmd.args(args)
            .current_dir(self.root.join("work"))
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root.join("home"))
            .env("MEMCTL_CACHE_DIR", self.root.join("cache"))
            .env("MEMCTL_GLOBAL_DIR", self.root.join("global"))
            .env("MEMCTL_LOCK_TIMEOUT_MS", "60000")
            .env("EDITOR", self.root.join("editor.sh"))
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// Runs to the end: exit code and both streams.
    fn run(&self, args: &[&str]) -> (i32, String) {
        match self.command(args).output() {
            Ok(out) => (
                out.status.code().unwrap_or(-1),
                format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ),
            ),
            Err(e) => (-1, e.to_string()),
        }
    }
}

/// One operation the program kills.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    Add,
    Update,
    Edit,
    Forget,
    Reindex,
    Dream,
}

const OPS: [Op; 6] = [
    Op::Add,
    Op::Update,
    Op::Edit,
    Op::Forget,
    Op::Reindex,
    Op::Dream,
];

/// Every record file's bytes, by path relative to the store.
fn records(store: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(store)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(Result::ok)
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().is_file() && name.ends_with(".md") && name != "MEMORY.md" {
            let rel = entry
                .path()
                .strip_prefix(store)
                .unwrap_or(entry.path())
                .to_path_buf();
            out.insert(rel, fs::read(entry.path()).unwrap_or_default());
        }
    }
    out
}

fn tombstoned(store: &Path) -> BTreeSet<String> {
    mdstore::tombstone::load_all(store)
        .0
        .into_iter()
        .map(|t| mdstore::id::id_key(&t.id))
        .collect()
}

fn id_of(rel: &Path) -> String {
    mdstore::id::id_key(&rel.with_extension("").to_string_lossy())
}

/// What memctl may have left visible that the next reader must clear.
fn leftovers(store: &Path) -> Vec<String> {
    let mut found: Vec<String> = mdstore::tombstone::pending(store)
        .into_iter()
        .map(|p| p.path.display().to_string())
        .collect();
    if store.join(mdstore::txn::JOURNAL_FILE).exists() {
        found.push(mdstore::txn::JOURNAL_FILE.to_string());
    }
    found
}

fn temp_files(store: &Path) -> usize {
    walkdir::WalkDir::new(store)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| mdstore::atomic::is_temp_name(&e.file_name().to_string_lossy()))
        .count()
}

/// Counts and findings of a run.
#[derive(Default)]
struct Tally {
    killed: BTreeMap<Op, usize>,
    finished: BTreeMap<Op, usize>,
    repaired: usize,
    checks: usize,
    findings: Vec<String>,
}

fn set_up(world: &World, records: usize) -> anyhow::Result<()> {
    for dir in ["work", "home", "cache"] {
        fs::create_dir_all(world.root.join(dir))?;
    }
    let editor = world.root.join("editor.sh");
    fs::write(
        &editor,
        "#!/bin/sh\nsed -i \"s/crashtok[0-9]*/$CRASH_TOKEN/\" \"$1\"\n",
    )?;
    fs::set_permissions(&editor, fs::Permissions::from_mode(0o755))?;
    let (code, out) = world.run(&["init"]);
    if code != 0 {
        bail!("init: {out}");
    }
    generate::store(&world.store(), records).context("generating the records")?;
    let (code, out) = world.run(&["reindex"]);
    if code != 0 {
        bail!("reindex: {out}");
    }
    Ok(())
}

/// Arguments of `op` at step `step`; a dream is given work first (two
/// copies of a record and an expired one), so that it has files to change.
fn prepare(world: &World, op: Op, step: usize, rng: &mut Rng) -> Vec<String> {
    let store = world.store();
    match op {
        Op::Add => remember(&format!("crash-{step:04}"), step),
        Op::Update | Op::Edit => {
            let churn = store.join("churn.md");
            if !churn.exists() {
                world.run(&to_refs(&remember("churn", step)));
            }
            if op == Op::Edit {
                vec!["edit".into(), "churn".into()]
            } else {
                remember("churn", step)
            }
        }
        Op::Forget => {
            let added: Vec<PathBuf> = records(&store)
                .into_keys()
                .filter(|p| p.to_string_lossy().starts_with("crash-"))
                .collect();
            let target = if added.is_empty() {
                let id = format!("crash-{step:04}");
                world.run(&to_refs(&remember(&id, step)));
                id
            } else {
                id_of(&added[rng.below(added.len())])
            };
            vec!["forget".into(), "--yes".into(), target]
        }
        Op::Reindex => vec!["reindex".into()],
        Op::Dream => {
            for copy in ["a", "b"] {
                let text = format!(
                    "---\nname: dup-{step}-{copy}\ndescription: Duplicate {step} for the crash program\ntype: project\n---\nThe crash program planted duplicate {step} here.\n"
                );
                let _ = fs::write(store.join(format!("dup-{step}-{copy}.md")), text);
            }
            let _ = fs::write(
                store.join(format!("old-{step}.md")),
                format!(
                    "---\nname: old-{step}\ndescription: Expired note {step}\ntype: project\nexpires: 2020-01-01\n---\nExpired {step}.\n"
                ),
            );
            // The dream may remove up to its planted records only.
            vec![
                "dream".into(),
                "--yes".into(),
                "--max-delete-pct".into(),
                "100".into(),
            ]
        }
    }
}

fn remember(id: &str, step: usize) -> Vec<String> {
    [
        "remember",
        "--yes",
        "--force",
        "--name",
        id,
        "--type",
        "project",
        "--description",
        &format!("Crash program record {id} at step {step}"),
        &format!("crashtok{step} written at step {step}."),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn to_refs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// Checks what the kill (or the end) of `op` left, against the records
/// before it.
fn verify(
    world: &World,
    op: Op,
    args: &[String],
    acknowledged: bool,
    before: &BTreeMap<PathBuf, Vec<u8>>,
    tally: &mut Tally,
) {
    let store = world.store();
    let mut finding = |what: String| tally.findings.push(format!("{op:?} {args:?}: {what}"));
    let (code, out) = world.run(&["list", "--json"]);
    if out.contains("repaired:") {
        tally.repaired += 1;
    }
    if code != 0 {
        finding(format!("list exited {code}: {out}"));
        return;
    }
    let left = leftovers(&store);
    if !left.is_empty() {
        finding(format!("left after the first reader: {left:?}"));
    }
    let now = records(&store);
    let listed = out.matches("\"id\":").count();
    if listed != now.len() {
        finding(format!(
            "list shows {listed} records, the store holds {}",
            now.len()
        ));
    }
    for (rel, bytes) in &now {
        let text = String::from_utf8_lossy(bytes);
        if !text.starts_with("---\n") || mdstore::frontmatter::parse(&text).frontmatter.is_none() {
            finding(format!("{} is not a whole record", rel.display()));
        }
    }
    let tombs = tombstoned(&store);
    for rel in before.keys().filter(|r| !now.contains_key(*r)) {
        if !tombs.contains(&id_of(rel)) {
            finding(format!("{} went without a tombstone", rel.display()));
        }
    }
    if op == Op::Dream && !acknowledged {
        // Killed: its journal undid it (nothing it planned is gone) or it
        // had finished (every expired note gone, one of each copy pair).
        let gone = |r: &PathBuf| before.contains_key(r) && !now.contains_key(r);
        let planted: Vec<&PathBuf> = before
            .keys()
            .filter(|r| {
                let s = r.to_string_lossy();
                s.starts_with("dup-") || s.starts_with("old-")
            })
            .collect();
        let none = planted.iter().all(|r| !gone(r));
        let whole = planted.iter().all(|r| {
            let s = r.to_string_lossy();
            match s.strip_suffix("-a.md") {
                Some(pair) => gone(r) != gone(&PathBuf::from(format!("{pair}-b.md"))),
                None => s.ends_with("-b.md") || gone(r),
            }
        });
        if !(none || whole) {
            finding("a killed dream is neither undone nor whole".to_string());
        }
    }
    if acknowledged {
        match op {
            Op::Forget => {
                let target = PathBuf::from(format!("{}.md", args[2]));
                if now.contains_key(&target) || !tombs.contains(&mdstore::id::id_key(&args[2])) {
                    finding(
                        "a forget said done, yet the record is there or has no tombstone".into(),
                    );
                }
            }
            Op::Add | Op::Update => {
                let target = PathBuf::from(format!("{}.md", args[4]));
                let token = args
                    .last()
                    .map(|b| b.split(' ').next().unwrap_or(""))
                    .unwrap_or("");
                if !now
                    .get(&target)
                    .is_some_and(|b| String::from_utf8_lossy(b).contains(token))
                {
                    finding(format!(
                        "{} said saved, yet is not on disk as saved",
                        target.display()
                    ));
                }
            }
            _ => {}
        }
    }
}

fn full_check(world: &World, tally: &mut Tally, step: usize) {
    tally.checks += 1;
    let next = remember(&format!("after-{step:04}"), step);
    for args in [
        next,
        vec!["check".into(), "-q".into()],
        vec!["reindex".into(), "--check".into()],
    ] {
        let (code, out) = world.run(&to_refs(&args));
        if code != 0 {
            tally
                .findings
                .push(format!("step {step}: {args:?} exited {code}: {out}"));
        }
    }
    let temps = temp_files(&world.store());
    if temps > 0 {
        tally.findings.push(format!(
            "step {step}: {temps} temporary files after a write"
        ));
    }
}

fn main() -> anyhow::Result<()> {
    let options = parse_args()?;
    let kept;
    let root = match &options.dir {
        Some(dir) => {
            fs::create_dir_all(dir)?;
            dir.clone()
        }
        None => {
            kept = tempfile::Builder::new().prefix("memctl-crash-").tempdir()?;
            kept.path().to_path_buf()
        }
    };
    let world = World {
        memctl: options.memctl.clone(),
        root,
    };
    let started = Instant::now();
    set_up(&world, options.records)?;
    let setup = started.elapsed();
    let mut rng = Rng::new(options.seed);
    // How long each operation takes uncontested sets its kill delays.
    let mut typical = BTreeMap::new();
    for (n, op) in OPS.iter().enumerate() {
        let args = prepare(&world, *op, n, &mut rng);
        let started = Instant::now();
        let (code, out) = world.run(&to_refs(&args));
        if code != 0 {
            bail!("{op:?} {args:?} exited {code} uncontested: {out}");
        }
        typical.insert(*op, started.elapsed());
    }
    let mut tally = Tally::default();
    for step in OPS.len()..OPS.len() + options.kills {
        let op = OPS[rng.below(OPS.len())];
        let args = prepare(&world, op, step, &mut rng);
        let before = records(&world.store());
        let bound = typical[&op].as_micros() as u64 * 5 / 4 + 1;
        let delay = Duration::from_micros(rng.next() % bound);
        let token = format!("crashtok{step}");
        let ended = {
            let mut cmd = world.command(&to_refs(&args));
            cmd.env("CRASH_TOKEN", &token);
            match cmd.spawn() {
                Ok(mut child) => {
                    let started = Instant::now();
                    loop {
                        if let Ok(Some(status)) = child.try_wait() {
                            break Some(status.code().unwrap_or(-1));
                        }
                        if started.elapsed() >= delay {
                            let _ = child.kill();
                            let _ = child.wait();
                            break None;
                        }
                        thread::sleep(Duration::from_micros(200));
                    }
                }
                Err(e) => bail!("cannot start memctl: {e}"),
            }
        };
        match ended {
            None => *tally.killed.entry(op).or_default() += 1,
            Some(code) => {
                *tally.finished.entry(op).or_default() += 1;
                if code != 0 {
                    tally
                        .findings
                        .push(format!("step {step}: {op:?} exited {code} uncontested"));
                }
            }
        }
        verify(&world, op, &args, ended == Some(0), &before, &mut tally);
        if step % 10 == 0 {
            full_check(&world, &mut tally, step);
        }
    }
    full_check(&world, &mut tally, OPS.len() + options.kills);
    println!("{}", report(&options, setup, &typical, &tally));
    if !tally.findings.is_empty() {
        std::process::exit(1);
    }
    Ok(())
}

fn report(
    options: &Options,
    setup: Duration,
    typical: &BTreeMap<Op, Duration>,
    tally: &Tally,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Store: {} generated records (set up and indexed in {:.1} s); seed {}.\n",
        options.records,
        setup.as_secs_f64(),
        options.seed
    );
    let _ = writeln!(
        out,
        "| operation | uncontested | killed mid-run | ran to the end |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|");
    for op in OPS {
        let _ = writeln!(
            out,
            "| {op:?} | {} ms | {} | {} |",
            typical[&op].as_millis(),
            tally.killed.get(&op).copied().unwrap_or(0),
            tally.finished.get(&op).copied().unwrap_or(0)
        );
    }
    let killed: usize = tally.killed.values().sum();
    let _ = writeln!(
        out,
        "\n{killed} kills landed mid-run of {} runs; the first reader after them repaired {} (a forget settled or a dream undone); {} full checks (a write, `check -q`, `reindex --check`).",
        options.kills, tally.repaired, tally.checks
    );
    if tally.findings.is_empty() {
        let _ = writeln!(
            out,
            "\nVerdict: nothing half-written or lost; every check passed."
        );
    } else {
        let _ = writeln!(out, "\nFindings ({}):", tally.findings.len());
        for f in &tally.findings {
            let _ = writeln!(out, "- {f}");
        }
    }
    out
}
