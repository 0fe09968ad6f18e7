//! The real `memctl` binary run on a copy of a labelled set's store: the
//! figures reported in docs/CONTEXT.md are what the binary prints, not what
//! the library would (`context` cuts its answer to a budget of characters,
//! `search` reads its argument as the query language).
//!
//! Each store is copied into a temporary folder with its own cache, home,
//! XDG folders and an absent global store, and the binary runs with a clean
//! environment, so nothing of the machine's own memory leaks in.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};

use crate::context::copy_store;

/// Where the evaluation programs look for the binary: `$MEMCTL_BIN`, else
/// the workspace's release build (`cargo build --release -p memctl`).
pub fn release_binary() -> anyhow::Result<PathBuf> {
    let exe = match std::env::var_os("MEMCTL_BIN").filter(|v| !v.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/release/memctl"),
    };
    if !exe.is_file() {
        bail!(
            "no memctl binary at {} (build it with `cargo build --release -p memctl`, or name one in MEMCTL_BIN)",
            exe.display()
        );
    }
    Ok(exe)
}

/// What one command brought for a prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The ids shown, best first (none is an answer too).
    Shown(Vec<String>),
    /// The command refused the prompt as bad input (exit 2): `search` on a
    /// prompt of only stop words. Counts as nothing shown; reported.
    Refused(String),
}

impl Answer {
    pub fn ids(&self) -> &[String] {
        match self {
            Answer::Shown(ids) => ids,
            Answer::Refused(_) => &[],
        }
    }
}

/// A copy of a store, and the binary to ask it with.
pub struct BinaryStore {
    dir: tempfile::TempDir,
    exe: PathBuf,
    store: PathBuf,
}

impl BinaryStore {
    pub fn new(exe: &Path, store_dir: &Path) -> anyhow::Result<BinaryStore> {
        let dir = tempfile::tempdir()?;
        let store = dir.path().join("store");
        copy_store(store_dir, &store)?;
        for sub in [
            "work",
            "home",
            "cache",
            "xdg-data",
            "xdg-cache",
            "xdg-config",
            "tmp",
        ] {
            std::fs::create_dir(dir.path().join(sub))?;
        }
        Ok(BinaryStore {
            dir,
            exe: exe.to_path_buf(),
            store,
        })
    }

    /// `memctl search --limit LIMIT --json -- PROMPT`: the prompt as one
    /// argument, after `--` so that one starting with `-` stays the query.
    pub fn search(&self, prompt: &str, limit: usize) -> anyhow::Result<Answer> {
        let limit = limit.to_string();
        let out = self.run(&["search", "--limit", &limit, "--json", "--", prompt])?;
        match out.code {
            0 | 1 => Ok(Answer::Shown(ids(&out.json()?, "search")?)),
            2 => Ok(Answer::Refused(out.stderr.trim().to_string())),
            _ => Err(out.failure()),
        }
    }

    /// `memctl context --json --query=PROMPT` (and `--budget` when given):
    /// `=` joins the value, so that a prompt starting with `-` is not read
    /// as an option.
    pub fn context(&self, prompt: &str, budget: Option<usize>) -> anyhow::Result<Answer> {
        let query = format!("--query={prompt}");
        let budget = budget.map(|b| format!("--budget={b}"));
        let mut args = vec!["context", "--json", query.as_str()];
        args.extend(budget.as_deref());
        let out = self.run(&args)?;
        if out.code != 0 {
            return Err(out.failure());
        }
        let json = out.json()?;
        let records = json
            .get("records")
            .context("context --json without `records`")?;
        Ok(Answer::Shown(ids(records, "context")?))
    }

    fn run(&self, args: &[&str]) -> anyhow::Result<Output> {
        if let Some(arg) = args.iter().find(|a| a.contains('\0')) {
            bail!("{arg:?} holds a NUL byte, which no command-line argument can carry");
        }
        let root = self.dir.path();
        let mut command = Command::new(&self.exe);
        command
            .env_clear()
            .env("HOME", root.join("home"))
            .env("XDG_DATA_HOME", root.join("xdg-data"))
            .env("XDG_CACHE_HOME", root.join("xdg-cache"))
            .env("XDG_CONFIG_HOME", root.join("xdg-config"))
            .env("TMPDIR", root.join("tmp"))
            .env("MEMCTL_CACHE_DIR", root.join("cache"))
            .env("MEMCTL_GLOBAL_DIR", root.join("no-global-store"));
        // The one variable let through: the model, to measure hybrid
        // ranking against words alone with the same program (issue 18).
        if let Some(model) = std::env::var_os("MEMCTL_EMBED_MODEL") {
            command.env("MEMCTL_EMBED_MODEL", model);
        }
        let output = command
            .current_dir(root.join("work"))
            .arg("--color=never")
            .arg("--store")
            .arg(&self.store)
            .args(args.iter().map(OsStr::new))
            .output()
            .with_context(|| format!("cannot run {}", self.exe.display()))?;
        Ok(Output {
            command: format!("memctl {}", args.join(" ")),
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        })
    }
}

/// One finished run.
struct Output {
    command: String,
    code: i32,
    stdout: String,
    stderr: String,
}

impl Output {
    fn json(&self) -> anyhow::Result<serde_json::Value> {
        serde_json::from_str(&self.stdout)
            .with_context(|| format!("{}: stdout is not JSON:\n{}", self.command, self.stdout))
    }

    fn failure(&self) -> anyhow::Error {
        anyhow::anyhow!(
            "{} exited with {}:\n{}",
            self.command.chars().take(200).collect::<String>(),
            self.code,
            self.stderr
        )
    }
}

/// The ids of an array of results, each of the workspace store.
fn ids(rows: &serde_json::Value, command: &str) -> anyhow::Result<Vec<String>> {
    let rows = rows
        .as_array()
        .with_context(|| format!("{command} --json: not an array of results"))?;
    rows.iter()
        .map(|row| {
            let scope = row["scope"].as_str().unwrap_or_default();
            if scope != "workspace" {
                bail!("{command} --json: a result of the {scope:?} store, not the copy asked");
            }
            row["id"]
                .as_str()
                .map(str::to_string)
                .with_context(|| format!("{command} --json: a result without an `id`"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{EvalStore, SHOWN};
    use crate::sets;
    use mdindex::relevance::THRESHOLD;

    /// The binary of this test's own build profile, built now by the cargo
    /// running the test (`$CARGO`), so that it is never a stale one; or
    /// `$MEMCTL_BIN`. `None` when run outside cargo with neither.
    fn current_binary() -> Option<PathBuf> {
        if let Some(path) = std::env::var_os("MEMCTL_BIN").filter(|v| !v.is_empty()) {
            return Some(PathBuf::from(path));
        }
        let cargo = std::env::var_os("CARGO")?;
        // target/<profile>/deps/<this test>
        let exe = std::env::current_exe().ok()?;
        let profile_dir = exe.parent()?.parent()?;
        let mut build = Command::new(cargo);
        build.current_dir(env!("CARGO_MANIFEST_DIR")).args([
            "build", "--quiet", "--locked", "-p", "memctl", "--bin", "memctl",
        ]);
        if profile_dir.file_name().is_some_and(|n| n == "release") {
            build.arg("--release");
        }
        let status = build.status().expect("cargo runs");
        assert!(status.success(), "cargo build -p memctl failed");
        Some(profile_dir.join("memctl"))
    }

    /// What the sweeps measure (the library) is what ships (the binary):
    /// every tenth prompt of every labelled set, through both.
    #[test]
    fn the_binary_and_the_library_answer_every_tenth_prompt_alike() {
        let Some(exe) = current_binary() else {
            eprintln!("SKIPPED: not run by cargo and no MEMCTL_BIN: no memctl binary to compare");
            return;
        };
        let found = sets::find(&sets::fixtures_root()).unwrap();
        let mut asked = 0;
        for set in &found.sets {
            let binary = BinaryStore::new(&exe, &set.store).unwrap();
            let library = EvalStore::new(&set.store, &[]).unwrap();
            for (at, prompt) in set.prompts.iter().enumerate().step_by(10) {
                let text = &prompt.text;
                let searched = binary.search(text, SHOWN).unwrap();
                assert_eq!(
                    searched.ids(),
                    library.search(text, SHOWN).unwrap(),
                    "{} prompt {at}",
                    set.name
                );
                // A budget nothing reaches: the library does not cut to one.
                let shown = binary.context(text, Some(10_000_000)).unwrap();
                let passed: Vec<String> = library
                    .recall(text, &THRESHOLD)
                    .unwrap()
                    .into_iter()
                    .take(SHOWN)
                    .map(|(id, _)| id)
                    .collect();
                assert_eq!(shown.ids(), passed, "{} prompt {at}", set.name);
                asked += 1;
            }
        }
        assert!(asked >= 30, "{asked}");
    }

    #[test]
    fn a_prompt_that_looks_like_options_or_holds_controls_reaches_the_binary_as_one_argument() {
        let Some(exe) = current_binary() else {
            eprintln!("SKIPPED: not run by cargo and no MEMCTL_BIN: no memctl binary to run");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("deploy-freeze.md"),
            "---\nname: deploy-freeze\ndescription: No deploys on Fridays\ntype: project\n---\nFreeze from Friday noon.\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("SOURCE.md"), "# Copied from zanzibar\n").unwrap();
        let store = BinaryStore::new(&exe, dir.path()).unwrap();
        // `--help` is a query of one word no record holds, not a request for help.
        assert_eq!(
            store.search("--help", SHOWN).unwrap(),
            Answer::Shown(Vec::new())
        );
        assert_eq!(
            store.context("--help", None).unwrap(),
            Answer::Shown(Vec::new())
        );
        for prompt in [
            "-n 1 deploys Fridays",
            "--store=/ deploys",
            "deploys\u{202e} Fridays\t\u{1b}[2J",
        ] {
            let searched = store.search(prompt, SHOWN).unwrap();
            assert_eq!(searched.ids(), ["deploy-freeze"], "{prompt:?}");
            store.context(prompt, None).unwrap();
        }
        let nul = format!("{:#}", store.context("deploys\0Fridays", None).unwrap_err());
        assert!(
            nul.contains("NUL") && nul.contains("deploys\\0Fridays"),
            "{nul}"
        );
        // Provenance files are not copied: they are no part of the user's folder.
        assert_eq!(
            store.search("zanzibar", SHOWN).unwrap(),
            Answer::Shown(Vec::new())
        );
    }
}
