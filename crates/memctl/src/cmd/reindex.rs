//! `memctl reindex`: rebuild each store's index from the files, or compare
//! them with `--check` (SPEC §4; `mdagent::maintain::reindex`).

use mdagent::Config;
use mdagent::maintain::reindex::{self, Compared};
use mdagent::stores::ScopedStore;
use mdindex::RebuildReport;

use crate::cli::ReindexArgs;
use crate::failure::Exit;
use crate::ui::{self, ProgressBar, Ui, count};

pub fn run(config: &Config, ui: &Ui, args: ReindexArgs) -> anyhow::Result<Exit> {
    let stores = reindex::stores_to_index(config)?;
    if args.check {
        return compare(config, ui, &stores);
    }
    // Only a rebuild embeds: `--check` compares the words.
    let mut model = super::model::in_force(config, ui);
    for scoped in &stores {
        let root = scoped.store.root().display().to_string();
        let mut bar = ProgressBar::new(ui);
        let rebuilt = reindex::rebuild(config, scoped, &mut model, &mut |p| bar.update(p))?;
        bar.finish();
        let mut out = format!(
            "{} store {root}: indexed {}, skipped {}\n",
            scoped.scope.as_str(),
            count(rebuilt.report.indexed, "record", "records"),
            rebuilt.report.skipped.len()
        );
        if let Some(embedded) = rebuilt.embedded {
            out += &format!("  embedded {}\n", count(embedded, "record", "records"));
        }
        if let Some(failure) = &rebuilt.semantic_off {
            ui.warn(&format!(
                "semantic matching is off: {failure}; the index holds words only"
            ));
        }
        for skipped in &rebuilt.report.skipped {
            let path = scoped.store.root().join(&skipped.rel_path);
            out += &format!(
                "  skipped {}: {}\n",
                ui::shown_path(&path),
                ui::shown(&skipped.reason.to_string())
            );
        }
        ui::print(&out)?;
    }
    Ok(Exit::Ok)
}

/// `--check`: each store's index compared with its files; exit 1 when one
/// differs or cannot be used.
fn compare(config: &Config, ui: &Ui, stores: &[ScopedStore]) -> anyhow::Result<Exit> {
    let mut exit = Exit::Ok;
    for scoped in stores {
        let root = scoped.store.root().display().to_string();
        let compared = reindex::compare(config, scoped)?;
        if !compared.is_clean() {
            exit = Exit::NothingOrProblems;
        }
        let mut out = String::new();
        match compared {
            Compared::Unusable(cause) => {
                out += &format!("{root}: the index cannot be used: {cause}\n");
            }
            Compared::Compared(report) => {
                for difference in &report.differences {
                    out += &format!("{root}: {difference}\n");
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
