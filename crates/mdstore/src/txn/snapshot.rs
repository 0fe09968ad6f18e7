//! Snapshots for changes of many files that must happen whole or not at all
//! (dream, SPEC §7): the bytes of every file the change will touch, taken
//! under the lock, and put back byte for byte when a step fails.
//!
//! A snapshot is also written to the store as a journal
//! ([`JOURNAL_FILE`]) before the first file changes and removed once the
//! change is whole: a writer killed in between leaves it, and the next
//! command that takes the lock puts every file back from it
//! (`crate::recover`), so a half-applied change is undone.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::Store;
use crate::atomic;
use crate::view::StoreView;

use super::Transaction;

/// The journal of a change of many files under way, at the store's root: a
/// dotfile, so never a record.
pub const JOURNAL_FILE: &str = ".memctl-journal.json";

/// A journal larger than this is refused rather than read (a dream that
/// touches thousands of records of 256 KiB stays far below it).
const MAX_JOURNAL_BYTES: u64 = 1 << 30;

/// Files as they were when [`Transaction::snapshot`] took them.
#[derive(Debug)]
pub struct Snapshot {
    files: Vec<SavedFile>,
    folders: Vec<SavedFolder>,
}

#[derive(Debug)]
struct SavedFile {
    rel_path: PathBuf,
    /// `None`: there was no file. Its permissions, when known.
    saved: Option<(Vec<u8>, Option<fs::Permissions>)>,
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

    /// Puts every file back as it was in `store` (removing those that did
    /// not exist and new files in its folders). Every file is tried; the
    /// first failure is returned with its path.
    pub(crate) fn put_back(&self, store: &Store) -> Result<(), (PathBuf, io::Error)> {
        let root = store.root();
        let mut first_error = None;
        let mut note = |rel_path: &Path, result: io::Result<()>| {
            if let Err(e) = result {
                first_error.get_or_insert((rel_path.to_path_buf(), e));
            }
        };
        for folder in &self.folders {
            note(&folder.rel_path, restore_folder(root, folder));
        }
        for file in &self.files {
            note(&file.rel_path, restore_file(store, file));
        }
        first_error.map_or(Ok(()), Err)
    }

    /// The journal's bytes.
    fn to_journal(&self) -> io::Result<Vec<u8>> {
        let journal = Journal {
            version: 1,
            files: self
                .files
                .iter()
                .map(|f| JournalFile {
                    path: portable(&f.rel_path),
                    content: f.saved.as_ref().map(|(bytes, _)| Content::of(bytes)),
                    mode: f
                        .saved
                        .as_ref()
                        .and_then(|(_, p)| p.as_ref())
                        .and_then(mode_of),
                })
                .collect(),
            folders: self
                .folders
                .iter()
                .map(|f| JournalFolder {
                    path: portable(&f.rel_path),
                    existed: f.existed,
                    names: {
                        let mut names: Vec<String> = f
                            .names
                            .iter()
                            .map(|n| n.to_string_lossy().into_owned())
                            .collect();
                        names.sort();
                        names
                    },
                })
                .collect(),
        };
        serde_json::to_vec(&journal).map_err(io::Error::other)
    }

    /// The snapshot a journal holds, every path checked to be a plain path
    /// inside the store at `root` (a journal is a file in the store, which a
    /// cloned repository could carry: it names nothing outside).
    pub(crate) fn from_journal(root: &Path, bytes: &[u8]) -> io::Result<Snapshot> {
        let bad = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
        let journal: Journal = serde_json::from_slice(bytes)
            .map_err(|e| bad(format!("not a journal memctl wrote: {e}")))?;
        if journal.version != 1 {
            return Err(bad(format!("journal version {}", journal.version)));
        }
        let mut snapshot = Snapshot {
            files: Vec::with_capacity(journal.files.len()),
            folders: Vec::with_capacity(journal.folders.len()),
        };
        for file in journal.files {
            let rel_path = crate::id::inside(root, &file.path)
                .ok_or_else(|| bad(format!("{:?} is not a path inside the store", file.path)))?;
            let saved = match file.content {
                None => None,
                Some(content) => Some((content.bytes().map_err(bad)?, permissions(file.mode))),
            };
            snapshot.files.push(SavedFile { rel_path, saved });
        }
        for folder in journal.folders {
            let rel_path = crate::id::inside(root, &folder.path)
                .ok_or_else(|| bad(format!("{:?} is not a path inside the store", folder.path)))?;
            snapshot.folders.push(SavedFolder {
                rel_path,
                existed: folder.existed,
                names: folder.names.into_iter().map(OsString::from).collect(),
            });
        }
        Ok(snapshot)
    }
}

/// Reads the journal at `path`: a regular file (never followed through a
/// link) of bounded size. `Ok(None)` when there is none.
pub(crate) fn read_journal(path: &Path) -> io::Result<Option<Vec<u8>>> {
    crate::untrusted::read(path, MAX_JOURNAL_BYTES).map_err(|e| match e {
        crate::untrusted::ReadError::Io(e) => e,
        crate::untrusted::ReadError::Refused(why) => io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not a journal memctl wrote: {why}"),
        ),
    })
}

/// The journal file's format.
#[derive(Serialize, Deserialize)]
struct Journal {
    version: u32,
    files: Vec<JournalFile>,
    folders: Vec<JournalFolder>,
}

#[derive(Serialize, Deserialize)]
struct JournalFile {
    /// Relative to the store, `/`-separated.
    path: String,
    /// `None`: there was no file.
    content: Option<Content>,
    mode: Option<u32>,
}

#[derive(Serialize, Deserialize)]
struct JournalFolder {
    path: String,
    existed: bool,
    names: Vec<String>,
}

/// A file's bytes: as text when they are UTF-8 (records, tombstones,
/// `MEMORY.md` always are), else in hexadecimal.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Content {
    Text(String),
    Hex(String),
}

impl Content {
    fn of(bytes: &[u8]) -> Content {
        match std::str::from_utf8(bytes) {
            Ok(text) => Content::Text(text.to_string()),
            Err(_) => Content::Hex(bytes.iter().map(|b| format!("{b:02x}")).collect()),
        }
    }

    fn bytes(self) -> Result<Vec<u8>, String> {
        match self {
            Content::Text(text) => Ok(text.into_bytes()),
            Content::Hex(hex) => (0..hex.len())
                .step_by(2)
                .map(|i| {
                    hex.get(i..i + 2)
                        .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                        .ok_or_else(|| {
                            "a file's bytes in the journal are not hexadecimal".to_string()
                        })
                })
                .collect(),
        }
    }
}

fn portable(rel_path: &Path) -> String {
    rel_path
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn mode_of(permissions: &fs::Permissions) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(permissions.mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = permissions;
        None
    }
}

/// Permissions for a restored file: its mode when the journal has one.
fn permissions(mode: Option<u32>) -> Option<fs::Permissions> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        mode.map(|m| fs::Permissions::from_mode(m & 0o777))
    }
    #[cfg(not(unix))]
    {
        let _ = mode;
        None
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
            let saved = match self.store.read_inside(&path) {
                Ok(bytes) => Some((bytes, Some(fs::metadata(&path)?.permissions()))),
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
        let restored = snapshot.put_back(self.store);
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
        restored
    }

    /// Writes `snapshot` as the store's journal, before the first file of
    /// the change it saves is touched.
    pub fn begin_journal(&self, snapshot: &Snapshot) -> io::Result<()> {
        atomic::write_private_file(
            &self.store.root().join(JOURNAL_FILE),
            &snapshot.to_journal()?,
        )
    }

    /// Removes the journal: the change is whole (or was undone).
    pub fn end_journal(&self) -> io::Result<()> {
        atomic::remove_file(&self.store.root().join(JOURNAL_FILE))
    }
}

fn restore_file(store: &Store, file: &SavedFile) -> io::Result<()> {
    let path = store.root().join(&file.rel_path);
    match &file.saved {
        None => atomic::remove_file(&path),
        Some((bytes, permissions)) => {
            // Read as the snapshot read it: a record that is a link inside
            // the store, unchanged, stays a link.
            if store.read_inside(&path).ok().as_deref() != Some(bytes.as_slice()) {
                atomic::write_file(&path, bytes)?;
            }
            match permissions {
                Some(permissions) => fs::set_permissions(&path, permissions.clone()),
                None => Ok(()),
            }
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
