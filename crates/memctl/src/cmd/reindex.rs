//! `memctl reindex`: rebuild each store's index from the files, or compare
//! them with `--check` (SPEC §4).

use anyhow::Context as _;
use mdagent::Config;
use mdagent::stores::{self, ScopedStore};
use mdindex::{Index, Opened, RebuildCause, RebuildReport};

use crate::cli::ReindexArgs;
use crate::failure::{Exit, Failure};
use crate::ui::{self, ProgressBar, Ui, count};

pub fn run(config: &Config, ui: &Ui, args: ReindexArgs) -> anyhow::Result<Exit> {
    let stores = stores::read_stores(config)?;
    if stores.is_empty() {
        return Err(Failure::bad_input("no store to index here")
            .with_hint("run `memctl init` in your project's root, or pass --store DIR")
            .into());
    }
    let cache = config.cache_dir();
    let mut exit = Exit::Ok;
    // Only a rebuild embeds: `--check` compares the words.
    let mut model = if args.check {
        None
    } else {
        super::model::in_force(config, ui)
    };
    for scoped in &stores {
        let root = scoped.store.root().display().to_string();
        if args.check {
            let mut out = String::new();
            match Index::open_existing(&scoped.store, cache) {
                Err(mdindex::Error::Unusable { cause, .. }) => {
                    out += &format!("{root}: the index cannot be used: {cause}\n");
                    exit = Exit::NothingOrProblems;
                }
                Err(e) => {
                    return Err(e).with_context(|| format!("cannot open the index of {root}"));
                }
                Ok(index) => {
                    let report = index
                        .check()
                        .with_context(|| format!("cannot compare the index of {root}"))?;
                    for difference in &report.differences {
                        out += &format!("{root}: {difference}\n");
                    }
                    if !report.is_clean() {
                        exit = Exit::NothingOrProblems;
                    }
                    ui.note(&format!(
                        "{} store: {}, {} between index and files",
                        scoped.scope.as_str(),
                        count(report.records, "record", "records"),
                        count(report.differences.len(), "difference", "differences")
                    ));
                }
            }
            ui::print(&out)?;
            continue;
        }
        let mut bar = ProgressBar::new(ui);
        let Opened { mut index, rebuilt } =
            Index::open(&scoped.store, cache, &mut |p| bar.update(p))
                .with_context(|| format!("cannot open the index of {root}"))?;
        let report = match rebuilt {
            Some(report) => report,
            None => index
                .rebuild(RebuildCause::Requested, &mut |p| bar.update(p))
                .with_context(|| format!("cannot rebuild the index of {root}"))?,
        };
        bar.finish();
        let mut out = format!(
            "{} store {root}: indexed {}, skipped {}\n",
            scoped.scope.as_str(),
            count(report.indexed, "record", "records"),
            report.skipped.len()
        );
        if let Some(semantic) = model.as_deref() {
            match index
                .refresh_vectors(semantic)
                .with_context(|| format!("cannot store the vectors of {root}"))?
            {
                Ok(vectors) => {
                    out += &format!(
                        "  embedded {}\n",
                        count(vectors.embedded, "record", "records")
                    );
                }
                Err(failure) => {
                    ui.warn(&format!(
                        "semantic matching is off: {failure}; the index holds words only"
                    ));
                    model = None;
                }
            }
        }
        for skipped in &report.skipped {
            let path = scoped.store.root().join(&skipped.rel_path);
            out += &format!(
                "  skipped {}: {}\n",
                ui::shown_path(&path),
                ui::shown(&skipped.reason.to_string())
            );
        }
        ui::print(&out)?;
    }
    Ok(exit)
}

/// The line that says an index was rebuilt before a command could use it.
pub(super) fn note_rebuilt(scoped: &ScopedStore, report: &RebuildReport) {
    eprintln!(
        "index rebuilt ({} store): {}; {} indexed{}",
        scoped.scope.as_str(),
        report.cause,
        count(report.indexed, "record", "records"),
        if report.skipped.is_empty() {
            String::new()
        } else {
            format!(", {} skipped (see `memctl check`)", report.skipped.len())
        }
    );
}
