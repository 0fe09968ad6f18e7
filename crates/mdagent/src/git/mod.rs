//! memctl and git (docs/GIT.md): the store's repository, found and driven
//! through the `git` command line, so that the user's own configuration,
//! hooks, credentials and version of git apply, and no git library is
//! built into memctl.

pub mod attributes;
mod catalog;
pub mod commit;
pub mod history;
mod index;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Why git could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run git: {0}")]
    NotRunnable(std::io::Error),
    #[error("`git {command}` failed: {stderr}")]
    Failed { command: String, stderr: String },
    #[error("cannot read the store {}: {source}", .path.display())]
    Store {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot make a temporary git index in {}: {source}", .path.display())]
    TemporaryIndex {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("`git {command}` printed what memctl cannot read: {what}")]
    Unreadable { command: String, what: String },
}

/// The repository a store folder is in. Every git command runs in the
/// store's folder, so that `.` is the store and no path needs quoting.
#[derive(Clone, Debug)]
pub struct Repo {
    /// This worktree's own git folder (a linked worktree has its own), where
    /// a merge or rebase in progress leaves its state.
    pub git_dir: PathBuf,
}

/// A git command run in `dir`: no pager, no prompt for credentials, and
/// `--literal-pathspecs`, so that an id like `*` or `:x` names itself.
pub(crate) fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        .arg("--literal-pathspecs")
        .arg("--no-pager")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null());
    command
}

/// Runs git in `dir` with `args`; an error unless it exits 0.
pub fn run<I, S>(dir: &Path, args: I) -> Result<Output, GitError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    run_command(git(dir), args)
}

/// Runs `command` (from [`git`], with its environment) with `args`; an
/// error unless it exits 0.
pub(crate) fn run_command<I, S>(mut command: Command, args: I) -> Result<Output, GitError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<S> = args.into_iter().collect();
    let output = command
        .args(&args)
        .output()
        .map_err(GitError::NotRunnable)?;
    if output.status.success() {
        return Ok(output);
    }
    Err(GitError::Failed {
        command: command_line(&args),
        stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
    })
}

/// `args` as one line, for an error message.
pub(crate) fn command_line<S: AsRef<OsStr>>(args: &[S]) -> String {
    args.iter()
        .map(|a| a.as_ref().to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Repo {
    /// The repository `store_root` is in; `Ok(None)` outside one.
    pub fn find(store_root: &Path) -> Result<Option<Repo>, GitError> {
        let output = match run(store_root, ["rev-parse", "--absolute-git-dir"]) {
            Ok(output) => output,
            Err(GitError::Failed { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let git_dir = String::from_utf8_lossy(&output.stdout)
            .trim_end_matches(['\n', '\r'])
            .to_string();
        Ok(Some(Repo {
            git_dir: PathBuf::from(git_dir),
        }))
    }

    /// Where `store_root` is in the repository (`.memory/`, or empty at
    /// its top), as paths in git's index begin.
    pub fn prefix(&self, store_root: &Path) -> Result<String, GitError> {
        let output = run(store_root, ["rev-parse", "--show-prefix"])?;
        let text = String::from_utf8(output.stdout).map_err(|e| GitError::Unreadable {
            command: "rev-parse --show-prefix".to_string(),
            what: format!("a folder name that is not UTF-8 ({e})"),
        })?;
        Ok(text.strip_suffix('\n').unwrap_or(&text).to_string())
    }

    /// The operation the worktree is in the middle of, if any: a commit
    /// then would record a half-done merge or land inside a rebase.
    pub fn in_progress(&self) -> Option<&'static str> {
        const STATES: [(&str, &str); 6] = [
            ("MERGE_HEAD", "a merge"),
            ("rebase-merge", "a rebase"),
            ("rebase-apply", "a rebase or `git am`"),
            ("CHERRY_PICK_HEAD", "a cherry-pick"),
            ("REVERT_HEAD", "a revert"),
            ("BISECT_LOG", "a bisect"),
        ];
        STATES
            .iter()
            .find(|(file, _)| self.git_dir.join(file).exists())
            .map(|(_, what)| *what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 9: a commit in the middle of a rebase or cherry-pick would land
    /// inside it; each state git leaves is recognised.
    #[test]
    fn mid_rebase_and_mid_cherry_pick_are_in_progress() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repo {
            git_dir: dir.path().to_path_buf(),
        };
        assert_eq!(repo.in_progress(), None);
        std::fs::write(dir.path().join("CHERRY_PICK_HEAD"), "x").unwrap();
        assert_eq!(repo.in_progress(), Some("a cherry-pick"));
        std::fs::create_dir(dir.path().join("rebase-merge")).unwrap();
        assert_eq!(repo.in_progress(), Some("a rebase"));
    }
}
