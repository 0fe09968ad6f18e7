//! Running a user's model command (`--llm-cmd`, for `dream` and `extract`):
//! any command-line model runner (`claude -p`, `llm`, `ollama run …`) that
//! reads a prompt on standard input and answers on standard output. The
//! command line is split like a shell's words but run without a shell, so
//! nothing in it is expanded twice. It gets a deadline and a cap on its
//! answer; its standard error reaches the user line by line with control
//! characters escaped, so a runner cannot drive the user's terminal.
//!
//! The deadline covers the whole run, up to the end of the answer: a runner
//! that exits but leaves a process of its own holding its standard output
//! (a daemon, `sleep 30 &`) has not finished answering. So the command runs
//! in a process group of its own, and at the deadline the whole group is
//! killed and its output no longer waited for.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

/// The most a model's answer may hold; a longer one is refused, not cut.
pub const MAX_ANSWER_BYTES: u64 = 4 * 1024 * 1024;

/// What to do about [`ModelCmdError::OutputHeld`], whichever face reports it.
pub const OUTPUT_HELD_HINT: &str = "a runner may leave a process behind only with its output sent elsewhere (`daemon >/dev/null 2>&1 &`), never holding memctl's pipe";

/// How long the runner's last words on standard error are waited for once
/// it has exited: a process it started may hold the pipe open.
const STDERR_GRACE: Duration = Duration::from_secs(1);

#[derive(Debug, thiserror::Error)]
pub enum ModelCmdError {
    #[error("the model command is empty")]
    Empty,
    #[error("the model command cannot be split into words: {0}")]
    Unsplittable(String),
    #[error("cannot run the model command '{program}': {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("the model command did not answer within {0} s and was stopped")]
    Timeout(u64),
    #[error(
        "the model command exited, but a process it started still held its output after {0} s; they were stopped"
    )]
    OutputHeld(u64),
    #[error("the model command failed ({0})")]
    Failed(String),
    #[error("the model command's answer is larger than {MAX_ANSWER_BYTES} bytes")]
    TooLarge,
    #[error("the model command's answer is not UTF-8")]
    NotUtf8,
    #[error("cannot talk to the model command: {0}")]
    Io(#[from] std::io::Error),
}

impl ModelCmdError {
    /// A command that cannot be run, or an answer that is not one, is the
    /// caller's to fix; a run that fails or hangs is a failure of the run.
    pub fn kind(&self) -> crate::Kind {
        match self {
            ModelCmdError::Empty
            | ModelCmdError::Unsplittable(_)
            | ModelCmdError::Spawn { .. }
            | ModelCmdError::TooLarge
            | ModelCmdError::NotUtf8 => crate::Kind::BadInput,
            ModelCmdError::Timeout(_)
            | ModelCmdError::OutputHeld(_)
            | ModelCmdError::Failed(_)
            | ModelCmdError::Io(_) => crate::Kind::Internal,
        }
    }
}

/// Runs `command_line` with `input` on its standard input and returns what
/// it printed on standard output. A command that exits non-zero, is not
/// done answering by `timeout` (it and every process of its group are
/// killed) or answers too much is an error.
pub fn run(command_line: &str, input: &[u8], timeout: Duration) -> Result<String, ModelCmdError> {
    let started = Instant::now();
    let words = shell_words::split(command_line)
        .map_err(|err| ModelCmdError::Unsplittable(err.to_string()))?;
    let (program, args) = words.split_first().ok_or(ModelCmdError::Empty)?;
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    in_own_group(&mut command);
    let mut child = command.spawn().map_err(|source| ModelCmdError::Spawn {
        program: program.clone(),
        source,
    })?;
    let answer = start_pipes(&mut child, input)?;
    let Some(status) = child.wait_timeout(timeout)? else {
        kill_group(&mut child);
        return Err(ModelCmdError::Timeout(timeout.as_secs()));
    };
    // The runner's last words come before ours, but are not waited for long.
    let left = timeout.saturating_sub(started.elapsed());
    let _ = answer.stderr_done.recv_timeout(left.min(STDERR_GRACE));
    if !status.success() {
        return Err(ModelCmdError::Failed(status.to_string()));
    }
    // It exited: what it printed is whole once nothing holds the pipe.
    let left = timeout.saturating_sub(started.elapsed());
    let Ok(read) = answer.stdout.recv_timeout(left) else {
        kill_group(&mut child);
        return Err(ModelCmdError::OutputHeld(timeout.as_secs()));
    };
    let answer = read?;
    if answer.len() as u64 > MAX_ANSWER_BYTES {
        return Err(ModelCmdError::TooLarge);
    }
    String::from_utf8(answer).map_err(|_| ModelCmdError::NotUtf8)
}

/// The runner's output as its threads deliver it: the answer once its
/// standard output closes, and a word once its standard error has.
struct Pipes {
    stdout: mpsc::Receiver<std::io::Result<Vec<u8>>>,
    stderr_done: mpsc::Receiver<()>,
}

/// Writing, reading and relaying on their own threads: a runner that
/// answers before it has read everything would otherwise deadlock with us,
/// and none of them may hold up the deadline (they are never joined).
fn start_pipes(child: &mut Child, input: &[u8]) -> Result<Pipes, ModelCmdError> {
    let mut stdin = child.stdin.take().ok_or_else(missing_pipe)?;
    let input = input.to_vec();
    thread::spawn(move || {
        // A runner that exits without reading its input is judged by its exit.
        let _ = stdin.write_all(&input);
    });
    let stdout = child.stdout.take().ok_or_else(missing_pipe)?;
    let (answer, answered) = mpsc::channel();
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let read = stdout
            .take(MAX_ANSWER_BYTES + 1)
            .read_to_end(&mut bytes)
            .map(|_| bytes);
        let _ = answer.send(read);
    });
    let (relayed, stderr_done) = mpsc::channel();
    if let Some(stderr) = child.stderr.take() {
        thread::spawn(move || {
            relay_escaped(stderr);
            let _ = relayed.send(());
        });
    }
    Ok(Pipes {
        stdout: answered,
        stderr_done,
    })
}

/// The runner leads a process group of its own, so that what it starts
/// can be stopped with it.
#[cfg(unix)]
fn in_own_group(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
}

#[cfg(not(unix))]
fn in_own_group(_command: &mut Command) {}

/// Kills the runner and every process left in its group, and reaps it. The
/// group outlives its leader while any member lives, and its id is not
/// given to another process meanwhile, so this reaches only the runner's.
#[cfg(unix)]
fn kill_group(child: &mut Child) {
    use rustix::process::{Pid, Signal, kill_process_group};
    // A group already empty (ESRCH) has nothing left to stop.
    let _ = kill_process_group(Pid::from_child(child), Signal::KILL);
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(not(unix))]
fn kill_group(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Copies the runner's standard error to ours, a line at a time, with
/// control characters escaped (`\x1b`), as memctl shows any outside text.
fn relay_escaped(stderr: impl Read) {
    let mut ours = std::io::stderr();
    for line in BufReader::new(stderr).split(b'\n') {
        let Ok(line) = line else { return };
        let text = String::from_utf8_lossy(&line);
        let _ = writeln!(ours, "{}", mdstore::escape::escape_controls(&text));
    }
}

fn missing_pipe() -> ModelCmdError {
    ModelCmdError::Io(std::io::Error::other("the child's pipe was not set up"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answer_comes_back_from_stdout() {
        let answer = run("cat", b"{\"ok\":true}", Duration::from_secs(10)).unwrap();
        assert_eq!(answer, "{\"ok\":true}");
    }

    #[test]
    fn hanging_runner_is_stopped_at_the_timeout() {
        let err = run("sleep 30", b"", Duration::from_millis(200)).unwrap_err();
        assert!(matches!(err, ModelCmdError::Timeout(_)), "{err}");
    }

    /// Issue 15 item 4: a runner that answers and exits but leaves a child
    /// holding its standard output made memctl wait for the child.
    #[test]
    fn a_child_left_holding_the_output_is_killed_at_the_deadline() {
        let started = Instant::now();
        let err = run("sh -c 'sleep 30 & echo []'", b"", Duration::from_secs(1)).unwrap_err();
        assert!(matches!(err, ModelCmdError::OutputHeld(1)), "{err}");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "waited {:?} for the child",
            started.elapsed()
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn every_process_of_a_hanging_runner_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("grandchild.pid");
        let line = format!("sh -c 'sleep 30 & echo $! > {}; wait'", pid_file.display());
        let err = run(&line, b"", Duration::from_millis(500)).unwrap_err();
        assert!(matches!(err, ModelCmdError::Timeout(_)), "{err}");
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let pid = rustix::process::Pid::from_raw(pid.trim().parse().unwrap()).unwrap();
        // Killed; at worst a zombie for a moment until its new parent reaps it.
        let deadline = Instant::now() + Duration::from_secs(10);
        while rustix::process::test_kill_process(pid).is_ok() && !is_zombie(pid) {
            assert!(
                Instant::now() < deadline,
                "the grandchild {pid:?} still runs"
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    #[cfg(target_os = "linux")]
    fn is_zombie(pid: rustix::process::Pid) -> bool {
        std::fs::read_to_string(format!("/proc/{}/stat", pid.as_raw_nonzero())).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'))
        })
    }

    #[test]
    fn runner_exiting_non_zero_is_an_error() {
        let err = run("false", b"", Duration::from_secs(10)).unwrap_err();
        assert!(matches!(err, ModelCmdError::Failed(_)), "{err}");
    }

    #[test]
    fn missing_runner_names_the_program() {
        let err = run("no-such-model-runner-xyz -p", b"", Duration::from_secs(10)).unwrap_err();
        assert!(
            err.to_string().contains("no-such-model-runner-xyz"),
            "{err}"
        );
    }

    #[test]
    fn runner_stderr_with_terminal_escapes_does_not_block_or_fail_the_run() {
        let answer = run(
            "sh -c 'printf \"\\033]0;x\\007 note\\n\" >&2; printf ok'",
            b"",
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(answer, "ok");
    }

    #[test]
    fn quoted_words_are_not_expanded_by_a_shell() {
        let answer = run("printf '%s' '$HOME;x'", b"", Duration::from_secs(10)).unwrap();
        assert_eq!(answer, "$HOME;x");
    }
}
