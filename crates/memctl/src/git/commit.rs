//! Committing a write to the store's repository when asked (`--commit`, or
//! `[git] commit = true` in the store's `.memctl.toml`; docs/GIT.md).
//!
//! Only the write's own files are committed (the records it wrote or
//! removed, the tombstones, `MEMORY.md`), and the user's other staged
//! changes stay staged and out of the commit, in the store or outside it:
//! memctl stages those paths (`git add --all -- PATHS`, run in the store's
//! folder with literal pathspecs), then `git commit --only -- PATHS`, which
//! commits the working-tree state of those paths alone from a temporary
//! index git builds from `HEAD`, and leaves every other staged change in
//! the real index as it was.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use mdstore::store::CATALOG_FILE;
use mdstore::tombstone::TOMBSTONE_DIR;

use super::{GitError, Repo, run};
use crate::ui::Ui;

/// Whether `[git] commit = true` is set in the store's `.memctl.toml`;
/// an error names the file and what is wrong with it.
pub fn configured(store_root: &Path) -> Result<bool, String> {
    mdagent::settings::load(store_root)
        .map(|settings| settings.git.commit)
        .map_err(|e| e.to_string())
}

/// What became of a commit that was asked for.
#[derive(Debug, PartialEq, Eq)]
pub enum CommitOutcome {
    /// The new commit's short hash.
    Committed(String),
    /// The store's files are as `HEAD` has them.
    NothingToCommit,
    /// Why no commit was made; the write itself stands.
    NotCommitted(String),
}

/// Commits `changed` (paths relative to the store: the records a write
/// touched) with `MEMORY.md`, the tombstones and the store's
/// `.gitattributes`, and nothing else, with
/// `message`. Never in a repository in the middle of a merge, rebase,
/// cherry-pick, revert or bisect.
pub fn commit_store(
    store_root: &Path,
    message: &str,
    changed: &[PathBuf],
) -> Result<CommitOutcome, GitError> {
    let Some(repo) = Repo::find(store_root)? else {
        return Ok(CommitOutcome::NotCommitted(
            "the store is not in a git repository".to_string(),
        ));
    };
    if let Some(what) = repo.in_progress() {
        return Ok(CommitOutcome::NotCommitted(format!(
            "the repository is in the middle of {what}; commit the store's files yourself once it is done"
        )));
    }
    let paths = committable(store_root, changed)?;
    if paths.is_empty() {
        return Ok(CommitOutcome::NothingToCommit);
    }
    let with_paths = |args: &[&str]| -> Vec<OsString> {
        let mut all: Vec<OsString> = args.iter().map(OsString::from).collect();
        all.push("--".into());
        all.extend(paths.iter().map(|p| p.as_os_str().to_os_string()));
        all
    };
    run(store_root, with_paths(&["add", "--all"]))?;
    let staged = super::git(store_root)
        .args(with_paths(&["diff", "--cached", "--quiet"]))
        .status()
        .map_err(GitError::NotRunnable)?;
    if staged.success() {
        return Ok(CommitOutcome::NothingToCommit);
    }
    run(
        store_root,
        with_paths(&["commit", "--quiet", "--only", "--message", message]),
    )?;
    let head = run(store_root, ["rev-parse", "--short", "HEAD"])?;
    Ok(CommitOutcome::Committed(
        String::from_utf8_lossy(&head.stdout).trim().to_string(),
    ))
}

/// The paths among `changed`, `MEMORY.md` (and the copy of a foreign one),
/// `.tombstones` and the store's `.gitattributes` that git can
/// be given: on disk, or known to the index or to `HEAD` (a record added
/// and forgotten before any commit is neither, and git refuses a pathspec
/// that matches nothing).
fn committable(store_root: &Path, changed: &[PathBuf]) -> Result<Vec<PathBuf>, GitError> {
    let mut wanted: Vec<PathBuf> = changed.to_vec();
    wanted.push(PathBuf::from(CATALOG_FILE));
    wanted.push(PathBuf::from(TOMBSTONE_DIR));
    wanted.push(PathBuf::from(super::attributes::FILE));
    // A foreign MEMORY.md the write kept before replacing it.
    wanted.push(PathBuf::from(mdstore::catalog::disk::PRESERVED_FILE));
    wanted.sort();
    wanted.dedup();
    let known = |args: &[&str]| -> Result<Vec<PathBuf>, GitError> {
        let mut all: Vec<OsString> = args.iter().map(OsString::from).collect();
        all.push("--".into());
        all.extend(wanted.iter().map(|p| p.as_os_str().to_os_string()));
        let out = run(store_root, all)?;
        Ok(out
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
            .collect())
    };
    let mut tracked = known(&["ls-files", "-z"])?;
    // An unborn branch has no HEAD to list.
    if run(store_root, ["rev-parse", "--verify", "--quiet", "HEAD"]).is_ok() {
        tracked.extend(known(&["ls-tree", "-r", "-z", "--name-only", "HEAD"])?);
    }
    Ok(wanted
        .into_iter()
        .filter(|p| {
            store_root.join(p).exists() || tracked.iter().any(|t| t == p || t.starts_with(p))
        })
        .collect())
}

/// After a write to the store at `store_root`: commits it with `message`
/// when `asked` (`--commit`) or the store's `.memctl.toml` says so, and
/// says what happened. The write stands whatever git does; a commit that
/// could not be made is a warning that says why. `dream` calls this with
/// its own message once its plan is applied.
pub fn after_write(ui: &Ui, store_root: &Path, asked: bool, message: &str, changed: &[PathBuf]) {
    let wanted = match configured(store_root) {
        Ok(configured) => asked || configured,
        Err(problem) => {
            ui.warn(&format!("{problem}; the write is saved but not committed"));
            return;
        }
    };
    if !wanted {
        return;
    }
    match commit_store(store_root, message, changed) {
        Ok(CommitOutcome::Committed(hash)) => ui.note(&format!("Committed {hash}: {message}")),
        Ok(CommitOutcome::NothingToCommit) => {
            ui.note("Nothing to commit: the store's files are as the last commit has them.");
        }
        Ok(CommitOutcome::NotCommitted(why)) => {
            ui.warn(&format!("the write is saved but not committed: {why}"));
        }
        Err(e) => ui.warn(&format!("the write is saved but not committed: {e}")),
    }
}

/// `verb: a, b, c`, for a commit message.
pub fn message(verb: &str, ids: &[String]) -> String {
    format!("{verb}: {}", names(ids))
}

/// `a, b, c`, with at most ten ids named and how many more.
pub fn names(ids: &[String]) -> String {
    const NAMED: usize = 10;
    let mut text = ids[..ids.len().min(NAMED)].join(", ");
    if ids.len() > NAMED {
        text += &format!(" and {} more", ids.len() - NAMED);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_message_names_at_most_ten_ids() {
        let ids: Vec<String> = (0..12).map(|n| format!("r{n}")).collect();
        assert_eq!(
            message("forget", &ids),
            "forget: r0, r1, r2, r3, r4, r5, r6, r7, r8, r9 and 2 more"
        );
        assert_eq!(message("edit", &ids[..1]), "edit: r0");
    }

    #[test]
    fn unknown_key_in_memctl_toml_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(configured(dir.path()), Ok(false));
        std::fs::write(
            dir.path().join(mdagent::settings::SETTINGS_FILE),
            "[git]\ncommit = true\n",
        )
        .unwrap();
        assert_eq!(configured(dir.path()), Ok(true));
        std::fs::write(
            dir.path().join(mdagent::settings::SETTINGS_FILE),
            "[git]\ncomit = true\n",
        )
        .unwrap();
        let err = configured(dir.path()).unwrap_err();
        assert!(
            err.contains(mdagent::settings::SETTINGS_FILE) && err.contains("comit"),
            "{err}"
        );
    }
}
