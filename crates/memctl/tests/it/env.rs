//! A throwaway world for one test: a project folder with a workspace store,
//! a global store, a cache and a home, all inside one temporary folder, and
//! the real `memctl` binary run in it with a clean environment.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use assert_cmd::Command;
use memctl_testkit::{RecordFile, write_file};
use tempfile::TempDir;

/// Not a timing assertion: how long one memctl run may take before the test
/// stops it and fails, so that a run that hangs (a prompt that ignores the
/// end of its input, a model command's child) never hangs the test suite.
pub const RUN_DEADLINE: Duration = Duration::from_secs(300);

/// One finished run of the binary.
#[derive(Clone, Debug)]
pub struct Run {
    /// `memctl ARGS…` as typed, for the snapshot header.
    pub command_line: String,
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Run {
    fn from_output(command_line: String, output: &Output) -> Run {
        Run {
            command_line,
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            // A signal has no exit code; -1 can never be mistaken for one.
            code: output.status.code().unwrap_or(-1),
        }
    }

    /// The run as a snapshot shows it: the command, the exit code, then both streams.
    pub fn render(&self) -> String {
        format!(
            "$ {}\nexit: {}\n----- stdout -----\n{}----- stderr -----\n{}",
            self.command_line, self.code, self.stdout, self.stderr
        )
    }

    /// Stdout and stderr together, for "never printed" assertions.
    pub fn all_output(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// Panics with both streams unless the exit code is `code`.
    #[track_caller]
    pub fn assert_code(&self, code: i32) -> &Run {
        assert_eq!(self.code, code, "unexpected exit code\n{}", self.render());
        self
    }

    #[track_caller]
    pub fn assert_success(&self) -> &Run {
        self.assert_code(0)
    }

    /// Stdout parsed as JSON; panics with the run when it is not JSON.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e})\n{}", self.render()))
    }

    /// `(id, scope)` of each result of `search --json`, best first.
    #[track_caller]
    pub fn hits(&self) -> Vec<(String, String)> {
        let json = self.json();
        let rows = json
            .as_array()
            .unwrap_or_else(|| panic!("not a JSON array\n{}", self.render()));
        rows.iter()
            .map(|row| {
                let field = |key: &str| row[key].as_str().unwrap_or_default().to_string();
                (field("id"), field("scope"))
            })
            .collect()
    }

    /// The ids of the results of `search --json`, best first.
    #[track_caller]
    pub fn hit_ids(&self) -> Vec<String> {
        self.hits().into_iter().map(|(id, _)| id).collect()
    }
}

/// A temporary project with a workspace store, run against the real binary.
pub struct TestEnv {
    root: TempDir,
    /// The real path of the root, as memctl prints it after canonicalising.
    canonical_root: PathBuf,
    /// The project folder: the current folder of every run.
    work: PathBuf,
    /// Extra environment for every run (`EDITOR`, say).
    vars: Vec<(String, String)>,
}

impl TestEnv {
    /// A project folder with an initialised workspace store `.memory/`.
    pub fn new() -> TestEnv {
        let env = TestEnv::bare();
        env.run(&["init"]).assert_success();
        env
    }

    /// A project folder with no store at all.
    pub fn bare() -> TestEnv {
        let root = tempfile::Builder::new()
            .prefix("memctl-it-")
            .tempdir()
            .expect("a temporary folder");
        let canonical_root = fs::canonicalize(root.path()).expect("the temporary folder resolves");
        let work = canonical_root.join("work");
        for dir in [
            "work",
            "home",
            "xdg-data",
            "xdg-cache",
            "xdg-config",
            "cache",
            "tmp",
            "bin",
        ] {
            fs::create_dir_all(canonical_root.join(dir)).expect("a folder in the test root");
        }
        TestEnv {
            root,
            canonical_root,
            work,
            vars: Vec::new(),
        }
    }

    pub fn root(&self) -> &Path {
        &self.canonical_root
    }

    /// The project folder (the current folder of runs).
    pub fn work(&self) -> &Path {
        &self.work
    }

    /// The workspace store, `work/.memory`.
    pub fn store(&self) -> PathBuf {
        self.work.join(".memory")
    }

    /// Where `MEMCTL_GLOBAL_DIR` points.
    pub fn global_store(&self) -> PathBuf {
        self.canonical_root.join("global")
    }

    /// Sets an environment variable for every later run.
    pub fn set_var(&mut self, name: &str, value: impl Into<String>) {
        self.vars.retain(|(n, _)| n != name);
        self.vars.push((name.to_string(), value.into()));
    }

    /// A `memctl` command with the test's environment, run in the project folder.
    pub fn command(&self) -> Command {
        Command::from_std(self.std_command())
    }

    /// [`TestEnv::command`] as a plain `std` command, for spawning and killing.
    pub fn std_command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_memctl"));
        // Nothing of the developer's environment leaks in: no MEMCTL_STORE,
        // MEMCTL_LOCK_TIMEOUT_MS, EDITOR, VISUAL or terminal settings.
        cmd.env_clear();
        cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.canonical_root.join("home"))
            .env("XDG_DATA_HOME", self.canonical_root.join("xdg-data"))
            .env("XDG_CACHE_HOME", self.canonical_root.join("xdg-cache"))
            .env("XDG_CONFIG_HOME", self.canonical_root.join("xdg-config"))
            .env("MEMCTL_GLOBAL_DIR", self.global_store())
            .env("MEMCTL_CACHE_DIR", self.canonical_root.join("cache"))
            .env("TMPDIR", self.canonical_root.join("tmp"))
            .env("NO_COLOR", "1")
            .env("LC_ALL", "C.UTF-8");
        for (name, value) in &self.vars {
            cmd.env(name, value);
        }
        cmd.current_dir(&self.work);
        cmd
    }

    /// Runs `memctl ARGS…` with no standard input (so never a terminal).
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_with(self.command(), args)
    }

    /// Runs `memctl ARGS…` with `stdin` as standard input.
    pub fn run_stdin(&self, args: &[&str], stdin: &str) -> Run {
        let mut cmd = self.command();
        cmd.write_stdin(stdin.to_string());
        self.run_with(cmd, args)
    }

    /// Runs a command prepared with [`TestEnv::command`] (other folder, other env).
    pub fn run_with(&self, mut cmd: Command, args: &[&str]) -> Run {
        cmd.args(args).timeout(RUN_DEADLINE);
        let output = cmd.output().expect("memctl runs");
        Run::from_output(command_line(args), &output)
    }

    /// Runs `memctl ARGS…` unable to write any file larger than 512 bytes
    /// (`ulimit -f 1`, with SIGXFSZ ignored so that a write fails with EFBIG
    /// instead of killing it): a way to make one write fail for a test run
    /// as root, whom permissions do not stop.
    pub fn run_with_small_file_limit(&self, args: &[&str]) -> Run {
        let inner = self.std_command();
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\""])
            .arg(inner.get_program())
            .env_clear();
        for (name, value) in inner.get_envs() {
            if let Some(value) = value {
                cmd.env(name, value);
            }
        }
        if let Some(dir) = inner.get_current_dir() {
            cmd.current_dir(dir);
        }
        self.run_with(Command::from_std(cmd), args)
    }

    /// Runs `memctl ARGS…` on a pseudo-terminal (through util-linux `script`)
    /// and types `keys` into it. Both streams arrive as one, in `stdout`, with terminal escapes and
    /// carriage returns removed.
    /// Needs util-linux `script` (Debian's bsdutils, on every machine this
    /// project builds on): without it the test fails rather than passing
    /// unchecked.
    pub fn run_in_terminal(&self, args: &[&str], keys: &str) -> Run {
        let inner = self.std_command();
        let mut line = shell_quote(&inner.get_program().to_string_lossy());
        for arg in args {
            line.push(' ');
            line.push_str(&shell_quote(arg));
        }
        let mut cmd = std::process::Command::new("script");
        cmd.args(["-qec", &line, "/dev/null"]).env_clear();
        for (name, value) in inner.get_envs() {
            if let Some(value) = value {
                cmd.env(name, value);
            }
        }
        // A terminal that understands nothing, so that prompts draw plainly.
        cmd.env("TERM", "dumb").current_dir(&self.work);
        let mut cmd = Command::from_std(cmd);
        cmd.write_stdin(keys.to_string()).timeout(RUN_DEADLINE);
        let output = cmd
            .output()
            .expect("util-linux `script` runs (the terminal tests need it)");
        let escapes = regex::Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]|\r").expect("a pattern");
        let mut run = Run::from_output(command_line(args), &output);
        run.stdout = escapes.replace_all(&run.stdout, "").into_owned();
        run
    }

    /// `memctl remember --yes` of a new user record, asserted to succeed.
    pub fn remember(&self, name: &str, record_type: &str, description: &str, body: &str) -> Run {
        self.remembering(name)
            .kind(record_type)
            .description(description)
            .body(body)
            .ok()
    }

    /// Writes a file into the workspace store as a person would (no memctl).
    pub fn write_store_file(&self, rel: &str, text: &str) -> PathBuf {
        write_file(&self.store(), rel, text).expect("a store file is written")
    }

    /// A hand-made record with the required keys.
    pub fn write_record(
        &self,
        id: &str,
        record_type: &str,
        description: &str,
        body: &str,
    ) -> PathBuf {
        self.write(&hand_made(id, record_type, description, body))
    }

    /// Writes `record` into the workspace store.
    pub fn write(&self, record: &RecordFile) -> PathBuf {
        record
            .write_in(&self.store())
            .expect("a record file is written")
    }

    /// Replaces a store file as vim and most editors save: the new text goes
    /// to a temporary file beside it, which is then renamed over it.
    pub fn replace_store_file(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.store().join(rel);
        let temp = path.with_file_name(".editor-save.tmp");
        fs::write(&temp, text).expect("the editor's temporary file is written");
        fs::rename(&temp, &path).expect("the temporary file is renamed over the record");
        path
    }

    /// A hand-made record with the required keys in the global store.
    pub fn write_global_record(
        &self,
        id: &str,
        record_type: &str,
        description: &str,
        body: &str,
    ) -> PathBuf {
        hand_made(id, record_type, description, body)
            .write_in(&self.global_store())
            .expect("a global record is written")
    }

    /// The search index files (`*.sqlite`) in the cache folder, sorted.
    pub fn index_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = fs::read_dir(self.canonical_root.join("cache"))
            .expect("the cache folder")
            .map(|e| e.expect("a cache entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "sqlite"))
            .collect();
        files.sort();
        files
    }

    /// The text of a file in the workspace store.
    pub fn read_store_file(&self, rel: &str) -> String {
        let path = self.store().join(rel);
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
    }

    /// Every file under the workspace store (dotfiles and tombstones
    /// included) with its bytes: compare two of these to prove nothing changed.
    pub fn store_bytes(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        files_under(&self.store())
    }

    /// An executable `sh` script in the test's `bin/` folder, for `EDITOR`.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.canonical_root.join("bin").join(name);
        fs::write(&path, format!("#!/bin/sh\nset -e\n{body}\n")).expect("a script is written");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755))
            .expect("the script is made executable");
        path
    }

    /// The insta settings of this environment: its paths, times and dates
    /// replaced by placeholders.
    pub fn insta_settings(&self) -> insta::Settings {
        let mut settings = insta::Settings::clone_current();
        settings.set_omit_expression(true);
        settings.set_prepend_module_to_snapshot(true);
        for root in [self.canonical_root.as_path(), self.root.path()] {
            settings.add_filter(&regex::escape(&root.display().to_string()), "[ROOT]");
        }
        settings.add_filter(
            r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
            "[TIME]",
        );
        settings.add_filter(r"\b\d{4}-\d{2}-\d{2}( \d{2}:\d{2}( UTC)?)?\b", "[DATE]");
        settings.add_filter(r"memctl-edit-[A-Za-z0-9]+", "memctl-edit-[TMP]");
        // The size of an index file depends on SQLite's page layout, not on us.
        settings.add_filter(
            r"truncated: \d+ bytes of \d+",
            "truncated: [N] bytes of [M]",
        );
        settings
    }
}

/// Every regular file under `dir`, relative to it, with its bytes.
pub fn files_under(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries {
            let entry = entry.expect("a folder entry");
            let path = entry.path();
            let file_type = entry.file_type().expect("a file type");
            if file_type.is_dir() {
                pending.push(path);
            } else if file_type.is_file() {
                let rel = path
                    .strip_prefix(dir)
                    .expect("under the folder")
                    .to_path_buf();
                files.insert(rel, fs::read(&path).expect("a file is read"));
            }
        }
    }
    files
}

/// Names of memctl's temporary files (dotfiles ending `.memctl-tmp`) under `dir`.
pub fn temp_files(dir: &Path) -> Vec<PathBuf> {
    files_under(dir)
        .into_keys()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.') && n.ends_with(".memctl-tmp"))
        })
        .collect()
}

fn command_line(args: &[&str]) -> String {
    let mut line = String::from("memctl");
    for arg in args {
        line.push(' ');
        let plain = !arg.is_empty()
            && arg
                .chars()
                .all(|c| c.is_alphanumeric() || "-_./=:@,+".contains(c));
        if plain {
            line.push_str(arg);
        } else {
            line.push_str(&format!("{arg:?}"));
        }
    }
    line
}

/// `text` as one word for `sh`.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The target folder the binary was built in (`…/target/debug/memctl`),
/// where the tests that install real clients keep their venvs.
pub fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_memctl"))
        .ancestors()
        .nth(2)
        .expect("the binary lives in target/<profile>/")
        .to_path_buf()
}

/// A record with only the keys a person types, written as typed.
fn hand_made(id: &str, record_type: &str, description: &str, body: &str) -> RecordFile {
    RecordFile::new(id)
        .kind(record_type)
        .description(description)
        .body(&format!("{body}\n"))
        .verbatim()
}

/// Waits for `child` to end, at most [`RUN_DEADLINE`]; past it the child is
/// killed and the test fails naming `what`. `Child::wait` alone would wait
/// for ever on a child that hangs.
pub fn wait_within(child: &mut std::process::Child, what: &str) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + RUN_DEADLINE;
    loop {
        if let Some(status) = child.try_wait().expect("the child's status") {
            return status;
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not end within {RUN_DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `Child::wait_with_output` with [`wait_within`]'s deadline: its pipes are
/// read to their ends by threads while it runs.
pub fn output_within(mut child: std::process::Child, what: &str) -> Output {
    fn drain(
        pipe: Option<impl std::io::Read + Send + 'static>,
    ) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    }
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = wait_within(&mut child, what);
    Output {
        status,
        stdout: stdout.join().expect("the stdout reader"),
        stderr: stderr.join().expect("the stderr reader"),
    }
}
