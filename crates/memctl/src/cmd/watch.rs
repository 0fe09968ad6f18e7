//! `memctl watch`: keep the index's dirty list current until interrupted,
//! or until a stretch without searches (`--idle-exit`), so that searches
//! re-read only what changed (SPEC §4). A session's hook starts one with
//! `--background` (mdagent::lifecycle).

use std::time::Duration;

use mdagent::Config;
use mdagent::maintain::watch::{self, Watched};
use mdindex::WatchNote;

use super::reindex::note_rebuilt;
use crate::cli::WatchArgs;
use crate::failure::Exit;
use crate::ui::{Ui, count};

pub fn run(config: &Config, ui: &Ui, args: &WatchArgs) -> anyhow::Result<Exit> {
    let scoped = watch::store_to_watch(config)?;
    let verbose = ui.verbose;
    let idle_exit = args
        .idle_exit
        .map(|minutes| Duration::from_secs(minutes * 60));
    let on_note = move |note| match note {
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
        WatchNote::Idle { after } => eprintln!("{}", idle_message(after)),
        _ => {}
    };
    let on_ready = |rebuilt: Option<&_>| {
        if let Some(report) = rebuilt {
            note_rebuilt(&scoped, report);
        }
        // Always printed (even with -q): scripts wait for this line.
        eprintln!(
            "Watching {} for changes; searches now re-read only what changed. Ctrl-C stops.",
            scoped.store.root().display()
        );
    };
    match watch::run(
        config,
        &scoped,
        idle_exit,
        args.background,
        on_note,
        on_ready,
    )? {
        Watched::Stopped => {}
        Watched::LeftToAnother(store) => eprintln!(
            "A watcher already keeps {}; this one leaves.",
            store.display()
        ),
    }
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
