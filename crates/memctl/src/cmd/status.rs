//! `memctl status`: the stores, their record counts, `MEMORY.md`'s budget,
//! the index and the watcher.

use mdagent::Config;
use mdagent::stores::{self, Scope};
use mdindex::{Index, WatcherState};
use mdstore::catalog::disk;
use mdstore::view::StoreView;
use mdstore::{Store, catalog};

use crate::cli::StatusArgs;
use crate::failure::Exit;
use crate::ui::{self, Ui, count};

pub fn run(config: &Config, _ui: &Ui, args: &StatusArgs) -> anyhow::Result<Exit> {
    let mut out = String::new();
    let mut json = Vec::new();
    let mut absent = |scope: Scope, dir: Option<&std::path::Path>, state: &str, said: String| {
        out += &format!("{} store: {said}\n", scope.as_str());
        json.push(serde_json::json!({"scope": scope.as_str(), "path": dir, "state": state}));
    };
    let workspace = if config.global {
        None
    } else {
        stores::workspace_dir(config)?
    };
    let mut found = Vec::new();
    match workspace {
        Some(dir) if dir.is_dir() => found.push((Scope::Workspace, dir)),
        Some(dir) if dir.exists() => absent(
            Scope::Workspace,
            Some(&dir),
            "not a folder",
            format!("{} (a file, not a folder)", dir.display()),
        ),
        Some(dir) => absent(
            Scope::Workspace,
            Some(&dir),
            "missing",
            format!("{} (missing)", dir.display()),
        ),
        None if !config.global => absent(
            Scope::Workspace,
            None,
            "none",
            "none (run `memctl init` in your project's root)".to_string(),
        ),
        None => {}
    }
    let global_dir = stores::global_dir(config)?;
    if global_dir.is_dir() {
        found.push((Scope::Global, global_dir));
    } else {
        let said = format!("{} (not created yet)", global_dir.display());
        absent(Scope::Global, Some(&global_dir), "not created", said);
    }
    for (scope, dir) in found {
        let (text, value) = store_status(config, scope, &Store::open(&dir)?);
        // In the order they are printed: the workspace store first.
        let at = if scope == Scope::Workspace {
            0
        } else {
            json.len()
        };
        json.insert(at, value);
        out = if scope == Scope::Workspace {
            text + &out
        } else {
            out + &text
        };
    }
    if args.json {
        ui::print_json(&serde_json::json!({ "stores": json }))?;
    } else {
        ui::print(&out)?;
    }
    Ok(Exit::Ok)
}

/// A store's lines of `memctl status`, and the same as JSON.
fn store_status(config: &Config, scope: Scope, store: &Store) -> (String, serde_json::Value) {
    let view = StoreView::load(store);
    let catalog = catalog_status(store, &view);
    let (index, watcher) = index_status(config, store);
    let mut out = format!(
        "{} store: {}\n  records: {}{}\n  MEMORY.md: {catalog}\n  index: {index}\n",
        scope.as_str(),
        store.root().display(),
        view.summaries.len(),
        if view.skipped.is_empty() {
            String::new()
        } else {
            format!(
                " ({} skipped; see `memctl check`)",
                count(view.skipped.len(), "file", "files")
            )
        },
    );
    if let Some(watcher) = &watcher {
        out += &format!("  watcher: {watcher}\n");
    }
    let json = serde_json::json!({
        "scope": scope.as_str(), "path": store.root(), "state": "ok",
        "records": view.summaries.len(), "skipped": view.skipped.len(),
        "memory_md": catalog, "index": index, "watcher": watcher,
    });
    (out, json)
}

/// The budget in use by `MEMORY.md` as it is on disk (SPEC §3), and whether
/// it is what memctl would generate now.
fn catalog_status(store: &Store, view: &StoreView) -> String {
    let expected = catalog::render(&view.summaries, catalog::Budget::default());
    let on_disk = match disk::inspect(store, &expected) {
        Ok(on_disk) => on_disk,
        Err(e) => return format!("cannot be read: {e}"),
    };
    let budget = expected.budget;
    let measured = |lines: usize, bytes: usize| {
        let share =
            (lines as f64 / budget.max_lines as f64).max(bytes as f64 / budget.max_bytes as f64);
        let share = if share > 1.0 {
            "over the budget".to_string()
        } else {
            format!("{:.0}% of the budget", share * 100.0)
        };
        format!(
            "{lines} of {} lines, {bytes} of {} bytes ({share})",
            budget.max_lines, budget.max_bytes
        )
    };
    match on_disk.state {
        disk::State::Missing => format!(
            "missing (any write, or `memctl init`, generates it: {})",
            measured(expected.lines, expected.bytes)
        ),
        disk::State::Current if expected.omitted > 0 => format!(
            "{}; {} left out",
            measured(on_disk.lines, on_disk.bytes),
            count(expected.omitted, "record", "records")
        ),
        disk::State::Current => measured(on_disk.lines, on_disk.bytes),
        disk::State::Foreign => format!(
            "{}; not written by memctl: the next write keeps it as {} and generates a new one",
            measured(on_disk.lines, on_disk.bytes),
            disk::PRESERVED_FILE
        ),
        disk::State::Stale { total, .. } => format!(
            "{}; out of date: {} differ from what memctl would generate (`memctl check` lists them)",
            measured(on_disk.lines, on_disk.bytes),
            count(total, "line", "lines")
        ),
    }
}

/// The index and watcher lines of `memctl status`. An index that cannot be
/// read is reported there, not as a failure of `status`, whose job is to say so.
fn index_status(config: &Config, store: &Store) -> (String, Option<String>) {
    let index = match Index::open_existing(store, config.cache_dir()) {
        Ok(index) => index,
        Err(mdindex::Error::Unusable { cause, .. }) => {
            return (
                format!("not usable yet ({cause}); the next search builds it"),
                None,
            );
        }
        Err(e) => return (format!("cannot be opened ({e})"), None),
    };
    let status = match index.status() {
        Ok(status) => status,
        Err(e) => return (format!("cannot be read ({e})"), None),
    };
    let watcher = match status.watcher {
        WatcherState::Absent => {
            "none (searches compare the store with the index first)".to_string()
        }
        WatcherState::Starting => "starting".to_string(),
        WatcherState::Ready => format!("running ({} paths marked dirty)", status.pending_marks),
    };
    let index = format!(
        "{} ({}, {:.1} MiB, schema {}, last updated {})",
        status.path.display(),
        count(status.records, "record", "records"),
        status.size_bytes as f64 / 1024.0 / 1024.0,
        status.schema_version,
        status.updated_at.as_deref().unwrap_or("never"),
    );
    (index, Some(watcher))
}
