//! Snapshots for changes of many files that must happen whole or not at all
//! (dream, SPEC §7): the bytes of every file the change will touch, taken
//! under the lock, and put back byte for byte when a step fails.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::atomic;
use crate::view::StoreView;

use super::Transaction;

/// Files as they were when [`Transaction::snapshot`] took them.
#[derive(Debug)]
pub struct Snapshot {
    files: Vec<SavedFile>,
    folders: Vec<SavedFolder>,
}

#[derive(Debug)]
struct SavedFile {
    rel_path: PathBuf,
    /// `None`: there was no file.
    saved: Option<(Vec<u8>, fs::Permissions)>,
}

/// A folder whose new files (names not known before the change: a second
/// tombstone beside the first) are removed again.
#[derive(Debug)]
struct SavedFolder {
    rel_path: PathBuf,
    existed: bool,
    names: HashSet<OsString>,
}

impl Snapshot {
    /// The files it holds, relative to the store.
    pub fn rel_paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|f| f.rel_path.as_path())
    }
}

impl Transaction<'_> {
    /// Saves the bytes (and permissions) of `files`, remembering which do
    /// not exist, and the names in `folders`; all relative to the store.
    pub fn snapshot(&self, files: &[PathBuf], folders: &[PathBuf]) -> io::Result<Snapshot> {
        let root = self.store.root();
        let mut snapshot = Snapshot {
            files: Vec::with_capacity(files.len()),
            folders: Vec::with_capacity(folders.len()),
        };
        for rel_path in files {
            let path = root.join(rel_path);
            let saved = match fs::read(&path) {
                Ok(bytes) => Some((bytes, fs::metadata(&path)?.permissions())),
                Err(e) if e.kind() == io::ErrorKind::NotFound => None,
                Err(e) => return Err(with_path(e, rel_path)),
            };
            snapshot.files.push(SavedFile {
                rel_path: rel_path.clone(),
                saved,
            });
        }
        for rel_path in folders {
            let (existed, names) = match fs::read_dir(root.join(rel_path)) {
                Ok(entries) => (
                    true,
                    entries
                        .map(|e| e.map(|e| e.file_name()))
                        .collect::<io::Result<_>>()?,
                ),
                Err(e) if e.kind() == io::ErrorKind::NotFound => (false, HashSet::new()),
                Err(e) => return Err(with_path(e, rel_path)),
            };
            snapshot.folders.push(SavedFolder {
                rel_path: rel_path.clone(),
                existed,
                names,
            });
        }
        Ok(snapshot)
    }

    /// Puts every file of `snapshot` back as it was, byte for byte (removing
    /// those that did not exist and new files in its folders), reloads the
    /// view, and marks the records among them changed. `MEMORY.md`, when
    /// saved, is as it was too, so a commit after this does not rewrite it.
    /// Every file is tried; the first failure is returned with its path.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<(), (PathBuf, io::Error)> {
        let root = self.store.root().to_path_buf();
        let mut first_error = None;
        let mut note = |rel_path: &Path, result: io::Result<()>| {
            if let Err(e) = result {
                first_error.get_or_insert((rel_path.to_path_buf(), e));
            }
        };
        for folder in &snapshot.folders {
            note(&folder.rel_path, restore_folder(&root, folder));
        }
        for file in &snapshot.files {
            note(&file.rel_path, restore_file(&root, file));
        }
        self.view = StoreView::load(self.store);
        for file in &snapshot.files {
            if self
                .store
                .record_rel_path(&root.join(&file.rel_path))
                .is_some()
            {
                self.changed.push(file.rel_path.clone());
            }
        }
        self.settled_catalog = Some(None);
        first_error.map_or(Ok(()), Err)
    }
}

fn restore_file(root: &Path, file: &SavedFile) -> io::Result<()> {
    let path = root.join(&file.rel_path);
    match &file.saved {
        None => atomic::remove_file(&path),
        Some((bytes, permissions)) => {
            if fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
                atomic::write_file(&path, bytes)?;
            }
            fs::set_permissions(&path, permissions.clone())
        }
    }
}

fn restore_folder(root: &Path, folder: &SavedFolder) -> io::Result<()> {
    let path = root.join(&folder.rel_path);
    let entries = match fs::read_dir(&path) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        if !folder.names.contains(&entry.file_name()) && entry.file_type()?.is_file() {
            atomic::remove_file(&entry.path())?;
        }
    }
    if !folder.existed {
        // Only an empty folder goes: anything else in it is not ours.
        let _ = fs::remove_dir(&path);
    }
    Ok(())
}

fn with_path(e: io::Error, rel_path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", rel_path.display()))
}
