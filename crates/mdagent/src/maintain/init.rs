//! `memctl init`: a store created (`.memory/` here, the named folder, or
//! the global store) and its `MEMORY.md` generated through the store's
//! write transaction (SPEC §9).

use std::path::PathBuf;

use mdstore::catalog::Catalog;
use mdstore::txn::Transaction;
use mdstore::view::StoreView;

use super::MaintainError;
use crate::Config;
use crate::face::Tell;
use crate::stores::{self, Scope, StoreError, WORKSPACE_DIR};

/// What `init` did.
#[derive(Debug)]
pub struct Initialized {
    pub scope: Scope,
    pub root: PathBuf,
    /// The store was there already: init only regenerated `MEMORY.md`.
    pub existed: bool,
    pub records: usize,
    pub catalog: Catalog,
}

/// Creates the store `config` names (or finds it there), then writes its
/// `MEMORY.md` in a write transaction, which first finishes or undoes what
/// a killed writer left; a git repository's attributes are set up, saying
/// so through `tell`.
pub fn run(config: &Config, tell: &dyn Tell) -> Result<Initialized, MaintainError> {
    let dir = if config.global {
        stores::global_dir(config)?
    } else if let Some((dir, _)) = stores::named_workspace_dir(config) {
        dir
    } else {
        let here = config.cwd().map_err(StoreError::CurrentDir)?;
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
    let scope = stores::default_scope(config);
    let store = stores::create(scope, &dir)?.store;
    let mut txn = Transaction::begin(&store, lock_timeout, StoreView::load)?;
    crate::face::warn_repaired(tell, store.root(), txn.recovered());
    let catalog = txn.write_catalog().map_err(MaintainError::Catalog)?;
    let records = txn.view().summaries.len();
    // Nothing changed since MEMORY.md was written: the commit writes nothing.
    drop(txn.commit(&mut ()));
    crate::git::attributes::ensure_in_repo(tell, store.root());
    Ok(Initialized {
        scope,
        root: store.root().to_path_buf(),
        existed,
        records,
        catalog,
    })
}
