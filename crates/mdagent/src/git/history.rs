//! A record's revisions from git, as `memctl log ID` shows them (SPEC §9,
//! docs/GIT.md): the store that has the record (or its tombstone), every
//! path whose history is the record's (earlier names, the names it had
//! when forgotten, its tombstones), and `git log` of them on every side of
//! a merge. The text is git's, unredacted: the face hides secrets and
//! escapes it before printing.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use mdstore::id::id_key;
use mdstore::tombstone::{self, Tombstone};
use mdstore::{Scope, Store};

use super::{GitError, Repo};
use crate::stores::{self, ScopedStore, StoreError};
use crate::{Config, Kind};

/// One revision: its short hash, ISO date, author, whole message indented,
/// then the change as a patch.
const FORMAT: &str = "--format=tformat:commit %h%nDate:   %ad%nAuthor: %an <%ae>%n%n%w(0,4,4)%B";

/// What git says about a record.
pub struct History {
    pub scope: Scope,
    /// The store's folder.
    pub root: PathBuf,
    /// `git log --patch` of the record's paths, as git wrote it; empty when
    /// no commit touches them.
    pub text: String,
}

/// Why a record's history cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("no store here to show the history of")]
    NoStore,
    /// A `../` id would show the history of files outside the store.
    #[error("ID {id}: {refused}")]
    BadId {
        /// The id as it may be quoted in a message.
        id: String,
        refused: mdstore::id::NameError,
    },
    #[error("the {} store {} is not in a git repository, so it has no history to show", scope.as_str(), mdstore::escape::escape_controls(&root.display().to_string()))]
    NotInGit { scope: Scope, root: PathBuf },
    #[error(transparent)]
    Stores(#[from] StoreError),
    #[error(transparent)]
    Git(#[from] GitError),
}

impl HistoryError {
    /// The kind of this error; [`crate::explain()`] asks the wrapped store
    /// and git errors their own.
    pub fn kind(&self) -> Kind {
        match self {
            HistoryError::NoStore | HistoryError::BadId { .. } | HistoryError::NotInGit { .. } => {
                Kind::BadInput
            }
            HistoryError::Stores(e) => e.kind(),
            HistoryError::Git(_) => Kind::Internal,
        }
    }

    pub fn hint(&self) -> Option<String> {
        let hint = match self {
            HistoryError::NoStore => {
                "run it inside a project with a `.memory/` folder, or pass --store DIR"
            }
            HistoryError::BadId { .. } => "`memctl list` shows the ids of the records",
            HistoryError::NotInGit { .. } => {
                "keep the store in a git repository (`git init`, then commit it) to have one"
            }
            HistoryError::Stores(e) => return e.hint(),
            HistoryError::Git(_) => return None,
        };
        Some(hint.to_string())
    }
}

/// `id`'s history in the store that has it as a record or a tombstone,
/// workspace first; else in the first store (its history may still know a
/// file removed by hand).
pub fn history(config: &Config, id: &str) -> Result<History, HistoryError> {
    let stores = stores::read_stores(config)?;
    let Some(scoped) = pick_store(&stores, id) else {
        return Err(HistoryError::NoStore);
    };
    let store = &scoped.store;
    if let Err(refused) = mdstore::id::record_path(store.root(), id) {
        let id = mdstore::escape::for_message(id, 40);
        return Err(HistoryError::BadId { id, refused });
    }
    if Repo::find(store.root())?.is_none() {
        return Err(HistoryError::NotInGit {
            scope: scoped.scope,
            root: store.root().to_path_buf(),
        });
    }
    let mut command: Vec<OsString> = [
        "-c",
        "core.quotepath=off",
        "log",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--date=iso-strict",
        FORMAT,
        "--patch",
        // Every commit that changed one of the paths, on every side of a
        // merge, not only those on the side git's simplification follows
        // (SPEC §9: "forgotten ones included"); a merge that changed one
        // shows its change against each parent it differs from.
        "--full-history",
        "-m",
        "--",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    let paths = history_paths(store, id);
    command.extend(paths.iter().map(|p| p.as_os_str().to_os_string()));
    let output = super::run(store.root(), &command)?;
    Ok(History {
        scope: scoped.scope,
        root: store.root().to_path_buf(),
        text: String::from_utf8_lossy(&output.stdout).into_owned(),
    })
}

fn pick_store<'a>(stores: &'a [ScopedStore], id: &str) -> Option<&'a ScopedStore> {
    stores
        .iter()
        .find(|s| s.store.find(id).is_some() || !tombstones_of(&s.store, id).is_empty())
        .or_else(|| stores.first())
}

/// The tombstones of `id`'s key.
fn tombstones_of(store: &Store, id: &str) -> Vec<Tombstone> {
    let key = id_key(id);
    tombstone::load_all(store.root())
        .0
        .into_iter()
        .filter(|t| id_key(&t.id) == key)
        .collect()
}

/// The paths, relative to the store, whose history is the record's: its
/// file as it is now and under the names it had before a rename by hand,
/// as it was when forgotten, as the argument names it, and its tombstones
/// (the forget's commit).
fn history_paths(store: &Store, id: &str) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if let Some(entry) = store.find(id) {
        paths.extend(earlier_names(store, &entry.rel_path));
        paths.push(entry.rel_path);
    }
    let tombs = tombstones_of(store, id);
    for tomb in &tombs {
        paths.push(PathBuf::from(format!("{}.md", tomb.id)));
    }
    paths.push(PathBuf::from(format!("{id}.md")));
    let main = tombstone::tombstone_path(Path::new(""), id);
    let stem = main
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Ok(entries) = std::fs::read_dir(store.root().join(tombstone::TOMBSTONE_DIR)) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(&format!("{stem}~")) {
                paths.push(PathBuf::from(tombstone::TOMBSTONE_DIR).join(name));
            }
        }
    }
    paths.push(main);
    paths.sort();
    paths.dedup();
    paths
}

/// The names in the store that the record file at `rel_path` had before
/// it was renamed (`git mv`, or a move git sees as one), as
/// `git log --follow` finds them. None when git cannot say.
fn earlier_names(store: &Store, rel_path: &Path) -> Vec<PathBuf> {
    let mut command: Vec<OsString> = [
        "log",
        "--follow",
        "--relative",
        "--format=tformat:",
        "--name-only",
        "-z",
        "--",
    ]
    .iter()
    .map(OsString::from)
    .collect();
    command.push(rel_path.as_os_str().to_os_string());
    let Ok(output) = super::run(store.root(), &command) else {
        return Vec::new();
    };
    let mut names: Vec<PathBuf> = output
        .stdout
        .split(|b| *b == 0)
        .filter_map(|name| std::str::from_utf8(name).ok())
        .map(PathBuf::from)
        // Only a record name inside the store: `--relative` already
        // leaves out the project's other files.
        .filter(|name| {
            name.as_path() != rel_path && store.record_rel_path(&store.root().join(name)).is_some()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}
