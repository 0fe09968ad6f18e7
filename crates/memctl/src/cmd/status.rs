//! `memctl status`: the stores, their record counts, `MEMORY.md`'s budget,
//! the index and the watcher.

use mdagent::Config;
use mdagent::stores::{self, Scope};
use mdindex::{Index, WatcherState};
use mdstore::catalog::disk;
use mdstore::view::StoreView;
use mdstore::{Store, catalog};

use crate::failure::Exit;
use crate::ui::{self, Ui, count};

pub fn run(config: &Config, _ui: &Ui) -> anyhow::Result<Exit> {
    let mut out = String::new();
    let workspace = if config.global {
        None
    } else {
        stores::workspace_dir(config)?
    };
    match workspace {
        Some(dir) if dir.is_dir() => out += &store_status(Scope::Workspace, &Store::open(&dir)?)?,
        Some(dir) if dir.exists() => {
            out += &format!(
                "workspace store: {} (a file, not a folder)\n",
                dir.display()
            )
        }
        Some(dir) => out += &format!("workspace store: {} (missing)\n", dir.display()),
        None if !config.global => {
            out += "workspace store: none (run `memctl init` in your project's root)\n"
        }
        None => {}
    }
    let global_dir = stores::global_dir()?;
    if global_dir.is_dir() {
        out += &store_status(Scope::Global, &Store::open(&global_dir)?)?;
    } else {
        out += &format!("global store: {} (not created yet)\n", global_dir.display());
    }
    ui::print(&out)?;
    Ok(Exit::Ok)
}

fn store_status(scope: Scope, store: &Store) -> anyhow::Result<String> {
    let view = StoreView::load(store);
    let mut out = format!(
        "{} store: {}\n  records: {}{}\n  MEMORY.md: {}\n",
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
        catalog_status(store, &view),
    );
    out += &index_status(store);
    Ok(out)
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

/// The index lines of `memctl status`. An index that cannot be read is
/// reported there, not as a failure of `status`, whose job is to say so.
fn index_status(store: &Store) -> String {
    let cache = mdindex::cache_dir_from_env();
    let index = match Index::open_existing(store, &cache) {
        Ok(index) => index,
        Err(mdindex::Error::Unusable { cause, .. }) => {
            return format!("  index: not usable yet ({cause}); the next search builds it\n");
        }
        Err(e) => return format!("  index: cannot be opened ({e})\n"),
    };
    let status = match index.status() {
        Ok(status) => status,
        Err(e) => return format!("  index: cannot be read ({e})\n"),
    };
    let watcher = match status.watcher {
        WatcherState::Absent => {
            "none (searches compare the store with the index first)".to_string()
        }
        WatcherState::Starting => "starting".to_string(),
        WatcherState::Ready => format!("running ({} paths marked dirty)", status.pending_marks),
    };
    format!(
        "  index: {} ({}, {:.1} MiB, schema {}, last updated {})\n  watcher: {watcher}\n",
        status.path.display(),
        count(status.records, "record", "records"),
        status.size_bytes as f64 / 1024.0 / 1024.0,
        status.schema_version,
        status.updated_at.as_deref().unwrap_or("never"),
    )
}
