//! Running a user's model command (`--llm-cmd`, for `dream` and `extract`):
//! any command-line model runner (`claude -p`, `llm`, `ollama run …`) that
//! reads a prompt on standard input and answers on standard output. The
//! command line is split like a shell's words but run without a shell, so
//! nothing in it is expanded twice. It gets a timeout and a cap on its
//! answer; its standard error reaches the user line by line with control
//! characters escaped, so a runner cannot drive the user's terminal.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::thread;
use std::time::Duration;

use wait_timeout::ChildExt;

/// The most a model's answer may hold; a longer one is refused, not cut.
pub const MAX_ANSWER_BYTES: u64 = 4 * 1024 * 1024;

/// How long a model command may run, unless `MEMCTL_LLM_TIMEOUT_SECS` says.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

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
            ModelCmdError::Timeout(_) | ModelCmdError::Failed(_) | ModelCmdError::Io(_) => {
                crate::Kind::Internal
            }
        }
    }
}

/// The timeout for model commands: `MEMCTL_LLM_TIMEOUT_SECS`, else 300 s.
pub fn timeout_from_env() -> Duration {
    std::env::var("MEMCTL_LLM_TIMEOUT_SECS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|secs| *secs > 0)
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs)
}

/// Runs `command_line` with `input` on its standard input and returns what
/// it printed on standard output. A command that exits non-zero, runs past
/// `timeout` (it is killed) or answers too much is an error.
pub fn run(command_line: &str, input: &[u8], timeout: Duration) -> Result<String, ModelCmdError> {
    let words = shell_words::split(command_line)
        .map_err(|err| ModelCmdError::Unsplittable(err.to_string()))?;
    let (program, args) = words.split_first().ok_or(ModelCmdError::Empty)?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| ModelCmdError::Spawn {
            program: program.clone(),
            source,
        })?;
    // Writing and reading on their own threads: a runner that answers
    // before it has read everything would otherwise deadlock with us.
    let mut stdin = child.stdin.take().ok_or_else(missing_pipe)?;
    let input = input.to_vec();
    let writer = thread::spawn(move || {
        // A runner that exits without reading its input is judged by its exit.
        let _ = stdin.write_all(&input);
    });
    let stdout = child.stdout.take().ok_or_else(missing_pipe)?;
    let reader = thread::spawn(move || {
        let mut answer = Vec::new();
        stdout
            .take(MAX_ANSWER_BYTES + 1)
            .read_to_end(&mut answer)
            .map(|_| answer)
    });
    let (relayed, relay_done) = std::sync::mpsc::channel::<()>();
    if let Some(stderr) = child.stderr.take() {
        thread::spawn(move || {
            relay_escaped(stderr);
            let _ = relayed.send(());
        });
    }
    let Some(status) = child.wait_timeout(timeout)? else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(ModelCmdError::Timeout(timeout.as_secs()));
    };
    let _ = writer.join();
    // The runner's last words come before ours; a daemon it started may
    // hold its standard error open, so wait for them only briefly.
    let _ = relay_done.recv_timeout(Duration::from_secs(1));
    let answer = reader
        .join()
        .map_err(|_| ModelCmdError::Failed("reading its answer failed".into()))??;
    if !status.success() {
        return Err(ModelCmdError::Failed(status.to_string()));
    }
    if answer.len() as u64 > MAX_ANSWER_BYTES {
        return Err(ModelCmdError::TooLarge);
    }
    String::from_utf8(answer).map_err(|_| ModelCmdError::NotUtf8)
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
