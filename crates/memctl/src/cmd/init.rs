//! `memctl init`: create a store (`.memory/` here, the named folder, or the
//! global store) and generate its `MEMORY.md` (SPEC §9).

use anyhow::Context;
use mdagent::Config;
use mdagent::stores::{self, WORKSPACE_DIR};
use mdstore::catalog;
use mdstore::lock::StoreLock;
use mdstore::view::StoreView;

use crate::cli::InitArgs;
use crate::failure::Exit;
use crate::ui::Ui;

pub fn run(config: &Config, ui: &Ui, _args: InitArgs) -> anyhow::Result<Exit> {
    let dir = if config.global {
        stores::global_dir(config)?
    } else if let Some((dir, _)) = stores::named_workspace_dir(config) {
        dir
    } else {
        let here = config.cwd().context("cannot read the current folder")?;
        // A `.memory` link committed in a clone is not made a store here
        // either: init would write MEMORY.md wherever it points.
        stores::found_store(here)?;
        here.join(WORKSPACE_DIR)
    };
    let named = if config.global {
        dir.display().to_string()
    } else {
        stores::named(config, &dir)
    };
    stores::refuse_file_as_store(&named, &dir)?;
    // Before anything is created: a bad MEMCTL_LOCK_TIMEOUT_MS creates nothing.
    let lock_timeout = config.lock_timeout()?;
    let existed = dir.is_dir();
    let store = stores::create(stores::default_scope(config), &dir)?.store;
    let _lock = StoreLock::acquire(store.root(), lock_timeout)?;
    let view = StoreView::load(&store);
    let catalog = catalog::write(&store, &view.summaries).context("cannot write MEMORY.md")?;
    ui.note_catalog(&catalog);
    mdagent::git::attributes::ensure_in_repo(ui, store.root());
    let what = stores::default_scope(config).as_str();
    if existed {
        ui.note(&format!(
            "The {what} store {} already exists ({} records).",
            store.root().display(),
            view.summaries.len()
        ));
    } else {
        ui.note(&format!(
            "Created the {what} store {}.",
            store.root().display()
        ));
    }
    Ok(Exit::Ok)
}
