//! The transaction: lock, re-planning, the conflict rule, commit.

use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use super::*;
use crate::write::tests::{NOW, candidate, options};
use crate::write::{Candidate, Operation, WriteOptions};

const WAIT: Duration = Duration::from_millis(200);

fn new_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::create(dir.path()).unwrap();
    (dir, store)
}

/// Records every path it is told about.
#[derive(Default)]
struct Paths(Vec<PathBuf>);

impl ChangeSink for Paths {
    fn changed(&mut self, rel_paths: &[PathBuf]) {
        self.0.extend_from_slice(rel_paths);
    }
}

fn begin(store: &Store) -> Transaction<'_> {
    Transaction::begin(store, WAIT, StoreView::load).unwrap()
}

fn catalog_text(store: &Store) -> String {
    fs::read_to_string(store.catalog_path()).unwrap()
}

#[test]
fn commit_writes_records_regenerates_memory_md_once_and_tells_the_sink() {
    let (_dir, store) = new_store();
    let mut txn = begin(&store);
    for name in ["one", "two"] {
        let step = txn
            .write(
                &candidate(name, &format!("about {name}"), "b"),
                &options(),
                None,
            )
            .unwrap();
        assert_eq!(step.outcome, Outcome::Saved { revision: 1 });
    }
    let mut sink = Paths::default();
    let committed = txn.commit(&mut sink);
    assert_eq!(
        sink.0,
        vec![PathBuf::from("one.md"), PathBuf::from("two.md")]
    );
    assert_eq!(committed.catalog.unwrap().unwrap().listed, 2);
    let catalog = catalog_text(&store);
    assert!(
        catalog.contains("[one](one.md)") && catalog.contains("[two](two.md)"),
        "{catalog}"
    );
}

#[test]
fn plan_changed_since_it_was_shown_is_a_conflict_and_writes_nothing() {
    let (dir, store) = new_store();
    let c = candidate("ci", "CI runs on push", "b");
    let shown = write::plan(&store, &StoreView::load(&store), &c, &options()).unwrap();
    assert_eq!(shown.operation, Operation::Add);
    // Another writer gets there first.
    fs::write(
        dir.path().join("ci.md"),
        "---\nname: ci\ndescription: other\ntype: project\n---\nx\n",
    )
    .unwrap();
    let mut txn = begin(&store);
    let step = txn.write(&c, &options(), Some(&shown)).unwrap();
    assert_eq!(step.outcome, Outcome::Conflict);
    assert!(matches!(step.plan.operation, Operation::Update { .. }));
    let committed = txn.commit(&mut ());
    assert!(committed.changed.is_empty());
    assert!(
        fs::read_to_string(dir.path().join("ci.md"))
            .unwrap()
            .contains("other")
    );
}

#[test]
fn unchanged_plan_that_was_shown_is_written() {
    let (_dir, store) = new_store();
    let c = candidate("ci", "CI runs on push", "b");
    let shown = write::plan(&store, &StoreView::load(&store), &c, &options()).unwrap();
    let mut txn = begin(&store);
    let step = txn.write(&c, &options(), Some(&shown)).unwrap();
    assert_eq!(step.outcome, Outcome::Saved { revision: 1 });
    assert_eq!(step.plan, shown);
}

#[test]
fn refusal_found_under_the_lock_is_reported_as_a_refusal() {
    let (dir, store) = new_store();
    let c = candidate("ci", "CI runs on push", "b");
    let shown = write::plan(&store, &StoreView::load(&store), &c, &options()).unwrap();
    let tomb = Tombstone {
        id: "ci".into(),
        forgotten_at: NOW.parse().unwrap(),
        reason: None,
        content_hash: crate::hash::content_hash("x", "y"),
    };
    crate::tombstone::write(dir.path(), &tomb).unwrap();
    let mut txn = begin(&store);
    let step = txn.write(&c, &options(), Some(&shown)).unwrap();
    assert_eq!(step.outcome, Outcome::Refused(Refusal::Tombstone(tomb)));
    assert!(!dir.path().join("ci.md").exists());
}

#[test]
fn forget_writes_a_tombstone_removes_the_record_and_updates_memory_md() {
    let (dir, store) = new_store();
    let mut txn = begin(&store);
    txn.write(&candidate("ci", "CI runs on push", "b"), &options(), None)
        .unwrap();
    txn.commit(&mut ());
    assert!(catalog_text(&store).contains("[ci]"));

    let mut txn = begin(&store);
    let tomb = txn
        .forget("CI", Some("moved".into()), NOW.parse().unwrap())
        .unwrap();
    assert_eq!(tomb.id, "ci");
    let mut sink = Paths::default();
    txn.commit(&mut sink);
    assert_eq!(sink.0, vec![PathBuf::from("ci.md")]);
    assert!(!dir.path().join("ci.md").exists());
    assert!(crate::tombstone::tombstone_path(dir.path(), "ci").exists());
    assert!(!catalog_text(&store).contains("[ci]"));
}

/// Issue 9 (found by the model-based test's merges): a record kept by a
/// merge beside its tombstone, forgotten again, left a second tombstone
/// beside the first; `--force` removed only the first, so the id was
/// refused again by the next write without `--force`.
#[test]
fn forced_re_add_removes_the_tombstone_written_beside_an_earlier_one() {
    let (dir, store) = new_store();
    let mut txn = begin(&store);
    txn.write(&candidate("ci", "CI runs on push", "one"), &options(), None)
        .unwrap();
    txn.forget("ci", None, NOW.parse().unwrap()).unwrap();
    txn.commit(&mut ());
    // The merge brings the record back (the edit kept), tombstone and all.
    fs::write(
        dir.path().join("ci.md"),
        "---\nname: ci\ndescription: CI runs nightly\ntype: project\n---\ntwo\n",
    )
    .unwrap();
    let mut txn = begin(&store);
    txn.forget("ci", None, NOW.parse().unwrap()).unwrap();
    txn.commit(&mut ());
    let tombstones = || {
        fs::read_dir(dir.path().join(".tombstones"))
            .unwrap()
            .count()
    };
    assert_eq!(
        tombstones(),
        2,
        "the second forget's tombstone is beside the first"
    );

    let forced = WriteOptions {
        force: true,
        ..options()
    };
    let mut txn = begin(&store);
    txn.write(&candidate("ci", "CI runs hourly", "three"), &forced, None)
        .unwrap();
    txn.commit(&mut ());
    assert_eq!(tombstones(), 0);
    let mut txn = begin(&store);
    let step = txn
        .write(&candidate("ci", "CI runs daily", "four"), &options(), None)
        .unwrap();
    assert_eq!(step.outcome, Outcome::Saved { revision: 2 });
}

#[test]
fn forget_refuses_a_secret_in_the_reason_and_changes_nothing() {
    let (dir, store) = new_store();
    let mut txn = begin(&store);
    txn.write(&candidate("ci", "CI runs on push", "b"), &options(), None)
        .unwrap();
    let err = txn
        .forget(
            "ci",
            Some("leaked AKIAIOSFODNN7REALKEY".into()),
            NOW.parse().unwrap(),
        )
        .unwrap_err();
    assert!(matches!(err, ForgetError::SecretInReason(_)), "{err}");
    assert!(!err.to_string().contains("AKIA"), "{err}");
    assert!(dir.path().join("ci.md").exists());
    assert!(!crate::tombstone::tombstone_path(dir.path(), "ci").exists());
}

#[test]
fn noop_rerun_repairs_a_stale_memory_md() {
    let (_dir, store) = new_store();
    let c = candidate("ci", "CI runs on push", "b");
    let mut txn = begin(&store);
    txn.write(&c, &options(), None).unwrap();
    txn.commit(&mut ());
    fs::write(store.catalog_path(), "stale\n").unwrap();
    let mut txn = begin(&store);
    let step = txn.write(&c, &options(), None).unwrap();
    assert_eq!(
        step.outcome,
        Outcome::Noop {
            existing: "ci".into()
        }
    );
    txn.commit(&mut ());
    assert!(catalog_text(&store).contains("[ci](ci.md)"));
}

#[test]
fn unwritable_memory_md_is_reported_after_the_record_is_saved() {
    let (dir, store) = new_store();
    let mut txn = begin(&store);
    let step = txn
        .write(&candidate("trigger3", "d", "b"), &options(), None)
        .unwrap();
    assert_eq!(step.outcome, Outcome::Saved { revision: 1 });
    // MEMORY.md becomes impossible to replace after the record is written.
    fs::create_dir(store.catalog_path()).unwrap();
    let committed = txn.commit(&mut ());
    assert!(committed.catalog.is_err());
    assert_eq!(committed.changed, vec![PathBuf::from("trigger3.md")]);
    assert!(dir.path().join("trigger3.md").is_file());
}

#[test]
fn refused_write_leaves_no_file_and_memory_md_untouched() {
    let (dir, store) = new_store();
    let mut txn = begin(&store);
    let err = txn
        .write(&candidate("nb", "d", "a\0b"), &options(), None)
        .unwrap_err();
    assert!(matches!(err, WriteError::Plan(_)), "{err}");
    let committed = txn.commit(&mut ());
    assert!(matches!(committed.catalog, Ok(None)));
    assert!(!dir.path().join("nb.md").exists());
    assert!(!store.catalog_path().exists());
}

#[test]
fn held_lock_times_out_with_a_typed_error() {
    let (_dir, store) = new_store();
    let _held = begin(&store);
    let err = Transaction::begin(&store, Duration::from_millis(30), StoreView::load).unwrap_err();
    assert!(matches!(err, LockError::Timeout { .. }), "{err}");
}

const RECORD: &str =
    "---\nname: ci\ndescription: CI runs on push\ntype: project\nrevision: 2\n---\nbody\n";

#[test]
fn edit_is_saved_with_the_next_revision_when_the_file_is_unchanged() {
    let (dir, store) = new_store();
    fs::write(dir.path().join("ci.md"), RECORD).unwrap();
    let mut txn = begin(&store);
    let edited = RECORD.replace("body", "new body");
    let revision = txn
        .save_edit(
            "ci.md".as_ref(),
            RECORD.as_bytes(),
            &edited,
            NOW.parse().unwrap(),
        )
        .unwrap();
    assert_eq!(revision, 3);
    txn.commit(&mut ());
    let text = fs::read_to_string(dir.path().join("ci.md")).unwrap();
    assert!(
        text.contains("revision: 3") && text.contains("new body"),
        "{text}"
    );
    assert!(catalog_text(&store).contains("[ci]"));
}

#[test]
fn edit_of_a_file_changed_meanwhile_is_a_conflict() {
    let (dir, store) = new_store();
    fs::write(dir.path().join("ci.md"), RECORD.replace("body", "theirs")).unwrap();
    let mut txn = begin(&store);
    let err = txn
        .save_edit(
            "ci.md".as_ref(),
            RECORD.as_bytes(),
            &RECORD.replace("body", "mine"),
            NOW.parse().unwrap(),
        )
        .unwrap_err();
    assert!(matches!(err, EditError::Changed(_)), "{err}");
    assert!(
        fs::read_to_string(dir.path().join("ci.md"))
            .unwrap()
            .contains("theirs")
    );
}

#[test]
fn edit_that_adds_a_secret_is_refused() {
    let (dir, store) = new_store();
    fs::write(dir.path().join("ci.md"), RECORD).unwrap();
    let mut txn = begin(&store);
    let edited = format!("{RECORD}aws AKIAIOSFODNN7REALKEY\n");
    let err = txn
        .save_edit(
            "ci.md".as_ref(),
            RECORD.as_bytes(),
            &edited,
            NOW.parse().unwrap(),
        )
        .unwrap_err();
    assert!(matches!(err, EditError::Invalid(_, _)), "{err}");
    assert_eq!(
        fs::read_to_string(dir.path().join("ci.md")).unwrap(),
        RECORD
    );
}

mod properties {
    use proptest::prelude::*;

    use super::*;

    /// Every file under `root` and its bytes.
    fn files(root: &std::path::Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
        walkdir::WalkDir::new(root)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| (e.path().to_path_buf(), fs::read(e.path()).unwrap()))
            .collect()
    }

    fn any_text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z]{1,12}",
            any::<String>(),
            "[a-z \\x00-\\x1f\\x7f\\u{80}-\\u{9f}]{0,20}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever a client sends, a write either leaves a readable record
        /// with the planned id or leaves the store exactly as it was.
        #[test]
        fn any_candidate_is_written_whole_or_not_at_all(
            name in any_text(),
            description in any_text(),
            body in any_text(),
            tag in proptest::option::of(any_text()),
        ) {
            let (dir, store) = new_store();
            let before = files(dir.path());
            let c = Candidate {
                tags: tag.into_iter().collect(),
                ..candidate(&name, &description, &body)
            };
            let mut txn = begin(&store);
            let step = txn.write(&c, &options(), None);
            txn.commit(&mut ());
            match step {
                Ok(Step { plan, outcome: Outcome::Saved { .. } }) => {
                    let record = store.read_record(&plan.rel_path);
                    prop_assert!(record.is_ok(), "{:?}", record);
                    prop_assert_eq!(record.unwrap().id, plan.id);
                }
                _ => prop_assert_eq!(files(dir.path()), before),
            }
        }
    }
}

#[test]
fn memory_md_that_cannot_be_read_refuses_the_write_before_any_byte() {
    let (dir, store) = new_store();
    fs::create_dir(store.catalog_path()).unwrap();
    let mut txn = begin(&store);
    let err = txn
        .write(&candidate("blocked", "d", "b"), &options(), None)
        .unwrap_err();
    assert!(err.to_string().contains("MEMORY.md"), "{err}");
    assert!(!dir.path().join("blocked.md").exists());
}

fn tree(root: &std::path::Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(root)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(root).unwrap().to_path_buf();
            (rel, fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn merged_record_is_written_with_merged_from_and_is_not_a_noop_of_its_source() {
    let (_dir, store) = new_store();
    let mut txn = begin(&store);
    txn.write(
        &candidate("a", "Uses pnpm", "We use pnpm.\n"),
        &options(),
        None,
    )
    .unwrap();
    let merged_from = MergedFrom {
        ids: vec!["a".to_string(), "b".to_string()],
        created: None,
    };
    let step = txn
        .write_merged(
            &candidate("tooling", "Uses pnpm", "We use pnpm.\n"),
            &merged_from,
            &options(),
            None,
        )
        .unwrap();
    assert_eq!(step.outcome, Outcome::Saved { revision: 1 });
    let text = fs::read_to_string(store.root().join("tooling.md")).unwrap();
    assert!(text.contains("merged_from:\n  - a\n  - b\n"), "{text}");
}

#[test]
fn merge_into_a_source_with_its_own_text_still_records_merged_from() {
    let (_dir, store) = new_store();
    let mut txn = begin(&store);
    txn.write(
        &candidate("a", "Uses pnpm", "We use pnpm.\n"),
        &options(),
        None,
    )
    .unwrap();
    let merged_from = MergedFrom {
        ids: vec!["a".to_string(), "b".to_string()],
        created: None,
    };
    let step = txn
        .write_merged(
            &candidate("a", "Uses pnpm", "We use pnpm.\n"),
            &merged_from,
            &options(),
            None,
        )
        .unwrap();
    assert_eq!(step.outcome, Outcome::Saved { revision: 2 });
    // The same write again is a NOOP: the list is already there.
    let again = txn
        .write_merged(
            &candidate("a", "Uses pnpm", "We use pnpm.\n"),
            &merged_from,
            &options(),
            None,
        )
        .unwrap();
    assert!(matches!(again.outcome, Outcome::Noop { .. }));
}

#[test]
fn restore_puts_every_snapshotted_file_back_byte_for_byte() {
    let (dir, store) = new_store();
    let mut txn = begin(&store);
    txn.write(&candidate("a", "about a", "A.\n"), &options(), None)
        .unwrap();
    txn.write(&candidate("b", "about b", "B.\n"), &options(), None)
        .unwrap();
    txn.commit(&mut ());
    let before = tree(dir.path());

    let mut txn = begin(&store);
    let files: Vec<PathBuf> = ["a.md", "b.md", "c.md", "MEMORY.md", ".tombstones/a.json"]
        .map(PathBuf::from)
        .to_vec();
    let snapshot = txn
        .snapshot(&files, &[PathBuf::from(".tombstones")])
        .unwrap();
    txn.write(&candidate("c", "about c", "C.\n"), &options(), None)
        .unwrap();
    txn.write(
        &candidate("b", "about b", "B, changed.\n"),
        &options(),
        None,
    )
    .unwrap();
    txn.forget("a", Some("gone".into()), NOW.parse().unwrap())
        .unwrap();
    txn.write_catalog().unwrap();
    assert_ne!(tree(dir.path()), before);

    txn.restore(&snapshot).unwrap();
    let mut sink = Paths::default();
    let committed = txn.commit(&mut sink);
    assert_eq!(tree(dir.path()), before);
    assert!(
        !dir.path().join(".tombstones").exists(),
        "a folder the change made goes too"
    );
    assert!(
        committed.catalog.unwrap().is_none(),
        "MEMORY.md is not rewritten"
    );
    assert!(sink.0.contains(&PathBuf::from("c.md")) && sink.0.contains(&PathBuf::from("a.md")));
}

#[test]
fn commit_after_write_catalog_does_not_write_memory_md_again() {
    let (_dir, store) = new_store();
    let mut txn = begin(&store);
    txn.write(&candidate("a", "about a", "A.\n"), &options(), None)
        .unwrap();
    txn.write_catalog().unwrap();
    fs::write(store.catalog_path(), "stands for a later write").unwrap();
    let committed = txn.commit(&mut ());
    assert_eq!(committed.catalog.unwrap().unwrap().listed, 1);
    assert_eq!(catalog_text(&store), "stands for a later write");
}

#[test]
fn leftover_temp_file_is_removed_by_a_transactions_first_write_and_forget_alike() {
    let (dir, store) = new_store();
    let mut txn = begin(&store);
    txn.write(&candidate("a", "about a", "A.\n"), &options(), None)
        .unwrap();
    txn.commit(&mut ());
    for forget_first in [false, true] {
        let leftover = dir.path().join(".crashed.memctl-tmp");
        fs::write(&leftover, "half").unwrap();
        let mut txn = begin(&store);
        if forget_first {
            txn.forget("a", None, NOW.parse().unwrap()).unwrap();
        } else {
            txn.write(&candidate("b", "about b", "B.\n"), &options(), None)
                .unwrap();
        }
        assert!(!leftover.exists(), "forget first: {forget_first}");
        txn.commit(&mut ());
    }
}

#[test]
fn record_holding_the_text_of_a_record_merged_into_it_is_not_refused_by_its_tombstone() {
    let (_dir, store) = new_store();
    let mut txn = begin(&store);
    let same = |name: &str| candidate(name, "Uses pnpm", "We use pnpm.\n");
    txn.write(&same("a"), &options(), None).unwrap();
    txn.write(&same("b"), &options(), None).unwrap();
    let merged_from = MergedFrom {
        ids: vec!["a".to_string(), "b".to_string()],
        created: None,
    };
    txn.write_merged(&same("b"), &merged_from, &options(), None)
        .unwrap();
    txn.forget(
        "a",
        Some("dream: merged into b".into()),
        NOW.parse().unwrap(),
    )
    .unwrap();
    // `remember` of b's own text again: already stored, not "forgotten".
    let again = txn.write(&same("b"), &options(), None).unwrap();
    assert!(
        matches!(again.outcome, Outcome::Noop { .. }),
        "{:?}",
        again.outcome
    );
    // A new id with that text is still caught: a's fact was merged away.
    let elsewhere = txn.write(&same("c"), &options(), None).unwrap();
    assert!(
        matches!(elsewhere.outcome, Outcome::Refused(_)),
        "{:?}",
        elsewhere.outcome
    );
}

#[test]
fn merged_record_keeps_the_earliest_created_of_its_sources() {
    let (_dir, store) = new_store();
    let mut txn = begin(&store);
    txn.write(
        &candidate("b", "Uses pnpm", "We use pnpm.\n"),
        &options(),
        None,
    )
    .unwrap();
    let sources = MergedFrom {
        ids: vec!["a".to_string(), "b".to_string()],
        created: Some("2020-05-06T07:08:09Z".parse().unwrap()),
    };
    txn.write_merged(
        &candidate("b", "Uses pnpm", "We use pnpm and its lockfile.\n"),
        &sources,
        &options(),
        None,
    )
    .unwrap();
    let text = fs::read_to_string(store.root().join("b.md")).unwrap();
    assert!(text.contains("created: 2020-05-06T07:08:09Z\n"), "{text}");
    assert!(text.contains(&format!("updated: {NOW}\n")), "{text}");
}

/// A record that is a link inside the store (SPEC §2), untouched by a change
/// that is rolled back, is still a link afterwards: the restore compares it
/// read as the snapshot read it, through the link (b8e21024's restore read
/// it without following and so replaced the link with a copy).
#[cfg(unix)]
#[test]
fn a_rollback_leaves_a_record_linked_inside_the_store_a_link() {
    let (dir, store) = new_store();
    fs::create_dir_all(dir.path().join(".shared")).unwrap();
    fs::write(
        dir.path().join(".shared/deploy.md"),
        "---\nname: deploy\ndescription: how we deploy\ntype: project\n---\nmake release\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(
        dir.path().join(".shared/deploy.md"),
        dir.path().join("deploy.md"),
    )
    .unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("netrc"), "password hunter2\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("netrc"), dir.path().join("out.md")).unwrap();

    let mut txn = begin(&store);
    let snapshot = txn
        .snapshot(&[PathBuf::from("deploy.md"), PathBuf::from("b.md")], &[])
        .unwrap();
    txn.write(&candidate("b", "about b", "B.\n"), &options(), None)
        .unwrap();
    txn.restore(&snapshot).unwrap();
    txn.commit(&mut ());
    let kind = fs::symlink_metadata(dir.path().join("deploy.md")).unwrap();
    assert!(
        kind.file_type().is_symlink(),
        "the link was replaced by a copy"
    );
    assert!(!dir.path().join("b.md").exists());

    let txn = begin(&store);
    let refused = txn.snapshot(&[PathBuf::from("out.md")], &[]);
    assert!(
        refused.is_err(),
        "a link out of the store was read into a snapshot"
    );
}
