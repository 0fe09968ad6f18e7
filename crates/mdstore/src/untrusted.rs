//! Files and folders a cloned repository controls, opened as such (the
//! developers' guide, rule 2; issue 25): a store folder found in a project
//! and the files memctl reads from it by name (`.memctl.toml`, a journal)
//! are never followed through a symbolic link out of the store, read only
//! as regular files of bounded size, and never waited on (a pipe).
//!
//! The global store and a folder the user names (`--store DIR`,
//! `MEMCTL_STORE`) are the user's choice and are not vetted here: a person
//! may keep their store behind a symbolic link on purpose. A `.memory`
//! folder memctl finds in a repository is not a choice anyone made.

use std::fs::{self, File};
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};

/// Why a file or folder a repository controls is not used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("a symbolic link{}; memctl does not follow it", to_target(.0))]
    Link(Option<PathBuf>),
    #[error("a folder, not a file")]
    Folder,
    #[error("a file, not a folder")]
    NotAFolder,
    #[error("a pipe, socket or device, not a regular file")]
    Special,
    #[error("{0} bytes, more than memctl reads in such a file ({1})")]
    TooLarge(u64, u64),
    #[error("replaced while it was being opened")]
    Replaced,
    #[error("it resolves to {}, outside {}", .0.display(), .1.display())]
    Outside(PathBuf, PathBuf),
}

fn to_target(target: &Option<PathBuf>) -> String {
    target
        .as_ref()
        .map(|t| format!(" (to {})", t.display()))
        .unwrap_or_default()
}

/// Why a file could not be read: refused, or an I/O error.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Refused(Refusal),
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// The bytes of the file at `path`, if there is one: `Ok(None)` when there
/// is none. It must be a regular file (not a symbolic link, a folder, a
/// pipe or a device) of at most `max` bytes. The file is looked at without
/// following a link, then opened and looked at again: a file swapped in
/// between (a link put in its place) is refused, not read. A pipe is never
/// opened, so nothing waits on one.
pub fn read(path: &Path, max: u64) -> Result<Option<Vec<u8>>, ReadError> {
    let seen = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    refuse_unless_regular(path, &seen)?;
    if seen.len() > max {
        return Err(ReadError::Refused(Refusal::TooLarge(seen.len(), max)));
    }
    let file = match open_regular(path) {
        Ok(file) => file,
        Err(e) if is_not_regular(&e) => return Err(ReadError::Refused(Refusal::Replaced)),
        Err(e) => return Err(e.into()),
    };
    if !same_file(&seen, &file.metadata()?) {
        return Err(ReadError::Refused(Refusal::Replaced));
    }
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::Refused(Refusal::TooLarge(
            bytes.len() as u64,
            max,
        )));
    }
    Ok(Some(bytes))
}

/// Opens `path` for reading only if it is a regular file, without
/// following a symbolic link in its last component and without waiting on
/// a pipe: a look beforehand (`lstat`) leaves a window in which a local
/// process can put a link or a FIFO in the file's place, and a plain open
/// would follow the one and block on the other. Here the open itself
/// refuses a link (`O_NOFOLLOW`) and returns at once on a FIFO
/// (`O_NONBLOCK`, which changes nothing for a regular file), and the opened
/// file is looked at before a byte is read. Anything but a regular file is
/// an error that [`is_not_regular`] recognises.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = open_no_follow(path).map_err(|e| {
        if followed_a_link(&e) {
            not_regular(LINK)
        } else {
            e
        }
    })?;
    if !file.metadata()?.is_file() {
        return Err(not_regular("not a regular file"));
    }
    Ok(file)
}

/// Whether an error of [`open_regular`] says the path was not a regular file.
pub fn is_not_regular(error: &io::Error) -> bool {
    error
        .get_ref()
        .is_some_and(|inner| inner.is::<NotRegular>())
}

/// Whether an error of [`open_regular`] says the path was a symbolic link.
pub fn is_link(error: &io::Error) -> bool {
    error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<NotRegular>())
        .is_some_and(|not_regular| not_regular.0 == LINK)
}

const LINK: &str = "a symbolic link";

#[derive(Debug, thiserror::Error)]
#[error("{0}; memctl reads only regular files here")]
struct NotRegular(&'static str);

fn not_regular(what: &'static str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, NotRegular(what))
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> io::Result<File> {
    if fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(not_regular(LINK));
    }
    File::open(path)
}

/// `O_NOFOLLOW` on a link fails with `ELOOP` on Linux and the BSDs
/// (`EMLINK` on some older BSDs).
#[cfg(unix)]
fn followed_a_link(error: &io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::ELOOP) | Some(libc::EMLINK))
}

#[cfg(not(unix))]
fn followed_a_link(_error: &io::Error) -> bool {
    false
}

fn refuse_unless_regular(path: &Path, meta: &fs::Metadata) -> Result<(), ReadError> {
    let kind = meta.file_type();
    let refusal = if kind.is_symlink() {
        Refusal::Link(fs::read_link(path).ok())
    } else if kind.is_dir() {
        Refusal::Folder
    } else if !kind.is_file() {
        Refusal::Special
    } else {
        return Ok(());
    };
    Err(ReadError::Refused(refusal))
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

/// Vets a store folder memctl found rather than was given: `name` (such
/// as `.memory`) inside `holder`, the folder it was found in. It must be a
/// real folder, not a symbolic link (a repository can commit `.memory ->
/// ../notes`, and git keeps the link on clone), and it must resolve inside
/// `holder`. Returns its path.
pub fn vet_found_folder(holder: &Path, name: &str) -> Result<PathBuf, Refusal> {
    let dir = holder.join(name);
    let meta = fs::symlink_metadata(&dir).map_err(|_| Refusal::NotAFolder)?;
    if meta.file_type().is_symlink() {
        return Err(Refusal::Link(fs::read_link(&dir).ok()));
    }
    if !meta.is_dir() {
        return Err(Refusal::NotAFolder);
    }
    let (Ok(resolved), Ok(resolved_holder)) = (fs::canonicalize(&dir), fs::canonicalize(holder))
    else {
        return Err(Refusal::NotAFolder);
    };
    if resolved.parent() != Some(resolved_holder.as_path()) {
        return Err(Refusal::Outside(resolved, resolved_holder));
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_link_a_pipe_a_folder_and_a_huge_file_are_refused_a_regular_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("netrc");
        fs::write(&secret, "machine x login u password hunter2\n").unwrap();
        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        let refused = |path: &Path| match read(path, 1024) {
            Err(ReadError::Refused(refusal)) => refusal,
            other => panic!("{}: {other:?}", path.display()),
        };
        assert_eq!(refused(&link), Refusal::Link(Some(secret.clone())));
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.toml")).unwrap();
        assert!(matches!(
            refused(&dir.path().join("zero.toml")),
            Refusal::Link(_)
        ));
        let fifo = dir.path().join("fifo.toml");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        assert_eq!(refused(&fifo), Refusal::Special);
        assert_eq!(refused(dir.path()), Refusal::Folder);
        let big = dir.path().join("big.toml");
        fs::write(&big, vec![b'a'; 1025]).unwrap();
        assert_eq!(refused(&big), Refusal::TooLarge(1025, 1024));
        let good = dir.path().join("good.toml");
        fs::write(&good, "[git]\n").unwrap();
        assert_eq!(read(&good, 1024).unwrap().unwrap(), b"[git]\n");
        assert!(read(&dir.path().join("missing"), 1024).unwrap().is_none());
    }

    /// The window between a look and an open: the open itself must refuse a
    /// link and return at once on a pipe, whatever a look before it saw.
    #[cfg(unix)]
    #[test]
    fn the_open_itself_neither_follows_a_link_nor_waits_on_a_pipe() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        fs::write(&secret, "password hunter2\n").unwrap();
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        let fifo = dir.path().join("fifo.md");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let (sent, got) = std::sync::mpsc::channel();
        let paths = [link, fifo, dir.path().to_path_buf()];
        std::thread::spawn(move || {
            for path in paths {
                sent.send(open_regular(&path).map(|_| ())).unwrap();
            }
        });
        for what in ["a link", "a pipe", "a folder"] {
            let opened = got
                .recv_timeout(std::time::Duration::from_secs(10))
                .unwrap_or_else(|_| panic!("opening {what} waited"));
            let error = opened.expect_err(what);
            assert!(is_not_regular(&error), "{what}: {error}");
        }
        let mut text = String::new();
        open_regular(&secret)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "password hunter2\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_found_store_folder_that_is_a_link_is_refused_a_real_one_is_vetted() {
        let project = tempfile::tempdir().unwrap();
        let notes = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(notes.path(), project.path().join(".memory")).unwrap();
        assert_eq!(
            vet_found_folder(project.path(), ".memory"),
            Err(Refusal::Link(Some(notes.path().to_path_buf())))
        );
        fs::remove_file(project.path().join(".memory")).unwrap();
        std::os::unix::fs::symlink("../nowhere", project.path().join(".memory")).unwrap();
        assert!(matches!(
            vet_found_folder(project.path(), ".memory"),
            Err(Refusal::Link(_))
        ));
        fs::remove_file(project.path().join(".memory")).unwrap();
        fs::write(project.path().join(".memory"), "").unwrap();
        assert_eq!(
            vet_found_folder(project.path(), ".memory"),
            Err(Refusal::NotAFolder)
        );
        fs::remove_file(project.path().join(".memory")).unwrap();
        fs::create_dir(project.path().join(".memory")).unwrap();
        assert_eq!(
            vet_found_folder(project.path(), ".memory").unwrap(),
            project.path().join(".memory")
        );
    }
}
