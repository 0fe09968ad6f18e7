//! The model: what the store's files should say after each step, kept by
//! the test alone, and what `MEMORY.md` may hold.

use std::collections::{BTreeMap, BTreeSet};

/// A record as the model knows it: its description, and the tokens of its
/// body: one that changes with every version, or several after a dream
/// merged records (a merge keeps its sources' facts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    pub description: String,
    pub tokens: BTreeSet<String>,
}

/// `MEMORY.md` as the model can predict it: `id → description`.
pub type Catalog = BTreeMap<String, String>;

/// One branch's worth of state: the records, the forgotten ids, the
/// conflicted files, and the catalogs `MEMORY.md` may be (more than one
/// after a step whose outcome the test cannot know, such as a killed writer;
/// the check pins it to one).
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub records: BTreeMap<String, Fact>,
    pub tombstoned: BTreeSet<String>,
    pub catalogs: Vec<Catalog>,
    /// Records a stopped merge left with conflict markers: files that are
    /// no records until resolved, so absent from `records`.
    pub conflicted: BTreeSet<String>,
}

impl Model {
    /// A freshly initialised store: no records, an empty `MEMORY.md`.
    pub fn new() -> Model {
        Model {
            catalogs: vec![Catalog::new()],
            ..Model::default()
        }
    }

    /// The catalog memctl generates from the records now.
    pub fn current_catalog(&self) -> Catalog {
        self.records
            .iter()
            .map(|(id, fact)| (id.clone(), fact.description.clone()))
            .collect()
    }

    /// A write regenerated `MEMORY.md` from the files.
    pub fn regenerated(&mut self) {
        self.catalogs = vec![self.current_catalog()];
    }

    /// `MEMORY.md` may also have been regenerated (a refused write, a writer
    /// killed after saving its record).
    pub fn maybe_regenerated(&mut self) {
        let current = self.current_catalog();
        if !self.catalogs.contains(&current) {
            self.catalogs.push(current);
        }
    }

    /// The tokens of every record, for a search that must find them all.
    pub fn tokens(&self) -> Vec<String> {
        self.records
            .values()
            .flat_map(|fact| fact.tokens.iter().cloned())
            .collect()
    }
}
