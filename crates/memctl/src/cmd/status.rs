//! `memctl status`: the stores, their record counts, `MEMORY.md`'s budget,
//! the index and the watcher, as `mdagent::status` finds them, in words
//! and as JSON.

use std::path::Path;

use mdagent::Config;
use mdagent::status::{self, Absence, IndexState, Place, StoreStatus};
use mdindex::WatcherState;
use mdstore::Scope;
use mdstore::catalog::disk;

use crate::cli::StatusArgs;
use crate::failure::Exit;
use crate::ui::{self, Ui, count};

pub fn run(config: &Config, _ui: &Ui, args: &StatusArgs) -> anyhow::Result<Exit> {
    let mut out = String::new();
    let mut json = Vec::new();
    for place in status::places(config)? {
        let (text, value) = match place {
            Place::Store(store) => store_status(&store),
            Place::Absent { scope, dir, why } => absent(scope, dir.as_deref(), why),
        };
        out += &text;
        json.push(value);
    }
    if args.json {
        ui::print_json(&serde_json::json!({ "stores": json }))?;
    } else {
        ui::print(&out)?;
    }
    Ok(Exit::Ok)
}

/// The line of a store that is not there, and the same as JSON.
fn absent(scope: Scope, dir: Option<&Path>, why: Absence) -> (String, serde_json::Value) {
    let shown = dir.map(|d| d.display().to_string()).unwrap_or_default();
    let said = match why {
        Absence::NotAFolder => format!("{shown} (a file, not a folder)"),
        Absence::Missing => format!("{shown} (missing)"),
        Absence::NoWorkspace => "none (run `memctl init` in your project's root)".to_string(),
        Absence::NotCreated => format!("{shown} (not created yet)"),
    };
    let text = format!("{} store: {said}\n", scope.as_str());
    let json = serde_json::json!({"scope": scope.as_str(), "path": dir, "state": why.state()});
    (text, json)
}

/// A store's lines of `memctl status`, and the same as JSON.
fn store_status(store: &StoreStatus) -> (String, serde_json::Value) {
    let catalog = catalog_status(store);
    let (index, watcher) = index_status(&store.index);
    let mut out = format!(
        "{} store: {}\n  records: {}{}\n  MEMORY.md: {catalog}\n  index: {index}\n",
        store.scope.as_str(),
        store.root.display(),
        store.records,
        if store.skipped == 0 {
            String::new()
        } else {
            format!(
                " ({} skipped; see `memctl check`)",
                count(store.skipped, "file", "files")
            )
        },
    );
    if let Some(watcher) = &watcher {
        out += &format!("  watcher: {watcher}\n");
    }
    let json = serde_json::json!({
        "scope": store.scope.as_str(), "path": store.root, "state": "ok",
        "records": store.records, "skipped": store.skipped,
        "memory_md": catalog, "index": index, "watcher": watcher,
    });
    (out, json)
}

/// The budget in use by `MEMORY.md` as it is on disk (SPEC §3), and whether
/// it is what memctl would generate now.
fn catalog_status(store: &StoreStatus) -> String {
    let expected = &store.expected;
    let on_disk = match &store.catalog {
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
fn index_status(index: &IndexState) -> (String, Option<String>) {
    let status = match index {
        IndexState::Open(status) => status,
        IndexState::NotYet { cause } => {
            return (
                format!("not usable yet ({cause}); the next search builds it"),
                None,
            );
        }
        IndexState::Unopened(e) => return (format!("cannot be opened ({e})"), None),
        IndexState::Unread(e) => return (format!("cannot be read ({e})"), None),
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
