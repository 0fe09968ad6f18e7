//! `memctl check`: every record of the stores linted, and each store's
//! `.memctl.toml` read (fit for a pre-commit hook).

use mdstore::store::CATALOG_FILE;

pub use mdstore::Severity;
pub use mdstore::check::Finding;

use super::MaintainError;
use crate::Config;
use crate::config::store_file;
use crate::stores::{self, Scope, ScopedStore};

/// One store's problems.
#[derive(Debug)]
pub struct StoreCheck {
    pub scoped: ScopedStore,
    pub records: usize,
    pub findings: Vec<Finding>,
    /// Records whose `name` is a label other than their file name: not
    /// problems, one count to show.
    pub labelled: usize,
}

impl StoreCheck {
    /// One of the problems is `MEMORY.md`'s, which any write (or `init`)
    /// regenerates.
    pub fn catalog_problem(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.rel_path.as_os_str() == CATALOG_FILE)
    }
}

/// Checks the stores of `scope` (all of them when `None`: a project's hook
/// asks for the workspace's only, not its author's global one).
pub fn run(config: &Config, scope: Option<Scope>) -> Result<Vec<StoreCheck>, MaintainError> {
    let mut stores = stores::read_stores(config)?;
    if let Some(scope) = scope {
        stores.retain(|s| s.scope == scope);
    }
    if stores.is_empty() {
        return Err(MaintainError::NoStore {
            scope: "",
            what: "to check",
            hint: "run it inside a project with a `.memory/` folder, or pass --store DIR",
        });
    }
    Ok(stores.into_iter().map(check_one).collect())
}

fn check_one(scoped: ScopedStore) -> StoreCheck {
    let mut report = mdstore::check::check(&scoped.store);
    report
        .findings
        .extend(settings_problem(scoped.store.root()));
    StoreCheck {
        records: report.records,
        findings: report.findings,
        labelled: report.labelled.len(),
        scoped,
    }
}

/// What is wrong with the store's `.memctl.toml`, if anything: every write
/// and hook would otherwise report it one warning at a time (issue 25).
fn settings_problem(store_root: &std::path::Path) -> Option<Finding> {
    let file = store_file::read(store_root);
    Some(Finding {
        rel_path: store_file::SETTINGS_FILE.into(),
        line: None,
        severity: Severity::Error,
        message: file.problem()?,
    })
}
