//! `memctl watch`: keep the index's dirty list current until interrupted,
//! or until a stretch without searches (`--idle-exit`), so that searches
//! re-read only what changed (SPEC §4). A session's hook starts one with
//! `--background` (mdagent::lifecycle).

use std::time::Duration;

use mdagent::Config;
use mdagent::lifecycle::{Job, reports};
use mdagent::stores::{self, ScopedStore};
use mdindex::{WatchNote, WatchOptions, Watcher};

use super::reindex::note_rebuilt;
use crate::cli::WatchArgs;
use crate::failure::{Exit, Failure};
use crate::ui::{Ui, count};

pub fn run(config: &Config, ui: &Ui, args: &WatchArgs) -> anyhow::Result<Exit> {
    let scope = stores::default_scope(config);
    let scoped = stores::read_stores(config)?
        .into_iter()
        .find(|s| s.scope == scope)
        .ok_or_else(|| {
            Failure::bad_input(format!("no {} store to watch here", scope.as_str()))
                .with_hint("run `memctl init` in your project's root, or pass --store DIR")
        })?;
    let result = watch(config.cache_dir(), &scoped, ui.verbose, args);
    // A watcher started by a hook is watched by no one: a failure is told at
    // the next session start. A store that went away ends its watcher's
    // life, which is nothing to report.
    if args.background
        && let Err(e) = &result
        && scoped.store.root().is_dir()
    {
        reports::record(
            config,
            &scoped,
            Job::Watch,
            &format!(
                "the watcher stopped: {e:#}; searches compare the store with its index instead (slower) until a session starts another"
            ),
        );
    }
    result
}

fn watch(
    cache: &std::path::Path,
    scoped: &ScopedStore,
    verbose: bool,
    args: &WatchArgs,
) -> anyhow::Result<Exit> {
    let options = WatchOptions {
        idle_exit: args
            .idle_exit
            .map(|minutes| Duration::from_secs(minutes * 60)),
    };
    let started = Watcher::start_with(&scoped.store, cache, options, move |note| match note {
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
        WatchNote::Idle { after } => {
            eprintln!("{}", idle_message(after));
        }
        _ => {}
    });
    let started = match started {
        Ok(started) => started,
        // Two sessions starting at once may both start a watcher: the
        // second leaves the store to the first.
        Err(mdindex::Error::WatcherRunning { store, .. }) if args.background => {
            eprintln!(
                "A watcher already keeps {}; this one leaves.",
                store.display()
            );
            return Ok(Exit::Ok);
        }
        // Another watcher's is a conflict (`mdagent::explain`).
        Err(e) => return Err(anyhow::Error::from(e).context("cannot start the watcher")),
    };
    if let Some(report) = &started.rebuilt {
        note_rebuilt(scoped, report);
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

/// What a watcher says when it leaves after `after` without a search.
fn idle_message(after: Duration) -> String {
    format!(
        "Stopped: no search for {}.",
        count(after.as_secs() / 60, "minute", "minutes")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_idle_minute_is_one_minute() {
        assert_eq!(
            idle_message(Duration::from_secs(60)),
            "Stopped: no search for 1 minute."
        );
        assert_eq!(
            idle_message(Duration::from_secs(3600)),
            "Stopped: no search for 60 minutes."
        );
    }
}
