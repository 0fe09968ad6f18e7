//! `memctl log ID`: a record's revisions from git (SPEC §9, docs/GIT.md).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use mdstore::Store;
use mdstore::id::id_key;
use mdstore::redact::{self, Keep};
use mdstore::tombstone::{self, Tombstone};

use mdagent::Config;
use mdagent::git::Repo;
use mdagent::stores::{self, ScopedStore};

use crate::cli::LogArgs;
use crate::failure::{Exit, Failure};
use crate::ui::{self, Ui};

/// One revision: its short hash, ISO date, author, whole message indented,
/// then the change as a patch.
const FORMAT: &str = "--format=tformat:commit %h%nDate:   %ad%nAuthor: %an <%ae>%n%n%w(0,4,4)%B";

pub fn run(config: &Config, ui: &Ui, args: LogArgs) -> anyhow::Result<Exit> {
    let stores = stores::read_stores(config)?;
    let Some(scoped) = pick_store(&stores, &args.id) else {
        return Err(Failure::bad_input("no store here to show the history of")
            .with_hint("run it inside a project with a `.memory/` folder, or pass --store DIR")
            .into());
    };
    let store = &scoped.store;
    // A `../` id would show the history of files outside the store.
    if let Err(refused) = mdstore::id::record_path(store.root(), &args.id) {
        return Err(Failure::bad_input(format!(
            "ID {}: {refused}",
            mdstore::escape::for_message(&args.id, 40)
        ))
        .with_hint("`memctl list` shows the ids of the records")
        .into());
    }
    let Some(_repo) = Repo::find(store.root())? else {
        return Err(Failure::bad_input(format!(
            "the {} store {} is not in a git repository, so it has no history to show",
            scoped.scope.as_str(),
            ui::shown_path(store.root())
        ))
        .with_hint("keep the store in a git repository (`git init`, then commit it) to have one")
        .into());
    };
    let paths = history_paths(store, &args.id);
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
    command.extend(paths.iter().map(|p| p.as_os_str().to_os_string()));
    let output = mdagent::git::run(store.root(), &command)?;
    let text = String::from_utf8_lossy(&output.stdout);
    if text.trim().is_empty() {
        ui.error(
            &format!(
                "no commit touches {} in {}",
                mdstore::escape::for_message(&args.id, 40),
                ui::shown_path(store.root())
            ),
            Some("a record has history once it is committed (`memctl remember --commit`, or `git commit`)"),
        );
        return Ok(Exit::NothingOrProblems);
    }
    // Commit messages and diffs are other people's text: no raw escapes,
    // and no secret an old revision held (SPEC §6: memctl echoes none).
    ui::print(&ui::shown_file(&redact::lines(&text, Keep::DiffMarker)))?;
    Ok(Exit::Ok)
}

/// The store that has `id` as a record or a tombstone, workspace first;
/// else the first store (its history may still know a file removed by hand).
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
    let Ok(output) = mdagent::git::run(store.root(), &command) else {
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
