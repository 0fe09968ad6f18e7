//! `memctl watch`: keep the index's dirty list current until interrupted,
//! so that searches re-read only what changed (SPEC §4).

use mdagent::Config;
use mdagent::stores;
use mdindex::{WatchNote, Watcher};

use super::reindex::note_rebuilt;
use crate::failure::{Exit, Failure};
use crate::ui::{Ui, count};

pub fn run(config: &Config, ui: &Ui) -> anyhow::Result<Exit> {
    let scope = stores::default_scope(config);
    let scoped = stores::read_stores(config)?
        .into_iter()
        .find(|s| s.scope == scope)
        .ok_or_else(|| {
            Failure::bad_input(format!("no {} store to watch here", scope.as_str()))
                .with_hint("run `memctl init` in your project's root, or pass --store DIR")
        })?;
    let cache = mdindex::cache_dir_from_env();
    let verbose = ui.verbose;
    let started = Watcher::start(&scoped.store, &cache, move |note| match note {
        WatchNote::Problem(problem) => eprintln!("warning: {problem}"),
        WatchNote::Rescan { why } if verbose => eprintln!("rescan: {why}"),
        WatchNote::Rebuilt(report) => eprintln!(
            "index rebuilt: {}; {} indexed",
            report.cause,
            count(report.indexed, "record", "records")
        ),
        WatchNote::Marked { paths } if verbose => eprintln!("marked {paths} paths dirty"),
        WatchNote::Applied(report) if verbose && report.changed() => eprintln!(
            "re-read: {} added, {} updated, {} removed",
            report.added, report.updated, report.removed
        ),
        _ => {}
    })
    .map_err(|e| match e {
        mdindex::Error::WatcherRunning { store, .. } => anyhow::Error::from(
            Failure::new(
                Exit::Conflict,
                format!("a watcher already runs for {}", store.display()),
            )
            .with_hint("one watcher per store is enough; stop the other one first"),
        ),
        e => anyhow::Error::from(e).context("cannot start the watcher"),
    })?;
    if let Some(report) = &started.rebuilt {
        note_rebuilt(&scoped, report);
    }
    // Always printed (even with -q): scripts wait for this line.
    eprintln!(
        "Watching {} for changes; searches now re-read only what changed. Ctrl-C stops.",
        scoped.store.root().display()
    );
    // Its error says that the watcher of this store stopped, and why.
    started.watcher.wait()?;
    Ok(Exit::Ok)
}
