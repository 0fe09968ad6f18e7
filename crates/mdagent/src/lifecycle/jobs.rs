//! Background jobs a session's hook starts: memctl's own subcommands,
//! detached so that the hook answers at once and its pipes close when it
//! exits. A job runs in a process group of its own (a signal the agent
//! sends to the hook's group, or a terminal's Ctrl-C, does not reach it),
//! with no standard input and its output appended to a log in the cache
//! folder. Two of the same job never run at once: each takes the lock it
//! already has (the watcher's `.watch` lock, the dream lock) and leaves
//! quietly when another holds it.

use std::ffi::OsString;
use std::fs::{self, OpenOptions};
use std::io;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mdstore::Store;

use crate::Config;

/// A log is cut back to nothing before a job appends to it beyond this.
const MAX_LOG_BYTES: u64 = 1024 * 1024;

/// The jobs a hook starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// `memctl watch --background`: keeps the index's dirty list current.
    Watch,
    /// `memctl dream --auto --background`: consolidation when its gates open.
    Dream,
    /// `memctl extract --transcript FILE --pending`: a finished session's
    /// candidates, kept for `memctl review` (`crate::lifecycle::after_session`).
    Extract,
}

impl Job {
    /// Its name in file names and messages.
    pub fn name(self) -> &'static str {
        match self {
            Job::Watch => "watch",
            Job::Dream => "dream",
            Job::Extract => "extract",
        }
    }
}

/// The memctl program that jobs run: the running binary, so that a job is
/// the same version as the hook that starts it.
#[derive(Clone, Debug)]
pub struct Launcher {
    pub program: PathBuf,
}

impl Launcher {
    /// The running program, by its canonical path: the memctl whose hook
    /// or server starts the job.
    pub fn current() -> io::Result<Launcher> {
        let program = std::env::current_exe().and_then(fs::canonicalize)?;
        Ok(Launcher { program })
    }
}

/// A job that could not be started.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("cannot open the log {}", path.display())]
    Log {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot start {} in the background", program.display())]
    Spawn {
        program: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// Where `job` of `store` writes its output: `<cache>/<store's index name>.<job>.log`.
pub fn log_path(config: &Config, store: &Store, job: Job) -> PathBuf {
    crate::cache_file(config, store, &format!("{}.log", job.name()))
}

/// Starts `launcher`'s program with `args`, detached, and returns without
/// waiting for it; its output is appended to `log` (a job's
/// [`log_path`]).
pub fn start(launcher: &Launcher, log: &Path, args: &[OsString]) -> Result<(), JobError> {
    let path = log.to_path_buf();
    let log = open_log(&path).map_err(|source| JobError::Log {
        path: path.clone(),
        source,
    })?;
    let err = log.try_clone().map_err(|source| JobError::Log {
        path: path.clone(),
        source,
    })?;
    Command::new(&launcher.program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(err)
        // Not the agent's folder, which may be removed while the job runs.
        .current_dir("/")
        .process_group(0)
        .spawn()
        // Not waited for: the job outlives the hook, and init reaps it.
        .map(drop)
        .map_err(|source| JobError::Spawn {
            program: launcher.program.clone(),
            source,
        })
}

/// The log, appended to (a job already running may be writing to it), cut
/// back first when it has grown beyond [`MAX_LOG_BYTES`]; only its owner
/// may read it.
fn open_log(path: &Path) -> io::Result<fs::File> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let too_long = fs::metadata(path).is_ok_and(|m| m.len() > MAX_LOG_BYTES);
    let mut options = OpenOptions::new();
    options.create(true);
    if too_long {
        options.write(true).truncate(true);
    } else {
        options.append(true);
    }
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    #[test]
    fn a_started_job_runs_detached_with_its_output_in_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let done = dir.path().join("done");
        let go = dir.path().join("go");
        let log = dir.path().join("cache/job.log");
        let launcher = Launcher {
            program: PathBuf::from("/bin/sh"),
        };
        // Its own process group, no terminal, in `/`, both streams logged.
        // It waits for `go`, made only after `start` returned: a `start`
        // that waited for its job would never return.
        let script = format!(
            "while [ ! -e '{}' ]; do sleep 0.05; done; echo out; echo err >&2; pwd; test -t 0 || echo no-terminal; \
             test \"$(ps -o pgid= -p $$ | tr -d ' ')\" = $$ && echo own-group; touch '{}'",
            go.display(),
            done.display()
        );
        let started = Instant::now();
        start(&launcher, &log, &["-c".into(), script.into()]).unwrap();
        fs::write(&go, "").unwrap();
        while !done.exists() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the job never ran"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let text = fs::read_to_string(&log).unwrap();
        for line in ["out", "err", "/", "no-terminal", "own-group"] {
            assert!(text.lines().any(|l| l == line), "{line:?} in {text:?}");
        }
    }

    #[test]
    fn a_program_that_cannot_start_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let launcher = Launcher {
            program: dir.path().join("no-such-memctl"),
        };
        let err = start(&launcher, &dir.path().join("job.log"), &[]).unwrap_err();
        assert!(err.to_string().contains("no-such-memctl"), "{err}");
    }

    #[test]
    fn a_long_log_is_cut_back_and_only_its_owner_reads_it() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/job.log");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, vec![b'x'; MAX_LOG_BYTES as usize + 1]).unwrap();
        drop(open_log(&path).unwrap());
        assert_eq!(fs::metadata(&path).unwrap().len(), 0);
        let fresh = dir.path().join("new.log");
        drop(open_log(&fresh).unwrap());
        assert_eq!(
            fs::metadata(&fresh).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}
