//! Other processes for the tests: this test binary run again with one
//! ignored test selected, which plays a watcher or a rebuilder until its
//! parent closes its stdin or kills it.

use std::env;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{self, Child, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;

use mdindex::{Index, RebuildCause, Watcher};
use mdstore::Store;

use crate::common::Env;

const ROLE: &str = "MDINDEX_IT_ROLE";
const STORE: &str = "MDINDEX_IT_STORE";
const CACHE: &str = "MDINDEX_IT_CACHE";
const READY: &str = "MDINDEX-IT-READY";
const REBUILT: &str = "MDINDEX-IT-REBUILT";

#[test]
#[ignore = "the body of child processes that other tests start"]
fn child_main() {
    let Ok(role) = env::var(ROLE) else {
        return;
    };
    let store = Store::open(&PathBuf::from(env::var_os(STORE).unwrap())).unwrap();
    let cache = PathBuf::from(env::var_os(CACHE).unwrap());
    // The parent closing stdin (or dying) ends this process.
    thread::spawn(|| {
        let _ = io::stdin().read_to_end(&mut Vec::new());
        process::exit(0);
    });
    let say = |line: &str| {
        let mut out = io::stdout().lock();
        writeln!(out, "{line}").unwrap();
        out.flush().unwrap();
    };
    match role.as_str() {
        "watch" => {
            let started = Watcher::start(&store, &cache, |_| {}).unwrap();
            say(READY);
            started.watcher.wait().unwrap();
        }
        "rebuild" => {
            let mut index = Index::open(&store, &cache, &mut |_| {}).unwrap().index;
            say(READY);
            loop {
                index.rebuild(RebuildCause::Requested, &mut |_| {}).unwrap();
                say(REBUILT);
            }
        }
        other => panic!("unknown role {other}"),
    }
}

/// A child process in a role, killed when dropped.
struct ChildProcess {
    child: Child,
}

impl ChildProcess {
    /// Starts the child and waits until it says it is ready.
    fn start(env: &Env, role: &str) -> (ChildProcess, BufReader<ChildStdout>) {
        let mut child = Command::new(env::current_exe().unwrap())
            .args([
                "child::child_main",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(ROLE, role)
            .env(STORE, env.root())
            .env(CACHE, &env.cache)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let process = ChildProcess { child };
        let mut line = String::new();
        loop {
            line.clear();
            assert_ne!(
                stdout.read_line(&mut line).unwrap(),
                0,
                "the {role} child ended before it was ready"
            );
            if line.trim_end().ends_with(READY) {
                return (process, stdout);
            }
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A watcher in another process.
pub struct ChildWatcher {
    process: ChildProcess,
}

impl ChildWatcher {
    pub fn start(env: &Env) -> ChildWatcher {
        let (process, _stdout) = ChildProcess::start(env, "watch");
        ChildWatcher { process }
    }

    /// Kills the watcher process (SIGKILL on Unix): it gets no chance to
    /// clean up.
    pub fn kill(mut self) {
        self.process.kill();
    }
}

/// A process rebuilding the index over and over.
pub struct ChildRebuilder {
    _process: ChildProcess,
    rebuilds: Arc<AtomicUsize>,
    ended: Arc<AtomicBool>,
}

impl ChildRebuilder {
    pub fn start(env: &Env) -> ChildRebuilder {
        let (process, stdout) = ChildProcess::start(env, "rebuild");
        let rebuilds = Arc::new(AtomicUsize::new(0));
        let ended = Arc::new(AtomicBool::new(false));
        let (counter, end) = (Arc::clone(&rebuilds), Arc::clone(&ended));
        thread::spawn(move || {
            for line in stdout.lines() {
                match line {
                    Ok(line) if line.trim_end().ends_with(REBUILT) => {
                        counter.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
            end.store(true, Ordering::SeqCst);
        });
        ChildRebuilder {
            _process: process,
            rebuilds,
            ended,
        }
    }

    /// Whether the process has exited (it never does unless it failed).
    pub fn has_ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    /// Rebuilds finished so far.
    pub fn rebuilds(&self) -> usize {
        self.rebuilds.load(Ordering::SeqCst)
    }
}
