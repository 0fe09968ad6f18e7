//! Committing a write to the store's repository when asked (`--commit`, or
//! `[git] commit = true` in the store's `.memctl.toml`; docs/GIT.md).
//!
//! A commit holds the write's own files (the records it wrote or removed,
//! the tombstones, the store's `.gitattributes`) and a `MEMORY.md` of the
//! records the commit holds, not of those on disk: a draft the user staged
//! or never added is in neither. It is built in a temporary index made
//! from `HEAD` (`index.rs`), so nothing else the user staged comes along;
//! the user's own index is brought up to date afterwards for the paths the
//! commit holds and keeps everything else as it was.

use std::path::{Path, PathBuf};

use crate::Config;
use mdstore::Store;
use mdstore::store::CATALOG_FILE;
use mdstore::tombstone::TOMBSTONE_DIR;
use mdstore::view::StoreView;

use super::index::{IndexFile, TemporaryIndex};
use super::{GitError, Repo};
use crate::face::Tell;

/// Whether `[git] commit = true` is set in the store's `.memctl.toml`;
/// an error names the file and what is wrong with it.
pub fn configured(store_root: &Path) -> Result<bool, String> {
    crate::config::store_file::load(store_root)
        .map(|settings| settings.git.commit)
        .map_err(|e| e.to_string())
}

/// What became of a commit that was asked for.
#[derive(Debug, PartialEq, Eq)]
pub enum CommitOutcome {
    Committed(Committed),
    /// The store's files are as `HEAD` has them.
    NothingToCommit,
    /// Why no commit was made; the write itself stands.
    NotCommitted(String),
}

/// A commit made, and what the person should know of it.
#[derive(Debug, PartialEq, Eq)]
pub struct Committed {
    /// The new commit's short hash.
    pub hash: String,
    /// Records on disk that no commit holds (a draft staged or never
    /// added): left out of the commit and of its `MEMORY.md`.
    pub left_out: Vec<String>,
    /// Records the write removed that no commit held: nothing of them to
    /// remove from git.
    pub never_committed: Vec<String>,
    /// Why the user's index could not be brought up to date after the
    /// commit, if it could not.
    pub index_problem: Option<String>,
}

/// Commits `changed` (paths relative to the store: the records a write
/// touched) with the tombstones, the store's `.gitattributes` and a
/// `MEMORY.md` of the records the commit holds, and nothing else, with
/// `message`. Never in a repository in the middle of a merge, rebase,
/// cherry-pick, revert or bisect.
///
/// The commit is built in a temporary index made from `HEAD`, so that
/// nothing the user staged comes along; once it is made, the user's index
/// gets the committed paths as committed and a `MEMORY.md` of the records
/// it holds, and keeps everything else as it was. A commit git refuses
/// (a hook said no) changes no index at all.
pub fn commit_store(
    cache: &Path,
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
    let store = Store::open(store_root).map_err(|source| GitError::Store {
        path: store_root.to_path_buf(),
        source,
    })?;
    let prefix = repo.prefix(store_root)?;
    let on_disk = crate::index_sink::view_for_write(cache, &store);
    let wanted = wanted_paths(changed);
    let temporary = TemporaryIndex::from_head(&repo, store_root)?;
    let commit = &temporary.index;
    // A path neither on disk nor in `HEAD` (a record added and forgotten
    // before any commit) is no pathspec git takes.
    let staged = commit.known(&wanted)?;
    commit.stage(&staged)?;
    let catalog = super::catalog::render(commit, &store, &on_disk)?;
    commit.set_catalog(&prefix, &catalog.text)?;
    if !commit.differs_from_head()? {
        return Ok(CommitOutcome::NothingToCommit);
    }
    let hash = commit.commit(message)?;
    let left_out = record_ids(
        &store,
        on_disk
            .summaries
            .iter()
            .map(|s| &s.rel_path)
            .filter(|p| !catalog.held.contains(*p)),
    );
    let never_committed = record_ids(&store, changed.iter().filter(|p| !staged.contains(p)));
    let users = IndexFile::users(store_root);
    let index_problem = update_users_index(&users, &store, &on_disk, &prefix, &wanted)
        .err()
        .map(|e| e.to_string());
    Ok(CommitOutcome::Committed(Committed {
        hash,
        left_out,
        never_committed,
        index_problem,
    }))
}

/// The ids of those of `paths` that name records.
fn record_ids<'a>(store: &Store, paths: impl Iterator<Item = &'a PathBuf>) -> Vec<String> {
    paths
        .filter(|p| store.record_rel_path(&store.root().join(p)).is_some())
        .map(|p| mdstore::store::id_from_rel_path(p))
        .collect()
}

/// The paths a write may commit: the records it touched, `MEMORY.md`'s
/// companions (the tombstones, the store's `.gitattributes`, the copy of
/// a foreign `MEMORY.md` kept before replacing it). `MEMORY.md` itself is
/// rendered for each index, never taken from disk.
fn wanted_paths(changed: &[PathBuf]) -> Vec<PathBuf> {
    let mut wanted: Vec<PathBuf> = changed.to_vec();
    wanted.push(PathBuf::from(TOMBSTONE_DIR));
    wanted.push(PathBuf::from(super::attributes::FILE));
    wanted.push(PathBuf::from(mdstore::catalog::disk::PRESERVED_FILE));
    wanted.retain(|p| p.as_os_str() != CATALOG_FILE);
    wanted.sort();
    wanted.dedup();
    wanted
}

/// After the commit: the user's index holds the committed paths as the
/// working tree has them (as `git commit --only` leaves it), and a
/// `MEMORY.md` of the records it holds, drafts the user staged included,
/// so that their own next commit is whole too.
fn update_users_index(
    users: &IndexFile,
    store: &Store,
    on_disk: &StoreView,
    prefix: &str,
    wanted: &[PathBuf],
) -> Result<(), GitError> {
    users.stage(&users.known(wanted)?)?;
    let catalog = super::catalog::render(users, store, on_disk)?;
    users.set_catalog(prefix, &catalog.text)
}

/// After a write to the store at `store_root`: commits it with `message`
/// when `asked` (`--commit`) or the store's `.memctl.toml` says so, and
/// says what happened. The write stands whatever git does; a commit that
/// could not be made is a warning that says why. `dream` calls this with
/// its own message once its plan is applied.
pub fn after_write(
    config: &Config,
    ui: &dyn Tell,
    store_root: &Path,
    asked: bool,
    message: &str,
    changed: &[PathBuf],
) {
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
    match commit_store(config.cache_dir(), store_root, message, changed) {
        Ok(CommitOutcome::Committed(committed)) => tell_committed(ui, message, &committed),
        Ok(CommitOutcome::NothingToCommit) => {
            ui.note("Nothing to commit: the store's files are as the last commit has them.");
        }
        Ok(CommitOutcome::NotCommitted(why)) => {
            ui.warn(&format!("the write is saved but not committed: {why}"));
        }
        Err(e) => ui.warn(&format!("the write is saved but not committed: {e}")),
    }
}

/// Says what a commit holds, and what it leaves out.
fn tell_committed(ui: &dyn Tell, message: &str, committed: &Committed) {
    ui.note(&format!("Committed {}: {message}", committed.hash));
    let (left_out, gone) = (&committed.left_out, &committed.never_committed);
    if !left_out.is_empty() {
        let (them, are) = if left_out.len() == 1 {
            ("it", "it is")
        } else {
            ("them", "they are")
        };
        ui.note(&format!(
            "Left out of the commit, as the last commit does not hold {them} either: {}. The committed MEMORY.md does not list {them}; the working tree's does. Commit {them} yourself when {are} ready.",
            names(left_out),
        ));
    }
    if !gone.is_empty() {
        let them = if gone.len() == 1 { "it" } else { "them" };
        ui.note(&format!(
            "The last commit did not hold {}, so git had nothing of {them} to remove.",
            names(gone)
        ));
    }
    if let Some(problem) = &committed.index_problem {
        ui.warn(&format!(
            "committed, but git's index could not be updated ({problem}); `git status` may show the committed files as changed until you `git add` them"
        ));
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
            dir.path().join(crate::config::store_file::SETTINGS_FILE),
            "[git]\ncommit = true\n",
        )
        .unwrap();
        assert_eq!(configured(dir.path()), Ok(true));
        std::fs::write(
            dir.path().join(crate::config::store_file::SETTINGS_FILE),
            "[git]\ncomit = true\n",
        )
        .unwrap();
        let err = configured(dir.path()).unwrap_err();
        assert!(
            err.contains(crate::config::store_file::SETTINGS_FILE) && err.contains("comit"),
            "{err}"
        );
    }
}
