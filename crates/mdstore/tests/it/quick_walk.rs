//! `Store::walk_quick` against `Store::walk` (the oracle, built on walkdir)
//! on odd trees: both must find the same records with the same stats and
//! the same skipped look-alikes, whatever the thread count.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use mdstore::{Met, RecordStat, Store, WalkItem};

/// What a walk found: records by path with their stats, and every other item.
#[derive(Debug, PartialEq)]
struct Found {
    records: BTreeMap<String, RecordStat>,
    others: Vec<WalkItem>,
}

fn by_walk(store: &Store) -> Found {
    let mut found = Found {
        records: BTreeMap::new(),
        others: Vec::new(),
    };
    for item in store.walk() {
        match item {
            WalkItem::Record(entry) => {
                let key = entry.rel_path.to_string_lossy().into_owned();
                found.records.insert(key, RecordStat::of(&entry));
            }
            other => found.others.push(other),
        }
    }
    found
        .others
        .sort_by_key(|item| rel_path(item).to_path_buf());
    found
}

fn by_quick_walk(store: &Store, threads: usize) -> Found {
    let mut found = Found {
        records: BTreeMap::new(),
        others: Vec::new(),
    };
    store.walk_quick(threads).for_each(|met| match met {
        Met::Record(rel, stat) => {
            assert!(
                found.records.insert(rel.to_string(), stat).is_none(),
                "{rel} met twice"
            );
        }
        Met::Item(WalkItem::Record(entry)) => {
            let key = entry.rel_path.to_string_lossy().into_owned();
            found.records.insert(key, RecordStat::of(&entry));
        }
        Met::Item(other) => found.others.push(other),
    });
    found
        .others
        .sort_by_key(|item| rel_path(item).to_path_buf());
    found
}

fn rel_path(item: &WalkItem) -> &Path {
    match item {
        WalkItem::Record(entry) => &entry.rel_path,
        WalkItem::Skipped(skip) => &skip.rel_path,
    }
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    fs::write(path, text).expect("write");
}

fn odd_tree() -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let outside = tempfile::tempdir().expect("tempdir");
    let root = dir.path().to_path_buf();
    let record = "---\nname: r\ndescription: d\ntype: user\n---\nbody\n";
    for i in 0..40 {
        write(&root, &format!("r{i:02}.md"), record);
    }
    write(&root, "UPPER.MD", record);
    write(&root, "MEMORY.md", "# catalogue\n");
    write(&root, "notes.txt", "not markdown\n");
    write(&root, "team/a.md", record);
    write(&root, "team/deep/deeper/b.md", record);
    write(&root, "team/deep/MEMORY.md", record);
    write(&root, ".hidden/c.md", record);
    write(&root, ".dotfile.md", record);
    write(&root, "team/.also-hidden.md", record);
    write(&root, "empty.md", "");
    fs::write(root.join("too-large.md"), vec![b'a'; 300 * 1024]).expect("write");
    fs::write(root.join("bad-utf8.md"), b"\xff\xfe").expect("write");
    fs::create_dir_all(root.join("folder.md")).expect("mkdir");
    write(outside.path(), "out.md", record);
    write(outside.path(), "sub/x.md", record);
    let link = |target: &Path, name: &str| {
        std::os::unix::fs::symlink(target, root.join(name)).expect("symlink");
    };
    link(&root.join("r00.md"), "link-inside.md");
    link(&outside.path().join("out.md"), "link-outside.md");
    link(&outside.path().join("sub"), "linked-folder");
    link(&outside.path().join("sub"), "linked-folder.md");
    link(&root.join("team"), "team-link.md");
    link(&root.join("nowhere.md"), "dangling.md");
    (dir, outside, root)
}

#[test]
fn the_quick_walk_finds_what_the_walk_finds_on_odd_trees() {
    let (_dir, _outside, root) = odd_tree();
    let store = Store::open(&root).expect("open");
    let oracle = by_walk(&store);
    assert!(oracle.records.contains_key("team/deep/deeper/b.md"));
    assert!(oracle.records.contains_key("UPPER.MD"));
    assert!(!oracle.others.is_empty(), "the tree has look-alikes");
    for threads in [0, 1, 2, 3, 64] {
        assert_eq!(by_quick_walk(&store, threads), oracle, "{threads} threads");
    }
}

#[test]
fn the_quick_walk_finds_what_the_walk_finds_in_an_empty_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    assert_eq!(by_quick_walk(&store, 2), by_walk(&store));
}

/// The quick walk held every listed folder open until its stats were taken:
/// a store of more folders than the process may open files lost their
/// records to "unreadable". It now lists and stats in batches. The walk runs
/// again in a child (this test binary) whose limit of open files, 128, is
/// below the store's 300 folders.
#[test]
fn the_quick_walk_held_one_open_folder_per_folder_it_now_walks_them_in_batches() {
    const CHILD: &str = "MDSTORE_QUICK_WALK_CHILD_STORE";
    const NAME: &str =
        "quick_walk::the_quick_walk_held_one_open_folder_per_folder_it_now_walks_them_in_batches";
    if let Some(root) = std::env::var_os(CHILD) {
        let store = Store::open(Path::new(&root)).expect("open");
        let oracle = by_walk(&store);
        assert_eq!(oracle.records.len(), 300, "{:?}", oracle.others);
        for threads in [1, 2] {
            assert_eq!(by_quick_walk(&store, threads), oracle, "{threads} threads");
        }
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..300 {
        let text = "---\nname: x\ndescription: y\ntype: project\n---\nz\n";
        write(dir.path(), &format!("f{i:03}/r{i:03}.md"), text);
    }
    let exe = std::env::current_exe().expect("the test binary");
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -n 128 && exec \"$0\" --exact \"$1\" --test-threads 1")
        .arg(&exe)
        .arg(NAME)
        .env(CHILD, dir.path())
        .status()
        .expect("sh");
    assert!(status.success(), "the walk under 128 open files: {status}");
}
