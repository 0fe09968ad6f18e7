//! The `MEMORY.md` an index file holds: the catalogue of the records that
//! index holds, not of those on disk (docs/GIT.md). A commit's `MEMORY.md`
//! then points only to files the commit contains, whatever drafts lie
//! beside them in the working tree.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use mdstore::Store;
use mdstore::Summary;
use mdstore::catalog::{self, Budget};
use mdstore::view::StoreView;

use super::GitError;
use super::index::IndexFile;

/// What [`render`] made of an index.
pub struct IndexCatalog {
    pub text: String,
    /// The record paths the index holds (listed or not: one whose blob is
    /// no record, say conflicted, is held but not listed).
    pub held: HashSet<PathBuf>,
}

/// The catalogue of the records `index` holds. A record whose file on disk
/// is as the index has it takes its header from `on_disk` (the view the
/// write used); one that differs (changed or removed since, or staged
/// otherwise) is read from its blob, by the same rules as a file.
pub fn render(
    index: &IndexFile,
    store: &Store,
    on_disk: &StoreView,
) -> Result<IndexCatalog, GitError> {
    let entries: Vec<_> = index
        .entries()?
        .into_iter()
        .filter(|e| is_record(store, &e.rel_path))
        .collect();
    let differing: HashSet<PathBuf> = index.differing()?.into_iter().collect();
    let by_path: HashMap<&Path, &Summary> = on_disk
        .summaries
        .iter()
        .map(|s| (s.rel_path.as_path(), s))
        .collect();
    let mut summaries: Vec<Summary> = Vec::with_capacity(entries.len());
    let mut from_blobs = Vec::new();
    for entry in &entries {
        match by_path.get(entry.rel_path.as_path()) {
            Some(summary) if !differing.contains(&entry.rel_path) => {
                summaries.push((*summary).clone());
            }
            // A symbolic link's blob is where it points, not a record; the
            // link itself is a record only where the walk follows it.
            _ if entry.mode == "120000" => {}
            // A submodule is no file.
            _ if entry.mode == "160000" => {}
            _ => from_blobs.push(entry),
        }
    }
    let objects: Vec<&str> = from_blobs.iter().map(|e| e.object.as_str()).collect();
    let blobs = index.blobs(&objects, mdstore::store::MAX_RECORD_BYTES)?;
    for (entry, bytes) in from_blobs.iter().zip(blobs) {
        // What would not be read as a record on disk is none here either.
        if let Some(Ok(summary)) =
            bytes.map(|b| mdstore::store::summary_of_bytes(&entry.rel_path, &b))
        {
            summaries.push(summary);
        }
    }
    let held = entries.into_iter().map(|e| e.rel_path).collect();
    Ok(IndexCatalog {
        text: catalog::render(&summaries, Budget::default()).text,
        held,
    })
}

/// Whether `rel_path` names a record of the store (not `MEMORY.md`, no
/// dotfile or file in a dot-folder, a `.md` name).
fn is_record(store: &Store, rel_path: &Path) -> bool {
    store
        .record_rel_path(&store.root().join(rel_path))
        .is_some()
}
