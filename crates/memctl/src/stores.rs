//! Finding the stores a command acts on (SPEC §1, §9).

use std::path::{Path, PathBuf};

use anyhow::Context;
use mdstore::Store;

use crate::cli::GlobalArgs;
use crate::failure::{Exit, Failure};
use crate::ui::Ui;

/// The folder name of a workspace store.
pub const WORKSPACE_DIR: &str = ".memory";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Workspace,
    Global,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Workspace => "workspace",
            Scope::Global => "global",
        }
    }
}

/// A store a command reads or writes, with its scope.
#[derive(Clone, Debug)]
pub struct ScopedStore {
    pub scope: Scope,
    pub store: Store,
}

/// The global store's folder: `$MEMCTL_GLOBAL_DIR`, else
/// `$XDG_DATA_HOME/memctl/global`, else `~/.local/share/memctl/global`.
pub fn global_dir() -> anyhow::Result<PathBuf> {
    if let Some(dir) = non_empty_env("MEMCTL_GLOBAL_DIR") {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = non_empty_env("XDG_DATA_HOME") {
        return Ok(PathBuf::from(dir).join("memctl/global"));
    }
    let home = non_empty_env("HOME").ok_or_else(|| {
        Failure::bad_input("cannot find the global store: neither MEMCTL_GLOBAL_DIR, XDG_DATA_HOME nor HOME is set")
    })?;
    Ok(PathBuf::from(home).join(".local/share/memctl/global"))
}

fn non_empty_env(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// The workspace store folder named by `--store`, else by `MEMCTL_STORE`
/// (empty counts as unset, as for every other variable here), with how it
/// was named, for messages.
pub fn named_workspace_dir(args: &GlobalArgs) -> Option<(PathBuf, String)> {
    if let Some(dir) = &args.store {
        return Some((dir.clone(), format!("--store {}", dir.display())));
    }
    let dir = PathBuf::from(non_empty_env("MEMCTL_STORE")?);
    let named = format!("MEMCTL_STORE={}", dir.display());
    Some((dir, named))
}

/// How the user named the workspace store folder `dir`, for messages.
pub fn named(args: &GlobalArgs, dir: &Path) -> String {
    named_workspace_dir(args).map_or_else(|| dir.display().to_string(), |(_, named)| named)
}

/// The error for a named workspace store folder that is not a folder.
fn no_such_store(args: &GlobalArgs, dir: &Path) -> anyhow::Error {
    let named = named(args, dir);
    if let Err(e) = refuse_file_as_store(&named, dir) {
        return e;
    }
    Failure::bad_input(format!("{named}: no such folder"))
        .with_hint(format!(
            "create it with `memctl init --store {}`",
            dir.display()
        ))
        .into()
}

/// A store is a folder: refuses a file given as one (a record or
/// `MEMORY.md`, say), and a new store named like a Markdown file, which
/// would be mistaken for a record. `named` says how the user named `dir`.
pub fn refuse_file_as_store(named: &str, dir: &Path) -> anyhow::Result<()> {
    let folder_hint = || match dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => format!(
            "pass the folder that holds the records and MEMORY.md, such as --store {}",
            parent.display()
        ),
        None => "pass the folder that holds the records and MEMORY.md".to_string(),
    };
    if dir.exists() && !dir.is_dir() {
        return Err(Failure::bad_input(format!(
            "{named}: a file, not a folder; a store is a folder"
        ))
        .with_hint(folder_hint())
        .into());
    }
    let markdown_name = dir
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
    if !dir.exists() && markdown_name {
        return Err(Failure::bad_input(format!(
            "{named}: no such folder, and named like a Markdown file; a store is a folder"
        ))
        .with_hint(folder_hint())
        .into());
    }
    Ok(())
}

/// The workspace store folder if one is named or found; it may not exist
/// when named with `--store` or `MEMCTL_STORE`.
pub fn workspace_dir(args: &GlobalArgs) -> anyhow::Result<Option<PathBuf>> {
    if let Some((dir, _)) = named_workspace_dir(args) {
        return Ok(Some(dir));
    }
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    Ok(cwd
        .ancestors()
        .map(|a| a.join(WORKSPACE_DIR))
        .find(|candidate| candidate.is_dir()))
}

/// The stores a read command covers: the workspace store if there is one and
/// the global store if it exists, unless `--global` narrows it.
pub fn read_stores(args: &GlobalArgs) -> anyhow::Result<Vec<ScopedStore>> {
    let mut stores = Vec::new();
    if !args.global
        && let Some(dir) = workspace_dir(args)?
    {
        if !dir.is_dir() {
            return Err(no_such_store(args, &dir));
        }
        stores.push(open(Scope::Workspace, &dir)?);
    }
    let global = global_dir()?;
    if global.is_dir() {
        stores.push(open(Scope::Global, &global)?);
    }
    Ok(stores)
}

fn open(scope: Scope, dir: &Path) -> anyhow::Result<ScopedStore> {
    let store =
        Store::open(dir).with_context(|| format!("cannot open the store at {}", dir.display()))?;
    Ok(ScopedStore { scope, store })
}

/// Where a write goes: a store that exists, or the folder that a confirmed
/// write creates it in.
#[derive(Clone, Debug)]
pub enum WriteTarget {
    Existing(ScopedStore),
    Missing { scope: Scope, dir: PathBuf },
}

/// The store a write goes to (SPEC §9), without creating or asking anything:
/// `--store DIR` (which must exist), else the nearest `.memory/` above, else
/// `.memory/` at the git root; `--global` the global store.
pub fn write_target(args: &GlobalArgs, scope: Scope) -> anyhow::Result<WriteTarget> {
    if scope == Scope::Global {
        let dir = global_dir()?;
        if dir.is_dir() {
            return Ok(WriteTarget::Existing(open(scope, &dir)?));
        }
        return Ok(WriteTarget::Missing { scope, dir });
    }
    if let Some(dir) = workspace_dir(args)? {
        if dir.is_dir() {
            return Ok(WriteTarget::Existing(open(scope, &dir)?));
        }
        return Err(no_such_store(args, &dir));
    }
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let Some(git_root) = cwd.ancestors().find(|a| a.join(".git").exists()) else {
        return Err(Failure::bad_input("no workspace store here: no `.memory/` folder above this one, and no git repository to put one in")
            .with_hint("run `memctl init` in your project's root, pass --store DIR, or use --global")
            .into());
    };
    Ok(WriteTarget::Missing {
        scope,
        dir: git_root.join(WORKSPACE_DIR),
    })
}

/// Asks whether to create a missing workspace store (SPEC §9: "created after
/// confirmation"); a global store needs no question. Creates nothing.
pub fn confirm_creation(scope: Scope, dir: &Path, ui: &Ui, yes: bool) -> anyhow::Result<()> {
    if scope == Scope::Global || yes {
        return Ok(());
    }
    let question = format!("Create a workspace store at {}?", dir.display());
    if ui.confirm(&question)? {
        return Ok(());
    }
    Err(Failure::new(
        Exit::NotConfirmed,
        format!("no workspace store was created at {}", dir.display()),
    )
    .with_hint("run `memctl init` there, or pass --yes")
    .into())
}

/// Creates the missing store of a confirmed write.
pub fn create(scope: Scope, dir: &Path, ui: &Ui) -> anyhow::Result<ScopedStore> {
    let store = Store::create(dir).with_context(|| {
        format!(
            "cannot create the {} store at {}",
            scope.as_str(),
            dir.display()
        )
    })?;
    ui.note(&format!(
        "Created the {} store {}",
        scope.as_str(),
        dir.display()
    ));
    crate::git::attributes::ensure_in_repo(ui, store.root());
    Ok(ScopedStore { scope, store })
}
