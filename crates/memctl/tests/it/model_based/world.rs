//! The real side of the model-based test: a temporary project whose store
//! is in a git repository with two branches, the real binary, a watcher that
//! comes and goes, and what the test reads back to compare with the model.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use mdstore::{SkipReason, Skipped, Store, WalkItem};

use super::model::{Catalog, Fact};
use crate::env::TestEnv;

/// The two branches a checkout moves between.
pub const BRANCHES: [&str; 2] = ["left", "right"];

/// How long a watcher may take to say it is watching.
const WATCHER_PATIENCE: Duration = Duration::from_secs(30);

/// A running `memctl watch`; killed when dropped.
pub struct Watcher {
    child: Child,
}

impl Watcher {
    fn start(env: &TestEnv) -> Watcher {
        let mut cmd = env.std_command();
        cmd.arg("watch")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("memctl watch starts");
        let pipe = child.stderr.take().expect("a stderr pipe");
        let (send, lines) = mpsc::channel();
        // Reads stderr to its end, so that the watcher never blocks on a full pipe.
        thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let _ = send.send(line);
            }
        });
        let mut said = Vec::new();
        loop {
            match lines.recv_timeout(WATCHER_PATIENCE) {
                Ok(line) if line.starts_with("Watching") => return Watcher { child },
                Ok(line) => said.push(line),
                Err(RecvTimeoutError::Timeout) => panic!("no \"Watching\" line; it said {said:?}"),
                Err(RecvTimeoutError::Disconnected) => {
                    let status = crate::env::wait_within(&mut child, "the watcher");
                    panic!("memctl watch ended ({status}); it said {said:?}")
                }
            }
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        // SIGKILL: no clean-up runs, as when a machine loses power.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The project, its store, the git branch checked out and the watcher.
pub struct World {
    pub env: TestEnv,
    pub branch: usize,
    pub watcher: Option<Watcher>,
    /// Numbers every version of every record, so that each has its own token.
    pub next_version: u32,
}

impl World {
    /// `memctl init`, then a git repository whose two branches both start
    /// from the empty store. `memctl init` runs again once the repository
    /// exists, as docs/GIT.md tells a user to, so that the store's
    /// `.gitattributes` lets merges union `MEMORY.md`.
    pub fn new() -> World {
        let world = World {
            env: TestEnv::new(),
            branch: 0,
            watcher: None,
            next_version: 0,
        };
        world.git(&["init", "-q", "-b", BRANCHES[0]]);
        world.env.run(&["init"]).assert_success();
        world.commit();
        world.git(&["branch", BRANCHES[1]]);
        world
    }

    pub fn git(&self, args: &[&str]) {
        let (success, said) = self.git_status(args);
        assert!(success, "git {args:?}: {said}");
    }

    /// Runs git, returning whether it succeeded and what it printed (stdout,
    /// then stderr): a merge that stops on a conflict is not a failure here.
    pub fn git_status(&self, args: &[&str]) -> (bool, String) {
        let home = self.env.root().join("home");
        let output = Command::new("git")
            .args([
                "-c",
                "user.name=memctl-test",
                "-c",
                "user.email=test@memctl.invalid",
            ])
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "core.hooksPath=/dev/null",
            ])
            .args(args)
            .current_dir(self.env.work())
            .env("HOME", home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git runs (the model-based test needs it)");
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (output.status.success(), said)
    }

    /// The commit checked out.
    pub fn head(&self) -> String {
        let (found, said) = self.git_status(&["rev-parse", "HEAD"]);
        assert!(found, "git rev-parse HEAD: {said}");
        said
    }

    /// Commits the store as it is on the branch checked out.
    pub fn commit(&self) {
        self.git(&["add", "-A", ".memory"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", "model step"]);
    }

    /// The next version's token and description for a record.
    pub fn next_fact(&mut self) -> Fact {
        self.next_version += 1;
        let words = ["alpha", "bravo", "cedar", "delta", "ember", "fjord"];
        let word = words[self.next_version as usize % words.len()];
        Fact {
            description: format!("about {word} number {}", self.next_version),
            tokens: BTreeSet::from([format!("v{}x", self.next_version)]),
        }
    }

    /// The body a record's version carries: a word every record shares and
    /// its version's token.
    pub fn body(fact: &Fact) -> String {
        let tokens: Vec<&str> = fact.tokens.iter().map(String::as_str).collect();
        format!("memfact {} holds", tokens.join(" "))
    }

    /// A record file as a person would write it.
    pub fn hand_written(id: &str, fact: &Fact) -> String {
        format!(
            "---\nname: {id}\ndescription: {}\ntype: project\n---\n{}\n",
            fact.description,
            World::body(fact)
        )
    }

    pub fn record_path(&self, id: &str) -> PathBuf {
        self.env.store().join(format!("{id}.md"))
    }

    pub fn start_watcher(&mut self) {
        if let Some(watcher) = &mut self.watcher
            && watcher.child.try_wait().ok().flatten().is_none()
        {
            return;
        }
        self.watcher = Some(Watcher::start(&self.env));
    }

    /// Every index file in the cache folder (the database and its WAL).
    pub fn index_files(&self) -> Vec<PathBuf> {
        let cache = self.env.root().join("cache");
        let Ok(entries) = fs::read_dir(&cache) else {
            return Vec::new();
        };
        entries
            .map(|entry| entry.expect("a cache entry").path())
            .filter(|path| path.to_string_lossy().contains(".sqlite"))
            .collect()
    }

    /// What the record files say: `id → fact`, read with mdstore; a file
    /// left with git's conflict markers is no record, and only `conflicted`
    /// ids may be.
    pub fn files(&self, conflicted: &BTreeSet<String>) -> BTreeMap<String, Fact> {
        let store = Store::open(&self.env.store()).expect("the store opens");
        let mut facts = BTreeMap::new();
        let mut marked = BTreeSet::new();
        for item in store.walk() {
            let read = match item {
                WalkItem::Record(entry) => store.read_entry(&entry),
                WalkItem::Skipped(skipped) => Err(skipped),
            };
            let record = match read {
                Ok(record) => record,
                Err(Skipped {
                    rel_path,
                    reason: SkipReason::Conflicted(_),
                }) => {
                    let stem = rel_path.file_stem().expect("a record file's name");
                    marked.insert(stem.to_string_lossy().into_owned());
                    continue;
                }
                Err(skipped) => panic!("a file was skipped: {skipped:?}"),
            };
            let tokens = tokens_of(&record.body);
            assert!(
                !tokens.is_empty(),
                "{} holds no token: {:?}",
                record.id,
                record.body
            );
            let description = record.meta.description.clone().unwrap_or_default();
            facts.insert(
                record.id,
                Fact {
                    description,
                    tokens,
                },
            );
        }
        assert_eq!(&marked, conflicted, "the files holding conflict markers");
        facts
    }

    /// Whether `.tombstones/` holds a tombstone of `id` (`id.json`, or
    /// `id~hash.json` beside an earlier one).
    pub fn has_tombstone(&self, id: &str) -> bool {
        let (plain, beside) = (format!("{id}.json"), format!("{id}~"));
        fs::read_dir(self.env.store().join(".tombstones"))
            .map(|entries| {
                entries.map_while(Result::ok).any(|entry| {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    name == plain || name.starts_with(&beside)
                })
            })
            .unwrap_or(false)
    }

    /// `MEMORY.md` as `id → description`.
    pub fn catalog(&self) -> Catalog {
        let text = fs::read_to_string(self.env.store().join("MEMORY.md")).expect("MEMORY.md");
        let mut catalog = Catalog::new();
        for line in text.lines().filter(|line| line.starts_with("- [")) {
            let (link, description) = line
                .split_once(") — ")
                .unwrap_or_else(|| panic!("a MEMORY.md line without a description: {line}"));
            let id = link[3..].split_once("](").expect("a MEMORY.md link").0;
            catalog.insert(id.to_string(), description.to_string());
        }
        catalog
    }
}

/// The version tokens (`v12x`) in a body.
pub fn tokens_of(body: &str) -> BTreeSet<String> {
    body.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| {
            word.len() > 2
                && word.starts_with('v')
                && word.ends_with('x')
                && word[1..word.len() - 1].bytes().all(|b| b.is_ascii_digit())
        })
        .map(str::to_string)
        .collect()
}

/// Replaces `path` as editors save: a temporary file beside it, renamed over it.
pub fn save_by_rename(path: &Path, text: &str) {
    let temp = path.with_file_name(".editor-save.tmp");
    fs::write(&temp, text).expect("the editor's temporary file");
    fs::rename(&temp, path).expect("the temporary file is renamed over the record");
}
