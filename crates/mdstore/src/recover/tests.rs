//! Issue 25 item 3: what a writer killed between two writes leaves is
//! finished or undone by the next transaction, and said.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::*;
use crate::txn::{ChangeSink, Transaction};
use crate::write::tests::{NOW, candidate, options};

const WAIT: Duration = Duration::from_millis(200);

fn new_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    (dir, store)
}

fn begin(store: &Store) -> Transaction<'_> {
    Transaction::begin(store, WAIT, StoreView::load).unwrap()
}

fn remember(store: &Store, name: &str) {
    let mut txn = begin(store);
    txn.write(
        &candidate(name, &format!("about {name}"), "body"),
        &options(),
        None,
    )
    .unwrap();
    txn.commit(&mut ());
}

#[derive(Default)]
struct Paths(Vec<PathBuf>);

impl ChangeSink for Paths {
    fn changed(&mut self, rel_paths: &[PathBuf]) {
        self.0.extend_from_slice(rel_paths);
    }
}

/// The tombstone `forget` would write for `name` now, as read from it.
fn tombstone_of(store: &Store, name: &str) -> Tombstone {
    let record = store.read_record(Path::new(&format!("{name}.md"))).unwrap();
    Tombstone {
        id: name.to_string(),
        forgotten_at: NOW.parse().unwrap(),
        reason: Some("killed".to_string()),
        content_hash: content_hash(
            record.meta.description.as_deref().unwrap_or(""),
            &record.body,
        ),
    }
}

fn set_mtime(path: &Path, time: SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

fn listed(store: &Store) -> Vec<String> {
    StoreView::load(store)
        .summaries
        .into_iter()
        .map(|s| s.id)
        .collect()
}

#[test]
fn a_forget_killed_before_it_removed_the_record_is_undone() {
    let (dir, store) = new_store();
    remember(&store, "keep");
    let pending = tombstone::write_pending(dir.path(), &tombstone_of(&store, "keep")).unwrap();
    assert!(interrupted(dir.path()));
    let txn = begin(&store);
    assert_eq!(txn.recovered().notes.len(), 1, "{:?}", txn.recovered());
    assert!(txn.recovered().notes[0].contains("the record stays"));
    assert!(txn.view().tombstones.is_empty());
    txn.commit(&mut ());
    assert!(!pending.path.exists() && !pending.target.exists());
    assert_eq!(listed(&store), ["keep"]);
    assert!(!interrupted(dir.path()));
}

#[test]
fn a_forget_killed_after_it_removed_the_record_is_finished() {
    let (dir, store) = new_store();
    remember(&store, "gone");
    let pending = tombstone::write_pending(dir.path(), &tombstone_of(&store, "gone")).unwrap();
    fs::remove_file(dir.path().join("gone.md")).unwrap();
    let mut txn = begin(&store);
    assert!(txn.recovered().notes[0].contains("put in place"));
    // The forgotten fact is refused at once.
    let step = txn
        .write(&candidate("gone", "about gone", "body"), &options(), None)
        .unwrap();
    assert!(
        matches!(step.outcome, crate::txn::Outcome::Refused(_)),
        "{step:?}"
    );
    let mut sink = Paths::default();
    txn.commit(&mut sink);
    assert!(!pending.path.exists() && pending.target.exists());
    let catalog = fs::read_to_string(store.catalog_path()).unwrap();
    assert!(!catalog.contains("gone"), "{catalog}");
}

/// memctl before this fix wrote the tombstone in place, then removed the
/// record: a kill between the two left the record beside its own
/// tombstone, searched and recalled, and `check` blamed a merge.
#[test]
fn a_record_left_beside_its_own_tombstone_by_a_killed_forget_was_never_removed() {
    let (dir, store) = new_store();
    remember(&store, "half");
    remember(&store, "back");
    let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
    for name in ["half", "back"] {
        set_mtime(&dir.path().join(format!("{name}.md")), an_hour_ago);
        tombstone::write(dir.path(), &tombstone_of(&store, name)).unwrap();
    }
    // `back` was brought back after the forget (a checkout): newer than
    // its tombstone, so it is the user's, not a half-done forget.
    set_mtime(
        &dir.path().join("back.md"),
        SystemTime::now() + Duration::from_secs(5),
    );
    let half_rel = Path::new("half.md");
    let tomb = tombstone_of(&store, "half");
    assert_eq!(beside(&store, half_rel, &tomb), Beside::Unfinished);
    assert_eq!(
        beside(&store, Path::new("back.md"), &tombstone_of(&store, "back")),
        Beside::BroughtBack
    );
    let txn = begin(&store);
    assert_eq!(txn.recovered().changed, [PathBuf::from("half.md")]);
    assert!(txn.recovered().notes[0].contains("the forget was finished"));
    let mut sink = Paths::default();
    txn.commit(&mut sink);
    assert_eq!(sink.0, [PathBuf::from("half.md")], "the index is told");
    assert_eq!(listed(&store), ["back"]);
}

#[test]
fn a_change_of_many_files_killed_half_way_is_undone_from_its_journal() {
    let (dir, store) = new_store();
    remember(&store, "a");
    remember(&store, "b");
    let before: Vec<(PathBuf, Vec<u8>)> = ["a.md", "b.md", "MEMORY.md"]
        .iter()
        .map(|p| (PathBuf::from(p), fs::read(dir.path().join(p)).unwrap()))
        .collect();
    {
        let txn = begin(&store);
        let files: Vec<PathBuf> = ["a.md", "b.md", "c.md", "MEMORY.md"]
            .iter()
            .map(PathBuf::from)
            .collect();
        let snapshot = txn
            .snapshot(&files, &[PathBuf::from(tombstone::TOMBSTONE_DIR)])
            .unwrap();
        txn.begin_journal(&snapshot).unwrap();
        // Half of a dream: a record written, one forgotten; then killed
        // (the lock goes with the process; the journal stays).
        fs::write(
            dir.path().join("c.md"),
            "---\nname: c\ndescription: c\ntype: project\n---\nmerged\n",
        )
        .unwrap();
        tombstone::write(dir.path(), &tombstone_of(&store, "a")).unwrap();
        fs::remove_file(dir.path().join("a.md")).unwrap();
        drop(txn);
    }
    assert!(interrupted(dir.path()));
    let txn = begin(&store);
    assert!(
        txn.recovered().notes[0].contains("put back"),
        "{:?}",
        txn.recovered()
    );
    txn.commit(&mut ());
    for (path, bytes) in before {
        assert_eq!(
            fs::read(dir.path().join(&path)).unwrap(),
            bytes,
            "{}",
            path.display()
        );
    }
    assert!(!dir.path().join("c.md").exists());
    assert!(tombstone::load_all(dir.path()).0.is_empty());
    assert!(!dir.path().join(JOURNAL_FILE).exists());
}

/// A journal is a file in the store, which a cloned repository could
/// carry: one naming a path outside the store is refused whole, and
/// nothing outside is written.
#[test]
fn a_journal_naming_a_path_outside_the_store_is_refused_and_nothing_is_written() {
    let (dir, store) = new_store();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("victim.txt");
    fs::write(&target, "mine").unwrap();
    for path in [
        format!(
            "../{}/victim.txt",
            outside.path().file_name().unwrap().to_string_lossy()
        ),
        target.display().to_string(),
    ] {
        let journal = serde_json::json!({
            "version": 1,
            "files": [{"path": path, "content": {"text": "pwned"}, "mode": 420}],
            "folders": []
        });
        fs::write(dir.path().join(JOURNAL_FILE), journal.to_string()).unwrap();
        let error = Transaction::begin(&store, WAIT, StoreView::load).unwrap_err();
        assert!(
            matches!(error, crate::lock::LockError::Interrupted { .. }),
            "{error}"
        );
        assert!(
            error.to_string().contains("not a path inside the store"),
            "{error}"
        );
        assert_eq!(fs::read_to_string(&target).unwrap(), "mine");
    }
}
