//! `memctl init`: create a store and generate its `MEMORY.md` (SPEC §9;
//! `mdagent::maintain::init`).

use mdagent::Config;

use crate::cli::InitArgs;
use crate::failure::Exit;
use crate::ui::Ui;

pub fn run(config: &Config, ui: &Ui, _args: InitArgs) -> anyhow::Result<Exit> {
    let done = mdagent::maintain::init::run(config, ui)?;
    ui.note_catalog(&done.catalog);
    let (what, root) = (done.scope.as_str(), done.root.display());
    if done.existed {
        let records = done.records;
        ui.note(&format!(
            "The {what} store {root} already exists ({records} records)."
        ));
    } else {
        ui.note(&format!("Created the {what} store {root}."));
    }
    Ok(Exit::Ok)
}
