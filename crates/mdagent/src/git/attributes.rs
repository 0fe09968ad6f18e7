//! The `.gitattributes` that `memctl init` writes in a store, so that two
//! branches' `MEMORY.md` merge without conflict markers (docs/GIT.md).

use std::fs;
use std::io;
use std::path::Path;

use crate::face::Tell;

/// The attributes file, inside the store so that it travels with it and
/// applies to nothing else in the project.
pub const FILE: &str = ".gitattributes";

/// git's built-in union driver keeps both sides' lines where they differ
/// instead of writing conflict markers; it needs no configuration in each
/// clone (a custom driver would, and a clone without it gets markers). The
/// merged file may list a record twice or one that is gone: memctl
/// regenerates it from the merged records on the next command, and `check`
/// (the pre-commit hook) reports it until then.
pub const CATALOG_RULE: &str = "MEMORY.md merge=union";

const HEADER: &str = "# Written by memctl init (docs/GIT.md): MEMORY.md is generated from the records,\n# so a merge keeps both sides' lines and the next memctl command regenerates it.\n";

/// [`ensure`] for a store inside a git repository (a store outside one has
/// nothing to merge; `memctl init` again adds it after `git init`), saying
/// what it did.
pub fn ensure_in_repo(ui: &dyn Tell, store_root: &Path) {
    if crate::freshen::git_dir_of(store_root).is_none() {
        return;
    }
    match ensure(store_root) {
        Ok(true) => ui.note(&format!(
            "Wrote {}: a merge keeps both branches' MEMORY.md lines, and the next memctl command regenerates it (docs/GIT.md).",
            store_root.join(FILE).display()
        )),
        Ok(false) => {}
        Err(e) => ui.warn(&format!(
            "{e}; MEMORY.md may need resolving by hand after a merge"
        )),
    }
}

/// Adds [`CATALOG_RULE`] to the store's `.gitattributes`, keeping whatever
/// else is there; `Ok(false)` when it was already there.
pub fn ensure(store_root: &Path) -> io::Result<bool> {
    let path = store_root.join(FILE);
    let existing = match fs::symlink_metadata(&path) {
        Ok(meta) if !meta.is_file() => {
            return Err(io::Error::other(format!(
                "{} is not a regular file; add the line `{CATALOG_RULE}` to it by hand",
                path.display()
            )));
        }
        Ok(_) => fs::read_to_string(&path)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    if existing.lines().any(|line| line.trim() == CATALOG_RULE) {
        return Ok(false);
    }
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    if text.is_empty() {
        text.push_str(HEADER);
    }
    text.push_str(CATALOG_RULE);
    text.push('\n');
    mdstore::atomic::write_file(&path, text.as_bytes())?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_keeps_existing_gitattributes_lines_and_adds_the_rule_once() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(FILE), "*.png binary").unwrap();
        assert!(ensure(dir.path()).unwrap());
        assert!(!ensure(dir.path()).unwrap());
        assert_eq!(
            fs::read_to_string(dir.path().join(FILE)).unwrap(),
            format!("*.png binary\n{CATALOG_RULE}\n")
        );
    }
}
