//! How a file inside a store is opened to be read: a record on a walk's
//! read, and a write's second look at a file it read (the snapshot and
//! its restore, edit's compare, forget's hash, the plan's old text). The
//! file is a regular file, or a symbolic link that resolves to one inside
//! the store (SPEC §2); never a pipe, never a link out of the store, even
//! one a local process put in the file's place (or in a folder's place on
//! the way to its target) after a walk looked at it; never more than a
//! bound.

use std::fs::File;
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};

use super::{MAX_RECORD_BYTES, SkipReason, Store};
use crate::untrusted;

/// What a write reads again at most: above any record (256 KiB) and any
/// `MEMORY.md` (1 MiB) memctl reads, so that only a file grown or swapped
/// since it was read is refused.
const MAX_READ_INSIDE: u64 = 1 << 20;

impl Store {
    /// Opens a record (or another file inside the store) for reading.
    pub(super) fn open_record(&self, path: &Path) -> Result<File, SkipReason> {
        let unreadable = |e: io::Error| SkipReason::Unreadable(e.to_string());
        match untrusted::open_regular(path) {
            Err(e) if untrusted::is_link(&e) => {
                let target = std::fs::canonicalize(path).map_err(unreadable)?;
                if !target.starts_with(self.root()) {
                    return Err(SkipReason::SymlinkOutside);
                }
                let file = untrusted::open_regular(&target).map_err(unreadable)?;
                // A folder on the way to the target swapped for a link
                // between the two steps above is followed by the open:
                // what was opened is asked where it is.
                match opened_path(&file) {
                    Some(opened) if !opened.starts_with(self.root()) => {
                        Err(SkipReason::SymlinkOutside)
                    }
                    _ => Ok(file),
                }
            }
            Err(e) if untrusted::is_not_regular(&e) => Err(SkipReason::NotRegularFile),
            opened => opened.map_err(unreadable),
        }
    }

    /// A record's bytes, about `expected` of them (the walk's stat), at
    /// most [`MAX_RECORD_BYTES`]. Sizing the buffer from the stat makes it
    /// two reads, not the eight that growing one from empty costs
    /// (measured on 1 KB records).
    pub(super) fn read_record_bytes(
        &self,
        path: &Path,
        expected: u64,
    ) -> Result<Vec<u8>, SkipReason> {
        let file = self.open_record(path)?;
        read_capped(file, expected, MAX_RECORD_BYTES)
            .map_err(|e| SkipReason::Unreadable(e.to_string()))
    }

    /// The whole of a file inside the store, opened as a record is, for a
    /// write's second look at a file it read: at most 1 MiB.
    /// A file that is not there is `NotFound`, as `fs::read` says it.
    pub fn read_inside(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::symlink_metadata(path)?;
        let file = self
            .open_record(path)
            .map_err(|reason| io::Error::other(format!("{}: {reason}", path.display())))?;
        read_capped(file, 0, MAX_READ_INSIDE)
    }
}

fn read_capped(file: File, expected: u64, cap: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(expected.min(cap) as usize + 1);
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::other(format!(
            "grew past {cap} bytes while being read"
        )));
    }
    Ok(bytes)
}

/// Where an open file is, as the kernel says (Linux); `None` elsewhere or
/// when it cannot say.
#[cfg(target_os = "linux")]
fn opened_path(file: &File) -> Option<PathBuf> {
    use std::os::fd::AsRawFd as _;
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

#[cfg(not(target_os = "linux"))]
fn opened_path(_file: &File) -> Option<PathBuf> {
    None
}
