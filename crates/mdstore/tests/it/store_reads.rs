//! The committed sample as a store: every record reads whole and header
//! only, with a name and a description, and nothing panics.

use std::path::Path;

use mdstore::{Store, WalkItem};
use pretty_assertions::assert_eq;

use crate::wild;

/// Copies the sample's record folders (not its README) into a new store.
fn sample_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    for file in wild::record_files(&wild::sample_root()) {
        let path = dir.path().join(&file.rel_path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, &file.text).expect("write");
    }
    let store = Store::open(dir.path()).expect("store");
    (dir, store)
}

#[test]
fn every_sample_record_reads_with_a_name_and_description() {
    let (_dir, store) = sample_store();
    let items: Vec<WalkItem> = store.walk().collect();
    // The four dotfiles of the sample are not records (SPEC §2), but they are
    // reported rather than skipped silently.
    let skipped: Vec<_> = items
        .iter()
        .filter_map(|i| match i {
            WalkItem::Skipped(s) => Some(&s.reason),
            WalkItem::Record(_) => None,
        })
        .collect();
    assert_eq!(skipped, vec![&mdstore::SkipReason::Hidden; 4]);
    let records: Vec<_> = items
        .into_iter()
        .filter_map(|item| match item {
            WalkItem::Record(entry) => Some(entry),
            WalkItem::Skipped(_) => None,
        })
        .collect();
    assert_eq!(records.len(), 116);
    let mut lenient = 0;
    for entry in &records {
        let record = store.read_record(&entry.rel_path).expect("read");
        let stem = Path::new(&entry.id)
            .file_name()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        assert_eq!(
            record.meta.name.as_deref(),
            Some(stem.as_str()),
            "{}",
            entry.id
        );
        let description = record.meta.description.clone().unwrap_or_default();
        assert!(
            !description.is_empty() && !description.contains('\n'),
            "{}",
            entry.id
        );
        let on_disk = std::fs::read_to_string(store.root().join(&entry.rel_path)).expect("read");
        assert_eq!(
            &on_disk[on_disk.len() - record.body.len()..],
            record.body,
            "{}",
            entry.id
        );
        if record.frontmatter.is_some() && !record.is_strict() {
            lenient += 1;
            assert!(
                record.problems.iter().any(|p| p.line.is_some()),
                "{}",
                entry.id
            );
        }
        let summary = store.read_summary(&entry.rel_path).expect("summary");
        assert_eq!(
            summary.meta.description, record.meta.description,
            "{}",
            entry.id
        );
        assert_eq!(
            summary.meta.record_type, record.meta.record_type,
            "{}",
            entry.id
        );
    }
    assert_eq!(lenient, 34);
}

#[test]
fn a_parallel_walk_yields_what_a_walk_does() {
    let (dir, store) = sample_store();
    // Nested folders, a dot-folder and an unreadable look-alike too.
    std::fs::create_dir_all(dir.path().join("team/deep")).expect("mkdir");
    std::fs::write(dir.path().join("team/deep/a.md"), "# A\n").expect("write");
    std::fs::create_dir_all(dir.path().join(".hidden")).expect("mkdir");
    std::fs::write(dir.path().join(".hidden/b.md"), "# B\n").expect("write");
    std::fs::write(dir.path().join("bad.md"), b"\xff\xfe").expect("write");
    let walked: Vec<WalkItem> = store.walk().collect();
    for threads in [0, 1, 2, 3, 7, 1000] {
        assert_eq!(store.walk_parallel(threads), walked, "{threads} threads");
    }
}

/// A record the walk saw as a file and a local process then replaced with a
/// pipe or a link to a file outside the store: the read refuses it at once
/// (it neither waits on the pipe nor copies the outside file in).
#[cfg(unix)]
#[test]
fn a_record_swapped_for_a_pipe_or_a_link_after_the_walk_is_skipped_not_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let outside = tempfile::tempdir().expect("tempdir");
    let secret = outside.path().join("netrc");
    std::fs::write(
        &secret,
        "---\nname: x\ndescription: y\ntype: user\n---\nhunter2\n",
    )
    .expect("write");
    for name in ["piped.md", "linked.md"] {
        std::fs::write(
            dir.path().join(name),
            "---\nname: a\ndescription: b\ntype: user\n---\nbody\n",
        )
        .expect("write");
    }
    let store = Store::open(dir.path()).expect("store");
    let entries: Vec<_> = store
        .walk()
        .filter_map(|item| match item {
            WalkItem::Record(entry) => Some(entry),
            WalkItem::Skipped(_) => None,
        })
        .collect();
    assert_eq!(entries.len(), 2);
    let piped = dir.path().join("piped.md");
    std::fs::remove_file(&piped).expect("rm");
    let made = std::process::Command::new("mkfifo").arg(&piped).status();
    assert!(made.expect("mkfifo").success());
    let linked = dir.path().join("linked.md");
    std::fs::remove_file(&linked).expect("rm");
    std::os::unix::fs::symlink(&secret, &linked).expect("symlink");
    let (sent, got) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for entry in &entries {
            let whole = store.read_entry(entry).map(|_| ());
            let header = store.read_summary(&entry.rel_path).map(|_| ());
            sent.send((entry.rel_path.clone(), whole, header))
                .expect("send");
        }
    });
    for _ in 0..2 {
        let (rel, whole, header) = got
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("a read waited on a pipe");
        assert!(whole.is_err(), "{} read whole", rel.display());
        assert!(header.is_err(), "{} read its header", rel.display());
    }
}
