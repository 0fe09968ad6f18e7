//! `memctl reindex`: each store's index rebuilt from the files (and its
//! vectors embedded when semantic matching is on), or compared with them
//! (SPEC §4).

use mdembed::Model;
use mdindex::{CheckReport, Index, Opened, Progress, RebuildCause, RebuildReport};

use super::{INIT_HINT, MaintainError};
use crate::Config;
use crate::stores::{self, ScopedStore};

/// The stores to index: an error when there is none.
pub fn stores_to_index(config: &Config) -> Result<Vec<ScopedStore>, MaintainError> {
    let stores = stores::read_stores(config)?;
    if stores.is_empty() {
        return Err(MaintainError::NoStore {
            scope: "",
            what: "to index",
            hint: INIT_HINT,
        });
    }
    Ok(stores)
}

/// A store's index compared with its files.
#[derive(Debug)]
pub enum Compared {
    /// The index cannot be used at all (a search would rebuild it): why.
    Unusable(RebuildCause),
    Compared(CheckReport),
}

impl Compared {
    /// The index and the files agree.
    pub fn is_clean(&self) -> bool {
        matches!(self, Compared::Compared(report) if report.is_clean())
    }
}

/// Compares `scoped`'s index with its files, building nothing.
pub fn compare(config: &Config, scoped: &ScopedStore) -> Result<Compared, MaintainError> {
    let failed = |doing, source| index_error(doing, scoped, source);
    match Index::open_existing(&scoped.store, config.cache_dir()) {
        Err(mdindex::Error::Unusable { cause, .. }) => Ok(Compared::Unusable(cause)),
        Err(e) => Err(failed("open", e)),
        Ok(index) => Ok(Compared::Compared(
            index.check().map_err(|e| failed("compare", e))?,
        )),
    }
}

/// What a rebuild did.
#[derive(Debug)]
pub struct Rebuilt {
    pub report: RebuildReport,
    /// Records embedded, when semantic matching is on.
    pub embedded: Option<usize>,
    /// Why semantic matching was turned off for this and the next stores.
    pub semantic_off: Option<String>,
}

/// Rebuilds `scoped`'s index (once: one found unusable is rebuilt on
/// opening), then its vectors with `model`, which is dropped if it cannot
/// embed.
pub fn rebuild(
    config: &Config,
    scoped: &ScopedStore,
    model: &mut Option<Box<Model>>,
    progress: &mut dyn FnMut(Progress),
) -> Result<Rebuilt, MaintainError> {
    let failed = |doing, source| index_error(doing, scoped, source);
    let Opened { mut index, rebuilt } =
        Index::open(&scoped.store, config.cache_dir(), progress).map_err(|e| failed("open", e))?;
    let report = match rebuilt {
        Some(report) => report,
        None => index
            .rebuild(RebuildCause::Requested, progress)
            .map_err(|e| failed("rebuild", e))?,
    };
    let mut rebuilt = Rebuilt {
        report,
        embedded: None,
        semantic_off: None,
    };
    if let Some(semantic) = model.as_deref() {
        match index
            .refresh_vectors(semantic, None)
            .map_err(|e| failed("store the vectors of", e))?
        {
            Ok(vectors) => rebuilt.embedded = Some(vectors.embedded),
            Err(failure) => {
                rebuilt.semantic_off = Some(failure.to_string());
                *model = None;
            }
        }
    }
    Ok(rebuilt)
}

fn index_error(doing: &'static str, scoped: &ScopedStore, source: mdindex::Error) -> MaintainError {
    MaintainError::Index {
        doing,
        root: scoped.store.root().display().to_string(),
        source: Box::new(source),
    }
}
