//! A store on disk: finding its record files, reading them whole or header
//! only, and telling records from everything else in the folder.

use std::fs;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::frontmatter::{self, HeaderEnd};
use crate::record::{Meta, Problem, Record, RecordType, Source};

mod open;
mod quick;
pub use quick::{Met, QuickWalk, RecordStat};

/// Files larger than this are not records (SPEC §2); they are reported.
pub const MAX_RECORD_BYTES: u64 = 256 * 1024;

/// How much of a file a header-only read takes first.
const HEADER_PREFIX_BYTES: usize = 4096;

/// The name of the generated catalogue.
pub const CATALOG_FILE: &str = "MEMORY.md";

/// A store folder: the records are the truth.
#[derive(Clone, Debug)]
pub struct Store {
    root: PathBuf,
}

/// A record file found by [`Store::walk`], with what freshness checks need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEntry {
    /// Relative to the store root, as found on disk.
    pub rel_path: PathBuf,
    pub id: String,
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Status-change time in nanoseconds since the Unix epoch (Unix; 0
    /// elsewhere): unlike the mtime, no program can set it back, so it
    /// changes when `cp -p` or `touch -r` replace content and keep the mtime.
    pub ctime_ns: i64,
    /// Inode number on Unix; 0 elsewhere.
    pub inode: u64,
}

/// Why a file that looks like a record is not read as one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SkipReason {
    #[error("a dotfile, so not a record; rename it without the leading dot to make it one")]
    Hidden,
    #[error("larger than 256 KiB ({0} bytes); not read as a record")]
    TooLarge(u64),
    #[error("a symlink that leads outside the store")]
    SymlinkOutside,
    #[error("a symlink to a folder; not followed")]
    SymlinkedFolder,
    #[error("not a regular file (a pipe, socket or device); not read")]
    NotRegularFile,
    #[error("not valid UTF-8 (first bad byte at offset {0})")]
    NotUtf8(usize),
    #[error("contains a NUL byte at offset {0}")]
    NulByte(usize),
    #[error("cannot be read: {0}")]
    Unreadable(String),
    /// The 1-based lines of git's conflict markers.
    #[error("an unresolved git merge conflict (markers at lines {}): resolve it, then `git add` it; `memctl show` prints both sides, and memctl neither lists nor rewrites it meanwhile", join_lines(.0))]
    Conflicted(Vec<usize>),
}

fn join_lines(lines: &[usize]) -> String {
    lines
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A file skipped by [`Store::walk`] or [`Store::read_record`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub rel_path: PathBuf,
    pub reason: SkipReason,
}

/// One item of a store walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkItem {
    Record(FileEntry),
    Skipped(Skipped),
}

/// What a header-only read gives: enough for `MEMORY.md`, `list` and the
/// write-time checks, without reading bodies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub id: String,
    pub rel_path: PathBuf,
    pub meta: Meta,
}

impl Summary {
    pub fn record_type(&self) -> Option<RecordType> {
        self.meta.record_type
    }

    pub fn description(&self) -> &str {
        self.meta.description.as_deref().unwrap_or("")
    }

    pub fn source(&self) -> Source {
        self.meta.source.unwrap_or(Source::User)
    }
}

impl Store {
    /// Opens an existing store folder. The path is canonicalised, so that a
    /// store has one identity however it was named.
    pub fn open(root: &Path) -> io::Result<Store> {
        let root = fs::canonicalize(root)?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("{} is not a folder", root.display()),
            ));
        }
        Ok(Store { root })
    }

    /// Creates the store folder if needed, then opens it.
    pub fn create(root: &Path) -> io::Result<Store> {
        fs::create_dir_all(root)?;
        Store::open(root)
    }

    /// [`Store::create`] for a store that is its owner's alone (the global
    /// store): a folder it creates is 0700; one that exists keeps its mode.
    pub fn create_private(root: &Path) -> io::Result<Store> {
        crate::atomic::create_private_dir_all(root)?;
        Store::open(root)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path of `MEMORY.md`.
    pub fn catalog_path(&self) -> PathBuf {
        self.root.join(CATALOG_FILE)
    }

    /// Every record file and every skipped look-alike, in a stable order
    /// (sorted by path). Dotfiles, dot-folders and `MEMORY.md` are left out
    /// silently: they are not records.
    pub fn walk(&self) -> impl Iterator<Item = WalkItem> + '_ {
        self.listing()
            .filter_map(move |entry| self.walk_result(entry.as_ref()))
    }

    /// What [`Store::walk`] yields, in the same order, with the stats spread
    /// over `threads` threads: on a large store a walk's time is its stats
    /// (the listing takes file types from the directory entries).
    pub fn walk_parallel(&self, threads: usize) -> Vec<WalkItem> {
        let listed: Vec<_> = self.listing().collect();
        on_threads(&listed, threads, |entry| self.walk_result(entry.as_ref()))
            .into_iter()
            .flatten()
            .collect()
    }

    /// The directory entries a walk looks at: dot-folders are not entered.
    fn listing(&self) -> impl Iterator<Item = walkdir::Result<walkdir::DirEntry>> + use<> {
        walkdir::WalkDir::new(&self.root)
            .follow_links(false)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0 || !(e.file_type().is_dir() && is_hidden(e.file_name()))
            })
    }

    fn walk_result(&self, entry: Result<&walkdir::DirEntry, &walkdir::Error>) -> Option<WalkItem> {
        match entry {
            Ok(entry) if entry.depth() == 0 => None,
            Ok(entry) => self.walk_item(entry.path(), entry.file_type()),
            Err(err) => {
                let path = err.path().map(Path::to_path_buf).unwrap_or_default();
                let rel_path = path.strip_prefix(&self.root).unwrap_or(&path).to_path_buf();
                Some(WalkItem::Skipped(Skipped {
                    rel_path,
                    reason: SkipReason::Unreadable(err.to_string()),
                }))
            }
        }
    }

    fn walk_item(&self, path: &Path, file_type: fs::FileType) -> Option<WalkItem> {
        if file_type.is_dir() {
            return None;
        }
        let rel_path = path.strip_prefix(&self.root).ok()?.to_path_buf();
        if file_type.is_symlink() && self.is_folder_link_outside(path, &rel_path) {
            // Not followed, like every symlinked folder; one that leads out
            // of the store would be easily taken for a part of it.
            return Some(WalkItem::Skipped(Skipped {
                rel_path,
                reason: SkipReason::SymlinkOutside,
            }));
        }
        if !is_record_name(&rel_path) {
            // A hidden `.md` file is not a record (SPEC §2), but someone may
            // have meant it as one: say so rather than skip it silently.
            let hidden_markdown = is_record_name(
                &rel_path.with_file_name(
                    rel_path
                        .file_name()?
                        .to_string_lossy()
                        .trim_start_matches('.'),
                ),
            );
            return hidden_markdown.then_some(WalkItem::Skipped(Skipped {
                rel_path,
                reason: SkipReason::Hidden,
            }));
        }
        Some(match self.entry_for(&rel_path) {
            Ok(entry) => WalkItem::Record(entry),
            Err(reason) => WalkItem::Skipped(Skipped { rel_path, reason }),
        })
    }

    /// Whether `path`, a symlink with a name that is not hidden, leads to a
    /// folder outside the store.
    fn is_folder_link_outside(&self, path: &Path, rel_path: &Path) -> bool {
        let hidden = rel_path.file_name().is_some_and(is_hidden);
        !hidden
            && fs::canonicalize(path)
                .is_ok_and(|target| target.is_dir() && !target.starts_with(&self.root))
    }

    /// Stats one record path (relative to the root) the way [`Store::walk`]
    /// does. `Ok(None)` when the file does not exist (any more).
    pub fn stat(&self, rel_path: &Path) -> Result<Option<FileEntry>, SkipReason> {
        match fs::symlink_metadata(self.root.join(rel_path)) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(SkipReason::Unreadable(e.to_string())),
            Ok(_) => self.entry_for(rel_path).map(Some),
        }
    }

    fn entry_for(&self, rel_path: &Path) -> Result<FileEntry, SkipReason> {
        let path = self.root.join(rel_path);
        let unreadable = |e: io::Error| SkipReason::Unreadable(e.to_string());
        let mut meta = fs::symlink_metadata(&path).map_err(unreadable)?;
        if meta.file_type().is_symlink() {
            let target = fs::canonicalize(&path).map_err(unreadable)?;
            if !target.starts_with(&self.root) {
                return Err(SkipReason::SymlinkOutside);
            }
            meta = fs::metadata(&target).map_err(unreadable)?;
            if meta.is_dir() {
                return Err(SkipReason::SymlinkedFolder);
            }
        }
        if !meta.is_file() {
            return Err(SkipReason::NotRegularFile);
        }
        if meta.len() > MAX_RECORD_BYTES {
            return Err(SkipReason::TooLarge(meta.len()));
        }
        Ok(FileEntry {
            id: id_from_rel_path(rel_path),
            rel_path: rel_path.to_path_buf(),
            size: meta.len(),
            mtime_ns: mtime_ns(&meta),
            ctime_ns: ctime_ns(&meta),
            inode: inode(&meta),
        })
    }

    /// The record file with this id, ignoring case and Unicode normalisation
    /// (SPEC §2): the exact path first, else a walk of the file names.
    pub fn find(&self, id: &str) -> Option<FileEntry> {
        if let Ok(path) = crate::id::record_path(&self.root, id)
            && let Ok(rel) = path.strip_prefix(&self.root)
            && let Ok(Some(entry)) = self.stat(rel)
        {
            return Some(entry);
        }
        let key = crate::id::id_key(id);
        self.walk().find_map(|item| match item {
            WalkItem::Record(entry) if crate::id::id_key(&entry.id) == key => Some(entry),
            _ => None,
        })
    }

    /// Whether an absolute path (from a file watcher, say) names a record
    /// file of this store; returns it relative to the root.
    pub fn record_rel_path(&self, path: &Path) -> Option<PathBuf> {
        let rel = path.strip_prefix(&self.root).ok()?;
        if rel.components().any(|c| match c {
            Component::Normal(name) => is_hidden(name),
            _ => true,
        }) {
            return None;
        }
        is_record_name(rel).then(|| rel.to_path_buf())
    }

    /// Reads and parses a whole record. Unreadable, non-UTF-8 or NUL-holding
    /// files are a [`Skipped`], never a panic.
    pub fn read_record(&self, rel_path: &Path) -> Result<Record, Skipped> {
        let skipped = |reason| Skipped {
            rel_path: rel_path.to_path_buf(),
            reason,
        };
        let entry = self.entry_for(rel_path).map_err(skipped)?;
        self.read_entry(&entry)
    }

    /// Reads the record that a walk or [`Store::stat`] just found, without
    /// statting it again. A file changed since is read as it is now; only the
    /// size and times in `entry` may then be older than the text.
    pub fn read_entry(&self, entry: &FileEntry) -> Result<Record, Skipped> {
        let skipped = |reason| Skipped {
            rel_path: entry.rel_path.clone(),
            reason,
        };
        let bytes = self
            .read_record_bytes(&self.root.join(&entry.rel_path), entry.size)
            .map_err(skipped)?;
        let text = decode(&bytes).map_err(skipped)?;
        Ok(build_record(entry, text))
    }

    /// Reads only what [`Summary`] needs: the frontmatter, and the start of
    /// the body when the description must come from it.
    pub fn read_summary(&self, rel_path: &Path) -> Result<Summary, Skipped> {
        let skipped = |reason| Skipped {
            rel_path: rel_path.to_path_buf(),
            reason,
        };
        let path = self.root.join(rel_path);
        let mut file = self.open_record(&path).map_err(skipped)?;
        let mut bytes = vec![0; HEADER_PREFIX_BYTES];
        let filled = read_full(&mut file, &mut bytes)
            .map_err(|e| skipped(SkipReason::Unreadable(e.to_string())))?;
        bytes.truncate(filled);
        let prefix_is_whole = filled < HEADER_PREFIX_BYTES;
        // A conflict in the header (every write changes `revision`) shows in
        // the prefix; one deeper in a long body is found by whole reads.
        refuse_conflicted(&String::from_utf8_lossy(&bytes)).map_err(skipped)?;
        if prefix_is_whole {
            // The whole file is at hand: judge it as a whole read would.
            decode(&bytes).map_err(skipped)?;
        }
        let header_len = match std::str::from_utf8(&bytes) {
            Ok(text) => match frontmatter::find_header_end(text) {
                HeaderEnd::Closed { body_offset } => Some(body_offset),
                _ => None,
            },
            // A cut multi-byte character at the end is fine; anything else
            // is decided by the whole read below.
            Err(e) if e.error_len().is_none() => {
                match frontmatter::find_header_end(&String::from_utf8_lossy(
                    &bytes[..e.valid_up_to()],
                )) {
                    HeaderEnd::Closed { body_offset } => Some(body_offset),
                    _ => None,
                }
            }
            Err(_) => None,
        };
        if let Some(len) = header_len {
            let header = decode(&bytes[..len]).map_err(skipped)?;
            let parsed = frontmatter::parse(header);
            if parsed.meta.description.is_some() {
                let id = id_from_rel_path(rel_path);
                let mut meta = parsed.meta;
                // As in a whole read: the file name wins over `name`.
                meta.name = Some(id.rsplit('/').next().unwrap_or(&id).to_string());
                return Ok(Summary {
                    id,
                    rel_path: rel_path.to_path_buf(),
                    meta,
                });
            }
        }
        // The description must come from the body: read it.
        if !prefix_is_whole {
            let record = self.read_record(rel_path)?;
            return Ok(Summary {
                id: record.id,
                rel_path: record.rel_path,
                meta: record.meta,
            });
        }
        let text = decode(&bytes).map_err(skipped)?;
        let id = id_from_rel_path(rel_path);
        let record = build_record_parts(&id, rel_path, text);
        Ok(Summary {
            id,
            rel_path: rel_path.to_path_buf(),
            meta: record.meta,
        })
    }
}

/// The [`Summary`] of a record's bytes kept elsewhere than in its file (a
/// blob in git's index or in a commit), judged as a whole read of the file
/// would be: too large, not UTF-8, a NUL or conflict markers make it no
/// record.
pub fn summary_of_bytes(rel_path: &Path, bytes: &[u8]) -> Result<Summary, SkipReason> {
    let size = bytes.len() as u64;
    if size > MAX_RECORD_BYTES {
        return Err(SkipReason::TooLarge(size));
    }
    let text = decode(bytes)?;
    let id = id_from_rel_path(rel_path);
    let record = build_record_parts(&id, rel_path, text);
    Ok(Summary {
        id,
        rel_path: rel_path.to_path_buf(),
        meta: record.meta,
    })
}

/// The id of a record path: its path without the `.md` extension, with `/`
/// separators on every platform.
pub fn id_from_rel_path(rel_path: &Path) -> String {
    let stem = rel_path.with_extension("");
    let parts: Vec<String> = stem
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_none_or(|n| n.starts_with('.'))
}

fn is_record_name(rel_path: &Path) -> bool {
    let Some(name) = rel_path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let has_md_extension = rel_path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
    has_md_extension && !name.starts_with('.') && !name.eq_ignore_ascii_case(CATALOG_FILE)
}

fn mtime_ns(meta: &fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(unix)]
fn ctime_ns(meta: &fs::Metadata) -> i64 {
    use std::os::unix::fs::MetadataExt;
    meta.ctime()
        .saturating_mul(1_000_000_000)
        .saturating_add(meta.ctime_nsec())
}

#[cfg(not(unix))]
fn ctime_ns(_meta: &fs::Metadata) -> i64 {
    0
}

#[cfg(unix)]
fn inode(meta: &fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.ino()
}

#[cfg(not(unix))]
fn inode(_meta: &fs::Metadata) -> u64 {
    0
}

fn read_full(file: &mut fs::File, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

fn decode(bytes: &[u8]) -> Result<&str, SkipReason> {
    let text = std::str::from_utf8(bytes).map_err(|e| SkipReason::NotUtf8(e.valid_up_to()))?;
    if let Some(offset) = text.find('\0') {
        return Err(SkipReason::NulByte(offset));
    }
    refuse_conflicted(text)?;
    Ok(text)
}

/// A file a merge left conflict markers in holds two versions of a record,
/// neither of which is the record yet (SPEC §11).
fn refuse_conflicted(text: &str) -> Result<(), SkipReason> {
    let lines = crate::conflict::marker_lines(text);
    if lines.is_empty() {
        Ok(())
    } else {
        Err(SkipReason::Conflicted(lines))
    }
}

fn build_record(entry: &FileEntry, text: &str) -> Record {
    let mut record = build_record_parts(&entry.id, &entry.rel_path, text);
    if record.meta.created.is_none() || record.meta.updated.is_none() {
        // SPEC §2: a hand-made record without timestamps takes the file's mtime.
        let mtime = jiff::Timestamp::from_nanosecond(i128::from(entry.mtime_ns)).ok();
        record.meta.created = record.meta.created.or(mtime);
        record.meta.updated = record.meta.updated.or(mtime);
    }
    record
}

/// Applies SPEC §2's fallbacks and record-level checks to a parsed file.
fn build_record_parts(id: &str, rel_path: &Path, text: &str) -> Record {
    let parsed = frontmatter::parse(text);
    let body = text.get(parsed.body_offset..).unwrap_or("").to_string();
    let mut meta = parsed.meta;
    let mut problems = parsed.problems;
    let stem = id.rsplit('/').next().unwrap_or(id);
    if parsed.frontmatter.is_none() {
        problems.push(Problem::warning(
            Some(1),
            "no frontmatter: name, description and type are missing",
        ));
    } else {
        // A `name` other than the stem is a label (SPEC §2), Claude Code's
        // title among them; `check` judges it beside the other records'.
        if meta.name.is_none() {
            problems.push(Problem::warning(None, "no `name`; the file name is used"));
        }
        if meta.description.is_none() {
            problems.push(Problem::error(
                None,
                "no `description`; the first line of the body is used",
            ));
        }
        if meta.record_type.is_none() {
            problems.push(Problem::error(
                None,
                "no valid `type` (user, feedback, project or reference)",
            ));
        }
    }
    let body_line = 1 + text[..parsed.body_offset.min(text.len())]
        .matches('\n')
        .count();
    problems.extend(crate::invisible::problems(&meta, &body, body_line));
    let written_name = meta.name.replace(stem.to_string());
    if meta.description.is_none() {
        meta.description =
            Some(frontmatter::description_from_body(&body).unwrap_or_else(|| stem.to_string()));
    }
    Record {
        id: id.to_string(),
        rel_path: rel_path.to_path_buf(),
        meta,
        written_name,
        frontmatter: parsed.frontmatter,
        body,
        problems,
    }
}

/// `f` of each item, in order, with the items cut into `threads` runs each
/// mapped on a thread of its own (a panic in one is raised again here).
fn on_threads<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let chunk = items.len().div_ceil(threads.max(1)).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|part| {
                part.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn skipped(store: &Store) -> Vec<(String, SkipReason)> {
        store
            .walk()
            .filter_map(|item| match item {
                WalkItem::Skipped(s) => Some((s.rel_path.display().to_string(), s.reason)),
                WalkItem::Record(_) => None,
            })
            .collect()
    }

    #[test]
    fn symlinked_folder_outside_store_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret.md"), "---\nname: secret\n---\nx\n").unwrap();
        let store = Store::create(&dir.path().join("store")).unwrap();
        fs::create_dir_all(store.root().join("inside")).unwrap();
        std::os::unix::fs::symlink(&outside, store.root().join("shared")).unwrap();
        // Not reported: a folder link that stays inside, and a hidden one.
        std::os::unix::fs::symlink(store.root().join("inside"), store.root().join("alias"))
            .unwrap();
        std::os::unix::fs::symlink(&outside, store.root().join(".hidden")).unwrap();

        assert_eq!(
            skipped(&store),
            vec![("shared".to_string(), SkipReason::SymlinkOutside)]
        );
        assert_eq!(store.walk_parallel(2).len(), 1);
    }

    /// The committed `MEMORY.md` reads some records from git's blobs: they
    /// must come out as the same file read from disk would.
    #[test]
    fn summary_of_bytes_agrees_with_a_read_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::create(dir.path()).unwrap();
        let texts = [
            "---\nname: other\ndescription: From the header\ntype: user\n---\nBody.\n",
            "---\ntype: project\n---\n\nThe first line of the body.\n",
            "no frontmatter at all\n",
        ];
        for (n, text) in texts.iter().enumerate() {
            let rel = PathBuf::from(format!("sub/r{n}.md"));
            fs::create_dir_all(store.root().join("sub")).unwrap();
            fs::write(store.root().join(&rel), text).unwrap();
            assert_eq!(
                summary_of_bytes(&rel, text.as_bytes()),
                store.read_summary(&rel).map_err(|s| s.reason)
            );
        }
        let conflicted = "<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n";
        assert!(matches!(
            summary_of_bytes(Path::new("c.md"), conflicted.as_bytes()),
            Err(SkipReason::Conflicted(_))
        ));
        assert_eq!(
            summary_of_bytes(Path::new("n.md"), b"a\0b"),
            Err(SkipReason::NulByte(1))
        );
        let large = vec![b'a'; MAX_RECORD_BYTES as usize + 1];
        assert!(matches!(
            summary_of_bytes(Path::new("l.md"), &large),
            Err(SkipReason::TooLarge(_))
        ));
    }
}
