//! Finding the stores a command acts on (SPEC §1, §9): the workspace store
//! named by the caller ([`Config::store`]) or `MEMCTL_STORE`, else the
//! nearest `.memory/` above the folder the command runs in
//! ([`Config::cwd`]); and the global store.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use mdstore::Store;

use crate::{Config, Kind};

/// The folder name of a workspace store.
pub const WORKSPACE_DIR: &str = ".memory";

pub use mdstore::Scope;

/// A store a command reads or writes, with its scope.
#[derive(Clone, Debug)]
pub struct ScopedStore {
    pub scope: Scope,
    pub store: Store,
}

/// Why the stores cannot be found, opened or created. `named` says how
/// the caller named the folder (`--store DIR`, `MEMCTL_STORE=DIR`).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "cannot find the global store: neither MEMCTL_GLOBAL_DIR, XDG_DATA_HOME nor HOME is set"
    )]
    NoGlobalDir,
    #[error("{named}: no such folder")]
    NoSuchFolder { named: String, dir: PathBuf },
    #[error("{named}: a file, not a folder; a store is a folder")]
    NotAFolder { named: String, dir: PathBuf },
    #[error("{named}: no such folder, and named like a Markdown file; a store is a folder")]
    NamedLikeMarkdown { named: String, dir: PathBuf },
    #[error(
        "no workspace store here: no `.memory/` folder above this one, and no git repository to put one in"
    )]
    NoWorkspace,
    #[error("{} is not used as the workspace store: {why}", dir.display())]
    Refused {
        dir: PathBuf,
        why: mdstore::untrusted::Refusal,
    },
    #[error("cannot read the current folder")]
    CurrentDir(#[source] Arc<io::Error>),
    #[error("cannot open the store at {}", dir.display())]
    Open {
        dir: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot create the {} store at {}", scope.as_str(), dir.display())]
    Create {
        scope: Scope,
        dir: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl StoreError {
    pub fn kind(&self) -> Kind {
        match self {
            StoreError::CurrentDir(_) | StoreError::Open { .. } | StoreError::Create { .. } => {
                Kind::Internal
            }
            _ => Kind::BadInput,
        }
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            StoreError::NoSuchFolder { dir, .. } => Some(format!(
                "create it with `memctl init --store {}`",
                dir.display()
            )),
            StoreError::NotAFolder { dir, .. } | StoreError::NamedLikeMarkdown { dir, .. } => {
                Some(folder_hint(dir))
            }
            StoreError::NoWorkspace => Some(
                "run `memctl init` in your project's root, pass --store DIR, or use --global"
                    .to_string(),
            ),
            StoreError::Refused { .. } => Some(
                "a `.memory` found in a project must be a real folder inside it (a repository \
                 can commit a link to anywhere); if you trust where it points, name that \
                 folder with --store DIR, or use --global"
                    .to_string(),
            ),
            _ => None,
        }
    }
}

fn folder_hint(dir: &Path) -> String {
    match dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => format!(
            "pass the folder that holds the records and MEMORY.md, such as --store {}",
            parent.display()
        ),
        None => "pass the folder that holds the records and MEMORY.md".to_string(),
    }
}

/// The global store's folder ([`crate::config::Folders::global`]).
pub fn global_dir(config: &Config) -> Result<PathBuf, StoreError> {
    config
        .folders()
        .global
        .clone()
        .ok_or(StoreError::NoGlobalDir)
}

/// The workspace store folder named by [`Config::store`], else by
/// `MEMCTL_STORE`, with how it was named, for messages.
pub fn named_workspace_dir(config: &Config) -> Option<(PathBuf, String)> {
    config.named_store()
}

/// How the user named the workspace store folder `dir`, for messages.
pub fn named(config: &Config, dir: &Path) -> String {
    named_workspace_dir(config).map_or_else(|| dir.display().to_string(), |(_, named)| named)
}

/// The error for a named workspace store folder that is not a folder.
fn no_such_store(config: &Config, dir: &Path) -> StoreError {
    let named = named(config, dir);
    if let Err(e) = refuse_file_as_store(&named, dir) {
        return e;
    }
    StoreError::NoSuchFolder {
        named,
        dir: dir.to_path_buf(),
    }
}

/// A store is a folder: refuses a file given as one (a record or
/// `MEMORY.md`, say), and a new store named like a Markdown file, which
/// would be mistaken for a record. `named` says how the user named `dir`.
pub fn refuse_file_as_store(named: &str, dir: &Path) -> Result<(), StoreError> {
    if dir.exists() && !dir.is_dir() {
        return Err(StoreError::NotAFolder {
            named: named.to_string(),
            dir: dir.to_path_buf(),
        });
    }
    let markdown_name = dir
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
    if !dir.exists() && markdown_name {
        return Err(StoreError::NamedLikeMarkdown {
            named: named.to_string(),
            dir: dir.to_path_buf(),
        });
    }
    Ok(())
}

/// The workspace store folder if one is named or found; it may not exist
/// when named with [`Config::store`] or `MEMCTL_STORE`.
pub fn workspace_dir(config: &Config) -> Result<Option<PathBuf>, StoreError> {
    if let Some((dir, _)) = named_workspace_dir(config) {
        if config.store_is_found() {
            return found_again(&dir).map(Some);
        }
        return Ok(Some(dir));
    }
    let cwd = config.cwd().map_err(StoreError::CurrentDir)?;
    for holder in cwd.ancestors() {
        if let Some(dir) = found_store(holder)? {
            return Ok(Some(dir));
        }
    }
    Ok(None)
}

/// A `.memory` folder the hook found, named to its job (`--found-store`),
/// vetted again as found: a checkout between the hook and the job may have
/// made it a link (issue 25's leftover). It must still be a real `.memory`
/// folder inside the folder that holds it.
fn found_again(dir: &Path) -> Result<PathBuf, StoreError> {
    let refused = |why| StoreError::Refused {
        dir: dir.to_path_buf(),
        why,
    };
    let (Some(holder), Some(WORKSPACE_DIR)) =
        (dir.parent(), dir.file_name().and_then(|n| n.to_str()))
    else {
        return Err(refused(mdstore::untrusted::Refusal::Replaced));
    };
    let vetted = found_store(holder)?.ok_or(refused(mdstore::untrusted::Refusal::Replaced))?;
    // The hook names the folder fully resolved: a folder on the way that
    // a checkout made a link since (to another project's `.memory`)
    // resolves elsewhere now.
    if std::fs::canonicalize(&vetted).ok().as_deref() != Some(dir) {
        return Err(refused(mdstore::untrusted::Refusal::Replaced));
    }
    Ok(vetted)
}

/// The store folder an agent's hook should name (`memctl setup`): the one
/// the user named, resolved, so that the hook finds it from any folder;
/// none when the hook should find the workspace store itself.
pub fn hook_store(config: &Config) -> Result<Option<PathBuf>, StoreError> {
    let Some(dir) = &config.store else {
        return Ok(None);
    };
    std::fs::canonicalize(dir)
        .map(Some)
        .map_err(|_| StoreError::NoSuchFolder {
            named: format!("--store {}", dir.display()),
            dir: dir.clone(),
        })
}

/// The arguments that name `scoped`'s store to a job memctl starts (a
/// watcher, an extraction, a dream): `--global`; `--store DIR` for a folder
/// the user named; `--found-store DIR` for one memctl found, so that the
/// job vets it again.
pub fn job_store_args(config: &Config, scoped: &ScopedStore) -> Vec<std::ffi::OsString> {
    match scoped.scope {
        Scope::Global => vec!["--global".into()],
        Scope::Workspace if named_workspace_dir(config).is_some() && !config.store_is_found() => {
            vec!["--store".into(), scoped.store.root().into()]
        }
        Scope::Workspace => vec!["--found-store".into(), scoped.store.root().into()],
    }
}

/// The `.memory` folder in `holder`, if there is one, vetted: memctl found
/// it, nobody chose it, and a repository controls it (issue 25 item 1). A
/// link named `.memory`, even a dangling one, or a folder that resolves
/// outside `holder` is refused rather than passed over, so that no store
/// further up is silently used instead. A file of that name is not a store
/// and is passed over.
pub fn found_store(holder: &Path) -> Result<Option<PathBuf>, StoreError> {
    let dir = holder.join(WORKSPACE_DIR);
    match std::fs::symlink_metadata(&dir) {
        Ok(meta) if !meta.is_dir() && !meta.file_type().is_symlink() => return Ok(None),
        Ok(_) => {}
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        // One that cannot be looked at (no permission, a loop) is not passed
        // over for a store further up: the vetting says why it is refused.
        Err(_) => {}
    }
    mdstore::untrusted::vet_found_folder(holder, WORKSPACE_DIR)
        .map(Some)
        .map_err(|why| StoreError::Refused { dir, why })
}

/// The stores a read command covers: the workspace store if there is one and
/// the global store if it exists, unless [`Config::global`] narrows it.
pub fn read_stores(config: &Config) -> Result<Vec<ScopedStore>, StoreError> {
    let mut stores = Vec::new();
    if !config.global
        && let Some(dir) = workspace_dir(config)?
    {
        if !dir.is_dir() {
            return Err(no_such_store(config, &dir));
        }
        stores.push(open(Scope::Workspace, &dir)?);
    }
    let global = global_dir(config)?;
    if global.is_dir() {
        stores.push(open(Scope::Global, &global)?);
    }
    Ok(stores)
}

fn open(scope: Scope, dir: &Path) -> Result<ScopedStore, StoreError> {
    let store = Store::open(dir).map_err(|source| StoreError::Open {
        dir: dir.to_path_buf(),
        source,
    })?;
    Ok(ScopedStore { scope, store })
}

/// The scope a write goes to by default: the global store with
/// [`Config::global`], else the workspace store.
pub fn default_scope(config: &Config) -> Scope {
    if config.global {
        Scope::Global
    } else {
        Scope::Workspace
    }
}

/// Where a write goes: a store that exists, or the folder that a confirmed
/// write creates it in.
#[derive(Clone, Debug)]
pub enum WriteTarget {
    Existing(ScopedStore),
    Missing { scope: Scope, dir: PathBuf },
}

/// The store a write goes to (SPEC §9), without creating or asking anything:
/// the named workspace store (which must exist), else the nearest
/// `.memory/` above, else `.memory/` at the git root; or the global store.
pub fn write_target(config: &Config, scope: Scope) -> Result<WriteTarget, StoreError> {
    if scope == Scope::Global {
        let dir = global_dir(config)?;
        if dir.is_dir() {
            return Ok(WriteTarget::Existing(open(scope, &dir)?));
        }
        return Ok(WriteTarget::Missing { scope, dir });
    }
    if let Some(dir) = workspace_dir(config)? {
        if dir.is_dir() {
            return Ok(WriteTarget::Existing(open(scope, &dir)?));
        }
        return Err(no_such_store(config, &dir));
    }
    let cwd = config.cwd().map_err(StoreError::CurrentDir)?;
    let Some(git_root) = cwd.ancestors().find(|a| a.join(".git").exists()) else {
        return Err(StoreError::NoWorkspace);
    };
    Ok(WriteTarget::Missing {
        scope,
        dir: git_root.join(WORKSPACE_DIR),
    })
}

/// Creates the store of `scope` at `dir` if it is missing: the global
/// store, memory that is yours alone, for its owner only (0700); the
/// workspace store, shared with the project, as the umask makes it.
pub fn create(scope: Scope, dir: &Path) -> Result<ScopedStore, StoreError> {
    let created = match scope {
        Scope::Global => Store::create_private(dir),
        Scope::Workspace => Store::create(dir),
    };
    let store = created.map_err(|source| StoreError::Create {
        scope,
        dir: dir.to_path_buf(),
        source,
    })?;
    Ok(ScopedStore { scope, store })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Environment;

    fn config(store: &Path) -> Config {
        let env = Environment::from_vars::<&str, &str>([]);
        Config::resolve(env, Some(store.to_path_buf()), false)
    }

    /// The hook found `.memory`, named it to a job, and a checkout made it
    /// a link before the job ran: the job refuses it (a background job once
    /// followed it, as it follows a folder the user names).
    #[cfg(unix)]
    #[test]
    fn a_found_store_swapped_for_a_link_before_its_job_runs_is_refused() {
        let project = tempfile::tempdir().unwrap();
        let notes = tempfile::tempdir().unwrap();
        let dot_memory = project.path().join(WORKSPACE_DIR);
        std::fs::create_dir(&dot_memory).unwrap();
        let found = dot_memory.canonicalize().unwrap();
        let vetted = workspace_dir(&config(&found).found()).unwrap();
        assert_eq!(vetted, Some(found.clone()));
        let scoped = ScopedStore {
            scope: Scope::Workspace,
            store: Store::open(&found).unwrap(),
        };
        let found_args = job_store_args(&config(&found).found(), &scoped);
        assert_eq!(found_args[0], "--found-store");

        std::fs::remove_dir(&dot_memory).unwrap();
        std::os::unix::fs::symlink(notes.path(), &dot_memory).unwrap();
        let refused = workspace_dir(&config(&found).found());
        assert!(
            matches!(refused, Err(StoreError::Refused { .. })),
            "{refused:?}"
        );
        // A folder the user names may be a link, and its jobs are told so.
        assert_eq!(workspace_dir(&config(&found)).unwrap(), Some(found.clone()));
        let named_args = job_store_args(&config(&found), &scoped);
        assert_eq!(named_args[0], "--store");
    }

    /// The hook found `/repo/pkg/.memory`; a checkout made `pkg` a link to
    /// another project holding a real `.memory`: the job refuses it.
    #[cfg(unix)]
    #[test]
    fn a_found_store_whose_parent_became_a_link_is_refused() {
        let repo = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let pkg = repo.path().join("pkg");
        std::fs::create_dir_all(pkg.join(WORKSPACE_DIR)).unwrap();
        std::fs::create_dir_all(other.path().join(WORKSPACE_DIR)).unwrap();
        let found = pkg.join(WORKSPACE_DIR).canonicalize().unwrap();
        assert!(workspace_dir(&config(&found).found()).is_ok());
        std::fs::remove_dir_all(&pkg).unwrap();
        std::os::unix::fs::symlink(other.path(), &pkg).unwrap();
        let refused = workspace_dir(&config(&found).found());
        assert!(
            matches!(refused, Err(StoreError::Refused { .. })),
            "{refused:?}"
        );
    }

    #[test]
    fn a_found_store_must_be_named_dot_memory() {
        let dir = tempfile::tempdir().unwrap();
        let refused = workspace_dir(&config(dir.path()).found());
        assert!(matches!(refused, Err(StoreError::Refused { .. })));
    }
}
