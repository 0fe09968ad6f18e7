//! A header-only view of a whole store: what every write consults (ids,
//! descriptions, trust, revisions, tombstones) without reading any body.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::id::id_key;
use crate::store::{Skipped, Store, Summary, WalkItem};
use crate::tombstone::{self, Tombstone};

#[derive(Clone, Debug, Default)]
pub struct StoreView {
    /// Every readable record's header, in walk order.
    pub summaries: Vec<Summary>,
    /// Files that look like records but could not be read.
    pub skipped: Vec<Skipped>,
    pub tombstones: Vec<Tombstone>,
    /// Tombstone files that could not be read: path and reason.
    pub tombstone_problems: Vec<(PathBuf, String)>,
    by_key: HashMap<String, usize>,
    /// `id_key` of each summary, by position: a removal must not fold every
    /// id again (NFKC and case folding of 100,000 ids for each record a
    /// dream retires).
    keys: Vec<String>,
}

impl StoreView {
    /// Reads the header of every record and every tombstone.
    ///
    /// Headers are read on every core: at 100,000 records the scan is what
    /// a write costs, and opening and parsing files is independent work.
    pub fn load(store: &Store) -> StoreView {
        let items: Vec<WalkItem> = store.walk().collect();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let chunk = items.len().div_ceil(threads).max(256);
        let read = |items: &[WalkItem]| -> Vec<Result<Summary, Skipped>> {
            items
                .iter()
                .map(|item| match item {
                    WalkItem::Record(entry) => store.read_summary(&entry.rel_path),
                    WalkItem::Skipped(skipped) => Err(skipped.clone()),
                })
                .collect()
        };
        let results: Vec<Result<Summary, Skipped>> = std::thread::scope(|scope| {
            let workers: Vec<_> = items
                .chunks(chunk)
                .map(|part| scope.spawn(move || read(part)))
                .collect();
            workers
                .into_iter()
                // A worker that panicked would be a bug in parsing, which
                // is property-tested not to; its headers are then read again
                // here so that the panic surfaces in this thread.
                .zip(items.chunks(chunk))
                .flat_map(|(worker, part)| worker.join().unwrap_or_else(|_| read(part)))
                .collect()
        });
        let mut view = StoreView::default();
        for result in results {
            match result {
                Ok(summary) => view.push(summary),
                Err(skipped) => view.skipped.push(skipped),
            }
        }
        let (tombstones, problems) = tombstone::load_all(store.root());
        view.tombstones = tombstones;
        view.tombstone_problems = problems;
        view
    }

    /// A view from headers known elsewhere (a synced search index), with
    /// the store's tombstones read from disk. Files such a source skips are
    /// not listed in `skipped`; a write still refuses to replace one, as
    /// it checks the target path itself.
    pub fn from_summaries(store: &Store, summaries: Vec<Summary>) -> StoreView {
        let mut view = StoreView::default();
        for summary in summaries {
            view.push(summary);
        }
        let (tombstones, problems) = tombstone::load_all(store.root());
        view.tombstones = tombstones;
        view.tombstone_problems = problems;
        view
    }

    fn push(&mut self, summary: Summary) {
        // On a case-sensitive file system two files can differ only in case;
        // the first (in path order) is the one memctl addresses, and `check`
        // reports the pair.
        let key = id_key(&summary.id);
        self.by_key
            .entry(key.clone())
            .or_insert(self.summaries.len());
        self.keys.push(key);
        self.summaries.push(summary);
    }

    /// The record with this id, ignoring case and Unicode normalisation;
    /// when ids collide that way, the one spelled exactly as asked.
    pub fn find(&self, id: &str) -> Option<&Summary> {
        let folded = self.by_key.get(&id_key(id)).map(|&i| &self.summaries[i])?;
        if folded.id == id {
            return Some(folded);
        }
        Some(self.summaries.iter().find(|s| s.id == id).unwrap_or(folded))
    }

    /// Replaces (or adds) the summary of a record just written.
    pub fn upsert(&mut self, summary: Summary) {
        match self.by_key.get(&id_key(&summary.id)) {
            Some(&i) => self.summaries[i] = summary,
            None => self.push(summary),
        }
    }

    /// Drops the summary of a record just removed.
    pub fn remove(&mut self, id: &str) {
        let key = id_key(id);
        let Some(i) = self.by_key.remove(&key) else {
            return;
        };
        self.summaries.remove(i);
        self.keys.remove(i);
        for index in self.by_key.values_mut() {
            if *index > i {
                *index -= 1;
            }
        }
        // Another file with the same key (`A.md` beside `a.md`) is now the
        // one that id addresses.
        if let Some(next) = self.keys.iter().position(|k| *k == key) {
            self.by_key.insert(key, next);
        }
    }

    /// Groups of records whose ids are the same record on a case-insensitive
    /// file system (SPEC §2).
    pub fn id_collisions(&self) -> Vec<Vec<&Summary>> {
        let mut groups: HashMap<String, Vec<&Summary>> = HashMap::new();
        for summary in &self.summaries {
            groups.entry(id_key(&summary.id)).or_default().push(summary);
        }
        let mut collisions: Vec<Vec<&Summary>> =
            groups.into_values().filter(|g| g.len() > 1).collect();
        collisions.sort_by(|a, b| a[0].id.cmp(&b[0].id));
        collisions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Meta;

    fn view_of(ids: &[&str]) -> StoreView {
        let mut view = StoreView::default();
        for id in ids {
            view.push(Summary {
                id: (*id).to_string(),
                rel_path: PathBuf::from(format!("{id}.md")),
                meta: Meta::default(),
            });
        }
        view
    }

    #[test]
    fn removal_keeps_every_later_record_findable() {
        let mut view = view_of(&["a", "b", "c", "d"]);
        view.remove("b");
        for id in ["a", "c", "d"] {
            assert_eq!(view.find(id).map(|s| s.id.as_str()), Some(id));
        }
        assert!(view.find("b").is_none());
    }

    #[test]
    fn removal_of_one_of_two_colliding_ids_leaves_the_other_addressable() {
        let mut view = view_of(&["Deploy", "deploy", "z"]);
        view.remove("Deploy");
        assert_eq!(view.find("DEPLOY").map(|s| s.id.as_str()), Some("deploy"));
        assert_eq!(view.find("z").map(|s| s.id.as_str()), Some("z"));
    }
}
