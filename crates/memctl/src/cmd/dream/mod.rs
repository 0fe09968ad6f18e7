//! `memctl dream`: the switches handed to [`mdagent::dream::run`], which
//! runs the whole sequence (SPEC §7); this face shows the plan, asks for
//! confirmation and renders the report.

mod render;

use std::io;
use std::path::Path;

use mdagent::Config;
use mdagent::dream::plan::Plan;
use mdagent::dream::{self, DreamFace, DreamRequest, Dreamt, Oriented};
use mdstore::redact::{self, Keep};

use crate::cli::DreamArgs;
use crate::failure::Exit;
use crate::ui::{self, Ui};

pub fn run(config: &Config, ui: &Ui, args: DreamArgs) -> anyhow::Result<Exit> {
    let request = DreamRequest {
        llm_cmd: args.llm_cmd.as_deref(),
        max_delete_pct: args.max_delete_pct,
        auto: args.auto,
        dry_run: args.dry_run,
        commit: args.commit,
        background: args.background,
    };
    let face = Face { ui, args: &args };
    match dream::run(config, &face, &request)? {
        Dreamt::Skipped => Ok(Exit::Ok),
        Dreamt::NotConfirmed => Ok(Exit::NotConfirmed),
        Dreamt::Planned { .. } if args.dry_run => {
            if !args.json {
                ui.note("Dry run: nothing was written.");
            }
            Ok(Exit::Ok)
        }
        Dreamt::Planned {
            plan,
            applied,
            oriented,
        } => {
            if !ui.quiet || args.json {
                render::report(&args, &plan, applied.as_ref(), &oriented)?;
            }
            Ok(Exit::Ok)
        }
    }
}

/// The command line as dream's face: the plan shown on stdout, the
/// question asked on the terminal.
struct Face<'a> {
    ui: &'a Ui,
    args: &'a DreamArgs,
}

impl mdagent::face::Tell for Face<'_> {
    fn note(&self, text: &str) {
        self.ui.note(text);
    }
    fn warn(&self, text: &str) {
        self.ui.warn(text);
    }
}

impl DreamFace for Face<'_> {
    /// The plan as a person reads it, or as JSON for `--dry-run --json`;
    /// secrets hidden. With `--yes -q` nobody reads it (as
    /// `remember --yes -q`): not shown.
    fn show(&self, plan: &Plan, oriented: &Oriented) -> io::Result<()> {
        let (ui, args) = (self.ui, self.args);
        if ui.quiet && args.yes && !args.dry_run && !args.json {
            return Ok(());
        }
        if args.json && args.dry_run {
            render::print_json(plan).map_err(io::Error::other)?;
        } else if !args.json {
            ui::print(&redact::lines(
                &render::plan(ui, plan, oriented),
                Keep::Indent,
            ))?;
        }
        Ok(())
    }

    fn confirm(&self, _plan: &Plan) -> io::Result<bool> {
        if self.args.yes || (self.ui.interactive && self.ui.confirm("Apply this plan?")?) {
            return Ok(true);
        }
        self.ui.not_confirmed(
            "nothing was written",
            "pass --yes to apply without asking, or --dry-run to only see the plan",
        );
        Ok(false)
    }

    fn preserved(&self, kept: &Path) {
        self.ui.warn_preserved(kept);
    }
}
