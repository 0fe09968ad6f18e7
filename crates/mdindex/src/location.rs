//! Where a store's index and its companion lock files live in the cache
//! folder its caller names (SPEC §4).

use std::path::{Path, PathBuf};

use mdstore::Store;

/// Hex digits of the store-path hash in an index file name: 64 bits, so that
/// two stores on one machine never share an index in practice.
const NAME_HASH_HEX: usize = 16;

/// The paths of one store's index and of the files beside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexPaths {
    /// The SQLite file.
    pub db: PathBuf,
    /// Held (OS lock) by a running watcher for its whole life.
    pub watch_lock: PathBuf,
    /// Held by a running watcher once its start-up sync is done.
    pub ready_lock: PathBuf,
    /// Held by a process rebuilding the index, so that two do not race.
    pub build_lock: PathBuf,
}

impl IndexPaths {
    /// The index of `store` in `cache_dir`: `<hash of the canonical store path>.sqlite`.
    pub fn new(cache_dir: &Path, store: &Store) -> IndexPaths {
        IndexPaths::of_root(cache_dir, store.root())
    }

    /// The same paths for the store that is, or will be, at `root` (a
    /// folder that a confirmed write creates keeps what waits for it).
    pub fn of_root(cache_dir: &Path, root: &Path) -> IndexPaths {
        let hash = blake3::hash(root.as_os_str().as_encoded_bytes());
        let stem = hash.to_hex()[..NAME_HASH_HEX].to_string();
        let db = cache_dir.join(format!("{stem}.sqlite"));
        IndexPaths {
            watch_lock: sibling(&db, ".watch"),
            ready_lock: sibling(&db, ".ready"),
            build_lock: sibling(&db, ".build"),
            db,
        }
    }

    /// SQLite's write-ahead log and shared-memory files of the index.
    pub fn wal_and_shm(&self) -> [PathBuf; 2] {
        [sibling(&self.db, "-wal"), sibling(&self.db, "-shm")]
    }
}

/// Which file a path names (device and inode), to tell when an index file
/// has been deleted or replaced under an open connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FileIdentity {
    device: u64,
    inode: u64,
}

impl FileIdentity {
    pub(crate) fn of(path: &Path) -> Option<FileIdentity> {
        std::fs::metadata(path)
            .ok()
            .map(|m| FileIdentity::from_metadata(&m))
    }

    /// The identity of a file already open.
    pub(crate) fn of_open(file: &std::fs::File) -> Option<FileIdentity> {
        file.metadata()
            .ok()
            .map(|m| FileIdentity::from_metadata(&m))
    }

    #[cfg(unix)]
    fn from_metadata(meta: &std::fs::Metadata) -> FileIdentity {
        use std::os::unix::fs::MetadataExt;
        FileIdentity {
            device: meta.dev(),
            inode: meta.ino(),
        }
    }

    /// Without inode numbers only a deleted file is noticed; a rebuild that
    /// replaces the file leaves a whole-store mark in it, so the next search
    /// compares everything anyway.
    #[cfg(not(unix))]
    fn from_metadata(_meta: &std::fs::Metadata) -> FileIdentity {
        FileIdentity {
            device: 0,
            inode: 0,
        }
    }
}

/// `path` with `suffix` appended to its file name.
pub(crate) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_store_has_its_own_index_file() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let cache = Path::new("/cache");
        let pa = IndexPaths::new(cache, &Store::open(a.path()).unwrap());
        let pb = IndexPaths::new(cache, &Store::open(b.path()).unwrap());
        assert_ne!(pa.db, pb.db);
        assert_eq!(pa.db.parent(), Some(cache));
        assert_eq!(pa.db.extension().and_then(|e| e.to_str()), Some("sqlite"));
        assert_eq!(pa.watch_lock, sibling(&pa.db, ".watch"));
        // The same store named two ways gets the same index.
        let dotted = a.path().join(".");
        assert_eq!(
            IndexPaths::new(cache, &Store::open(&dotted).unwrap()).db,
            pa.db
        );
    }
}
