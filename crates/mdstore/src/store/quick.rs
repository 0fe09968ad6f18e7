//! The quick walk: what [`Store::walk`] finds, for a freshness check that
//! only compares stats (issue 29). A plain record file (a regular file with
//! a record's name) is statted through its directory entry (`statx` on the
//! open folder and the bare name, no path resolved again from the root) and
//! handed over as a borrowed path and a [`RecordStat`], with no per-file
//! `FileEntry`, id or path built; the stats are spread over threads. Every
//! other entry (a symlink, a look-alike, a file that changed kind or grew
//! too large between the listing and the stat) goes through the walk's own
//! rules ([`Store::walk_item`]), so the two walks cannot disagree on what a
//! record is; the oracle test in tests/it/quick_walk.rs checks that they
//! do not on odd trees. Unlike [`Store::walk`] the order is not sorted.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use super::{
    MAX_RECORD_BYTES, SkipReason, Skipped, Store, WalkItem, ctime_ns, inode, is_hidden,
    is_record_name, mtime_ns, on_threads,
};

/// How many listed folders' handles a batch holds open at most (each listed
/// entry keeps its folder's handle until statted; a process may have 1,024).
const HELD_FOLDERS: usize = 64;

/// What a freshness check compares of a record file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordStat {
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub inode: u64,
}

impl RecordStat {
    /// The stat of a walked [`super::FileEntry`].
    pub fn of(entry: &super::FileEntry) -> RecordStat {
        RecordStat {
            size: entry.size,
            mtime_ns: entry.mtime_ns,
            ctime_ns: entry.ctime_ns,
            inode: entry.inode,
        }
    }

    fn of_metadata(meta: &fs::Metadata) -> RecordStat {
        RecordStat {
            size: meta.len(),
            mtime_ns: mtime_ns(meta),
            ctime_ns: ctime_ns(meta),
            inode: inode(meta),
        }
    }
}

/// One thing the quick walk met.
pub enum Met<'a> {
    /// A plain record file: its path relative to the root, as
    /// `rel_path.to_string_lossy()` of [`Store::walk`]'s entry spells it
    /// (valid for the call only), and its stat.
    Record(&'a str, RecordStat),
    /// Anything else [`Store::walk`] yields, as it yields it.
    Item(WalkItem),
}

/// A plain record file listed and statted: the folder it is in (an index
/// into [`QuickWalk::folders`]) and its name.
struct Plain {
    folder: usize,
    name: String,
    stat: RecordStat,
}

/// The result of [`Store::walk_quick`], handed over by [`QuickWalk::for_each`].
pub struct QuickWalk {
    /// Each folder's path relative to the root, `/`-terminated ("" for the root).
    folders: Vec<String>,
    plain: Vec<Plain>,
    other: Vec<WalkItem>,
}

impl QuickWalk {
    /// Calls `visit` with every record file and skipped look-alike.
    pub fn for_each(self, mut visit: impl FnMut(Met<'_>)) {
        let mut rel = String::new();
        for plain in &self.plain {
            rel.clear();
            rel.push_str(&self.folders[plain.folder]);
            rel.push_str(&plain.name);
            visit(Met::Record(&rel, plain.stat));
        }
        for item in self.other {
            visit(Met::Item(item));
        }
    }
}

/// An entry to stat: where it is and what the listing saw.
struct Listed {
    folder: usize,
    name: String,
    entry: fs::DirEntry,
    file_type: fs::FileType,
}

impl Store {
    /// What [`Store::walk`] yields, unsorted, with the stats of plain record
    /// files spread over `threads` threads (see the module documentation).
    pub fn walk_quick(&self, threads: usize) -> QuickWalk {
        let mut walk = QuickWalk {
            folders: vec![String::new()],
            plain: Vec::new(),
            other: Vec::new(),
        };
        let mut pending = vec![0];
        // A listed entry keeps its folder open until it is statted, so the
        // folders are listed and statted in batches of at most
        // `HELD_FOLDERS`, never one open folder per folder of the store.
        loop {
            let listed = self.list_plain(&mut walk, &mut pending);
            self.stat_listed(&mut walk, listed, threads);
            if pending.is_empty() {
                return walk;
            }
        }
    }

    /// Stats `listed` over `threads` threads into `walk`.
    fn stat_listed(&self, walk: &mut QuickWalk, listed: Vec<Listed>, threads: usize) {
        let stats = on_threads(&listed, threads, plain_stat);
        for (listed, stat) in listed.into_iter().zip(stats) {
            match stat {
                Some(stat) => walk.plain.push(Plain {
                    folder: listed.folder,
                    name: listed.name,
                    stat,
                }),
                // Not a plain record file after all: the walk's rules say
                // what it is.
                None => {
                    let rel = format!("{}{}", walk.folders[listed.folder], listed.name);
                    walk.other
                        .extend(self.walk_item(&self.root.join(rel), listed.file_type));
                }
            }
        }
    }

    /// Lists folders from `pending` until `HELD_FOLDERS` of them hold a
    /// plain record file or none is left (dot-folders are not entered, as in
    /// [`Store::walk`]); returns the plain record files to stat and puts
    /// every other entry's walk item in `walk.other`.
    fn list_plain(&self, walk: &mut QuickWalk, pending: &mut Vec<usize>) -> Vec<Listed> {
        let mut listed: Vec<Listed> = Vec::new();
        let mut held = 0;
        while held < HELD_FOLDERS
            && let Some(folder) = pending.pop()
        {
            let before = listed.len();
            let path = self.root.join(&walk.folders[folder]);
            let entries = match fs::read_dir(&path) {
                Ok(entries) => entries,
                Err(err) => {
                    walk.other.push(unreadable(&walk.folders[folder], &err));
                    continue;
                }
            };
            for entry in entries {
                let entry = match entry {
                    Ok(entry) => entry,
                    Err(err) => {
                        walk.other.push(unreadable(&walk.folders[folder], &err));
                        continue;
                    }
                };
                let name = entry.file_name();
                let Ok(file_type) = entry.file_type() else {
                    walk.other
                        .extend(self.walk_item_of(&walk.folders[folder], &name, None));
                    continue;
                };
                if file_type.is_dir() {
                    if !is_hidden(&name) {
                        let rel = format!("{}{}/", walk.folders[folder], name.to_string_lossy());
                        walk.folders.push(rel);
                        pending.push(walk.folders.len() - 1);
                    }
                    continue;
                }
                match name.into_string() {
                    Ok(name) if file_type.is_file() && is_record_name(Path::new(&name)) => {
                        listed.push(Listed {
                            folder,
                            name,
                            entry,
                            file_type,
                        });
                    }
                    Ok(name) => walk.other.extend(self.walk_item_of(
                        &walk.folders[folder],
                        &OsString::from(name),
                        Some(file_type),
                    )),
                    Err(name) => {
                        walk.other.extend(self.walk_item_of(
                            &walk.folders[folder],
                            &name,
                            Some(file_type),
                        ));
                    }
                }
            }
            if listed.len() > before {
                held += 1;
            }
        }
        listed
    }

    /// [`Store::walk_item`] of an entry the listing could not take quickly.
    fn walk_item_of(
        &self,
        folder: &str,
        name: &std::ffi::OsStr,
        file_type: Option<fs::FileType>,
    ) -> Option<WalkItem> {
        let path = self.root.join(folder).join(name);
        let file_type = match file_type {
            Some(file_type) => file_type,
            None => match fs::symlink_metadata(&path) {
                Ok(meta) => meta.file_type(),
                Err(err) => return Some(unreadable_path(&self.root, &path, &err)),
            },
        };
        self.walk_item(&path, file_type)
    }
}

/// The stat of a listed entry when it is still a plain record file (a
/// regular file within the size limit); `None` sends it to the walk's rules.
fn plain_stat(listed: &Listed) -> Option<RecordStat> {
    let meta = listed.entry.metadata().ok()?;
    (meta.is_file() && meta.len() <= MAX_RECORD_BYTES).then(|| RecordStat::of_metadata(&meta))
}

fn unreadable(folder: &str, err: &std::io::Error) -> WalkItem {
    WalkItem::Skipped(Skipped {
        rel_path: PathBuf::from(folder.trim_end_matches('/')),
        reason: SkipReason::Unreadable(err.to_string()),
    })
}

fn unreadable_path(root: &Path, path: &Path, err: &std::io::Error) -> WalkItem {
    WalkItem::Skipped(Skipped {
        rel_path: path.strip_prefix(root).unwrap_or(path).to_path_buf(),
        reason: SkipReason::Unreadable(err.to_string()),
    })
}
