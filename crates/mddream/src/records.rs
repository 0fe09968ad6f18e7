//! Orient (SPEC §7, step 1): every record of a store, read whole, with the
//! scope it belongs to; files that are not readable records are reported
//! and left alone.

use std::collections::HashMap;
use std::path::PathBuf;

use mdstore::id::id_key;
use mdstore::store::{Skipped, WalkItem};
use mdstore::{Record, Severity, Store};

use crate::plan::{RecordRef, Scope};

/// A record as dream sees it.
#[derive(Clone, Debug)]
pub struct DreamRecord {
    pub scope: Scope,
    pub record: Record,
}

impl DreamRecord {
    /// The revision a plan reads it at: 1 when the file has none.
    pub fn revision(&self) -> u64 {
        self.record.meta.revision.unwrap_or(1)
    }

    pub fn reference(&self) -> RecordRef {
        RecordRef {
            scope: self.scope,
            id: self.record.id.clone(),
            revision: self.revision(),
        }
    }
}

/// A file dream will not touch, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    pub scope: Scope,
    pub rel_path: PathBuf,
    pub reason: String,
}

/// What orienting found in one store.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    pub records: Vec<DreamRecord>,
    pub broken: Vec<Broken>,
}

/// Reads every record of `store`. A record with an error-level problem
/// (broken frontmatter, a conflict marker) is broken: dream neither merges
/// nor retires what it cannot read reliably.
pub fn load(store: &Store, scope: Scope) -> Loaded {
    let mut loaded = Loaded::default();
    for item in store.walk() {
        let entry = match item {
            WalkItem::Record(entry) => entry,
            WalkItem::Skipped(skipped) => {
                loaded.broken.push(broken(scope, skipped));
                continue;
            }
        };
        match store.read_entry(&entry) {
            Ok(record) => match record
                .problems
                .iter()
                .find(|p| p.severity == Severity::Error)
            {
                Some(problem) => loaded.broken.push(Broken {
                    scope,
                    rel_path: record.rel_path.clone(),
                    reason: problem.message.clone(),
                }),
                None => loaded.records.push(DreamRecord { scope, record }),
            },
            Err(skipped) => loaded.broken.push(broken(scope, skipped)),
        }
    }
    set_aside_id_collisions(&mut loaded, scope);
    loaded
        .records
        .sort_by(|a, b| (a.scope, &a.record.id).cmp(&(b.scope, &b.record.id)));
    loaded
}

/// Files whose ids differ only in case or compatibility form (`Foo`, `foo`,
/// `ｆｏｏ`) are one record to the name rules: a plan could not name one of
/// them without the others, so none is read (as `check` reports them).
fn set_aside_id_collisions(loaded: &mut Loaded, scope: Scope) {
    let mut ids_of_key: HashMap<String, Vec<String>> = HashMap::new();
    for r in &loaded.records {
        ids_of_key
            .entry(id_key(&r.record.id))
            .or_default()
            .push(r.record.id.clone());
    }
    let (colliding, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut loaded.records)
        .into_iter()
        .partition(|r| ids_of_key[&id_key(&r.record.id)].len() > 1);
    loaded.records = kept;
    for r in colliding {
        let ids = &ids_of_key[&id_key(&r.record.id)];
        loaded.broken.push(Broken {
            scope,
            rel_path: r.record.rel_path.clone(),
            reason: format!(
                "ids {} differ only in case or Unicode normalisation, so they are one record: rename all but one by hand",
                ids.join(", ")
            ),
        });
    }
}

fn broken(scope: Scope, skipped: Skipped) -> Broken {
    Broken {
        scope,
        rel_path: skipped.rel_path,
        reason: skipped.reason.to_string(),
    }
}
