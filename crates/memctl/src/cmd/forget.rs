//! `memctl forget`: shows the records `mdagent::forget` found for the ids,
//! asks, then has it forget them behind tombstones (SPEC §6).

use mdagent::Config;
use mdagent::forget;

use crate::cli::ForgetArgs;
use crate::failure::Exit;
use crate::ui::{self, Ui};

pub fn run(config: &Config, ui: &Ui, args: ForgetArgs) -> anyhow::Result<Exit> {
    forget::refuse_secret_reason(args.reason.as_deref(), "--reason")?;
    let scoped = forget::target_store(config, &args.ids)?;
    let store = &scoped.store;
    let targets = forget::find_targets(config, &scoped, &args.ids)?;
    let mut plan = String::new();
    for summary in &targets {
        plan += &format!(
            "FORGET {} ({}): {}\n",
            ui::shown(&summary.id),
            ui::shown_path(&store.root().join(&summary.rel_path)),
            ui::shown(summary.description())
        );
    }
    ui::print(&plan)?;
    let confirmed = args.yes || (ui.interactive && ui.confirm("Forget?")?);
    if !confirmed {
        ui.not_confirmed("nothing forgotten", "pass --yes to forget without asking");
        return Ok(Exit::NotConfirmed);
    }
    let reason = args.reason.as_deref();
    forget::forget_confirmed(config, ui, store, &targets, reason, args.commit)?;
    Ok(Exit::Ok)
}
