//! Atomic file replacement: a temporary file in the same folder, fsync,
//! rename over the target, fsync of the folder (SPEC §6).
//!
//! Temporary files are dotfiles ending in [`TEMP_SUFFIX`], so readers skip
//! them; a writer holding the store lock removes any left by a crash.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

/// The suffix of memctl's temporary files.
pub const TEMP_SUFFIX: &str = ".memctl-tmp";

/// Who may read a file memctl writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    /// A record or another file of the project: the mode it had, else the
    /// umask's default, in folders made as the umask says.
    Shared,
    /// memctl's own state about the user's sessions and stores (the cache
    /// folder's session, gate and stamp files): the owner's alone, 0600,
    /// in folders made 0700, whatever mode it had before.
    Private,
}

/// Writes `bytes` to `path` so that a crash at any instant leaves either the
/// old file or the new one, whole. Creates the parent folder if needed.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_as(path, bytes, Access::Shared)
}

/// [`write_file`] for a file only its owner may read (0600), its missing
/// folders created 0700 ([`create_private_dir_all`]).
pub fn write_private_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_as(path, bytes, Access::Private)
}

/// Creates `dir` and its missing parents for the owner alone (0700 on
/// Unix, as the XDG base directory specification asks of the folders it
/// names); a folder that exists keeps its mode.
pub fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Opens `path` with `options` (which should create it) as a file only its
/// owner may read or write: created 0600, and made 0600 if it had another
/// mode; its missing folders are created 0700. For memctl's own files in
/// the cache folder that are not written whole (locks, the index): what
/// they are named after says what the user works on.
pub fn open_private(path: &Path, options: &mut fs::OpenOptions) -> io::Result<File> {
    create_private_dir_all(parent_dir(path))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options.open(path)?;
    make_private(&file)?;
    Ok(file)
}

/// Makes the file at `path`, when there is one, its owner's alone (0600).
pub fn keep_private(path: &Path) -> io::Result<()> {
    match File::open(path) {
        Ok(file) => make_private(&file),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

fn make_private(file: &File) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let permissions = file.metadata()?.permissions();
        if permissions.mode() & 0o077 != 0 {
            file.set_permissions(fs::Permissions::from_mode(permissions.mode() & 0o700))?;
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

fn write_as(path: &Path, bytes: &[u8], access: Access) -> io::Result<()> {
    before_write()?;
    let dir = parent_dir(path);
    match access {
        Access::Shared => fs::create_dir_all(dir)?,
        Access::Private => create_private_dir_all(dir)?,
    }
    let mut temp = temp_file_in(dir, access)?;
    if access == Access::Shared
        && let Ok(existing) = fs::metadata(path)
    {
        temp.as_file().set_permissions(existing.permissions())?;
    }
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

/// Writes `bytes` to `path` whole, only if no file is there: `Ok(false)`
/// when one is, so an earlier file is never replaced.
pub fn write_new_file(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    before_write()?;
    let dir = parent_dir(path);
    let mut temp = temp_file_in(dir, Access::Shared)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    match temp.persist_noclobber(path) {
        Ok(_) => sync_dir(dir).map(|()| true),
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e.error),
    }
}

fn temp_file_in(dir: &Path, access: Access) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".").suffix(TEMP_SUFFIX);
    // tempfile makes private (0600) files; a record is an ordinary file of
    // the project: it keeps the mode it had, or gets the umask's default.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = match access {
            Access::Shared => 0o666,
            Access::Private => 0o600,
        };
        builder.permissions(fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = access;
    builder.tempfile_in(dir)
}

/// Removes `path` and makes the removal durable. A missing file is not an error.
pub fn remove_file(path: &Path) -> io::Result<()> {
    before_write()?;
    match fs::remove_file(path) {
        Ok(()) => sync_dir(parent_dir(path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Renames `from` to `to` (in one folder) and makes the rename durable.
pub fn rename_file(from: &Path, to: &Path) -> io::Result<()> {
    before_write()?;
    fs::rename(from, to)?;
    sync_dir(parent_dir(to))
}

/// Whether a file name is one of memctl's temporary files.
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.contains(TEMP_SUFFIX)
}

fn before_write() -> io::Result<()> {
    #[cfg(feature = "fault-injection")]
    fault::tick()?;
    Ok(())
}

/// Failures on demand, for tests of what a caller does when a write fails
/// half-way (dream's rollback): counted per thread, so that tests running
/// side by side do not trip each other. Not built without the
/// `fault-injection` feature.
#[cfg(feature = "fault-injection")]
#[doc(hidden)]
pub mod fault {
    use std::cell::Cell;
    use std::io;

    thread_local! {
        static LEFT: Cell<Option<usize>> = const { Cell::new(None) };
        static DONE: Cell<usize> = const { Cell::new(0) };
    }

    /// The next `writes` file writes or removals of this thread succeed; the
    /// one after fails, and then everything works again (so a rollback can).
    pub fn fail_after(writes: usize) {
        LEFT.set(Some(writes));
        DONE.set(0);
    }

    /// Starts counting this thread's file writes from zero, failing none.
    pub fn count() {
        LEFT.set(None);
        DONE.set(0);
    }

    /// File writes and removals made by this thread since [`fail_after`] or
    /// [`count`].
    pub fn writes() -> usize {
        DONE.get()
    }

    pub(super) fn tick() -> io::Result<()> {
        match LEFT.get() {
            Some(0) => {
                LEFT.set(None);
                Err(io::Error::other(
                    "injected fault (a test's forced write failure)",
                ))
            }
            left => {
                LEFT.set(left.map(|n| n - 1));
                DONE.set(DONE.get() + 1);
                Ok(())
            }
        }
    }
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Flushes a folder's entries (the rename) to disk. Only Unix can open a
/// folder for that; elsewhere the rename is as durable as the OS makes it.
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = (dir, File::open);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_file_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        write_file(&path, b"old").unwrap();
        write_file(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec!["a.md"]);
    }

    #[cfg(unix)]
    #[test]
    fn keeps_the_mode_of_the_file_it_replaces_and_is_not_private_when_new() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        write_file(&path, b"new").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_ne!(
            mode & 0o044,
            0,
            "a new file is readable by others unless the umask says no: {mode:o}"
        );
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_file(&path, b"newer").unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_private_file_is_the_owners_alone_even_when_it_was_not_and_its_new_folders_too() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache/sessions/s.json");
        write_private_file(&path, b"[]").unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("cache/sessions")), 0o700);
        assert_eq!(mode(&dir.path().join("cache")), 0o700);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        write_private_file(&path, b"[1]").unwrap();
        assert_eq!(mode(&path), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_or_index_opened_private_is_the_owners_alone_even_when_it_was_not() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache/x.lock");
        let open = || {
            open_private(
                &path,
                fs::OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true),
            )
            .unwrap()
        };
        drop(open());
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("cache")), 0o700);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        drop(open());
        assert_eq!(mode(&path), 0o600);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o664)).unwrap();
        keep_private(&path).unwrap();
        assert_eq!(mode(&path), 0o600);
        keep_private(&dir.path().join("missing")).unwrap();
    }

    #[test]
    fn write_new_file_never_replaces_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kept");
        assert!(write_new_file(&path, b"first").unwrap());
        assert!(!write_new_file(&path, b"second").unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"first");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
    }

    #[test]
    fn temp_names_are_recognised() {
        assert!(is_temp_name(".abc123.memctl-tmp"));
        assert!(!is_temp_name("notes.md"));
    }
}
