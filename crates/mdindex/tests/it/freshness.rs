//! A search reflects the files at the moment it starts: every way a file
//! changes, each edited and searched at once (no sleep in between), with no
//! watcher, with a watcher thread and with a watcher process.

use std::fs;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pretty_assertions::assert_eq;
use rstest::rstest;

use crate::common::{
    Env, Keeper, assert_kept_by, ids_of, overwrite_in_place, record_text, set_mtime,
};

fn ids(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Edits then searches, asserting the search saw the edit the intended way.
fn search_now(env: &Env, keeper: Keeper, words: &str) -> Vec<String> {
    let outcome = env.search(words);
    assert_kept_by(keeper, &outcome, false);
    ids_of(&outcome)
}

#[rstest]
fn rename_over_save(
    #[values(Keeper::Nobody, Keeper::WatcherThread, Keeper::WatcherProcess)] keeper: Keeper,
) {
    let env = Env::new();
    env.write("deploy", "quokka");
    assert_eq!(env.ids("quokka"), ids(&["deploy"]));
    let _watcher = keeper.start(&env);

    // As vim and most editors save: a new file renamed over the old one.
    let temp = env.root().join(".deploy.md.swp");
    fs::write(&temp, record_text("deploy", "wombat")).unwrap();
    fs::rename(&temp, env.path("deploy")).unwrap();
    assert_eq!(search_now(&env, keeper, "wombat"), ids(&["deploy"]));
    assert_eq!(search_now(&env, keeper, "quokka"), ids(&[]));
}

#[rstest]
fn in_place_edit(
    #[values(Keeper::Nobody, Keeper::WatcherThread, Keeper::WatcherProcess)] keeper: Keeper,
) {
    let env = Env::new();
    env.write("deploy", "quokka");
    env.write("other", "numbat");
    assert_eq!(env.ids("quokka"), ids(&["deploy"]));
    let _watcher = keeper.start(&env);

    overwrite_in_place(
        &env.path("deploy"),
        &record_text("deploy", "platypus platypus"),
    );
    assert_eq!(search_now(&env, keeper, "platypus"), ids(&["deploy"]));
    assert_eq!(search_now(&env, keeper, "quokka"), ids(&[]));
}

#[rstest]
fn two_edits_of_equal_size_in_the_same_second(
    #[values(Keeper::Nobody, Keeper::WatcherThread, Keeper::WatcherProcess)] keeper: Keeper,
) {
    let env = Env::new();
    let _watcher = keeper.start(&env);
    let path = env.path("deploy");
    let second = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let same_second = UNIX_EPOCH + Duration::from_secs(second);

    env.write("deploy", "quokka");
    set_mtime(&path, same_second);
    assert_eq!(search_now(&env, keeper, "quokka"), ids(&["deploy"]));
    let first = fs::metadata(&path).unwrap();

    // Same size, same inode, same mtime: only the content tells.
    overwrite_in_place(&path, &record_text("deploy", "wombat"));
    set_mtime(&path, same_second);
    let second = fs::metadata(&path).unwrap();
    assert_eq!(
        (first.len(), first.modified().unwrap()),
        (second.len(), second.modified().unwrap())
    );
    assert_eq!(search_now(&env, keeper, "wombat"), ids(&["deploy"]));
    assert_eq!(search_now(&env, keeper, "quokka"), ids(&[]));
}

/// The file's ctime in nanoseconds.
fn ctime_ns(path: &std::path::Path) -> i64 {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(path).unwrap();
    meta.ctime() * 1_000_000_000 + meta.ctime_nsec()
}

/// As `cp -p old new` (or `touch -r`) leaves it: new content of the same
/// size in the same inode, under the old mtime. Rewritten until the ctime
/// ticks (a few milliseconds at most), so that only the ctime tells.
fn copy_preserving_mtime(path: &std::path::Path, text: &str, mtime: SystemTime) {
    let before = ctime_ns(path);
    loop {
        overwrite_in_place(path, text);
        set_mtime(path, mtime);
        if ctime_ns(path) != before {
            return;
        }
    }
}

#[test]
fn cp_p_same_size_same_mtime_is_seen() {
    let env = Env::new();
    let path = env.path("deploy");
    let long_ago = UNIX_EPOCH + Duration::from_secs(1_600_000_000);
    env.write("deploy", "quokka");
    set_mtime(&path, long_ago);
    assert_eq!(env.ids("quokka"), ids(&["deploy"]));
    // As it is two seconds later: no entry is racy any more, so only the
    // stat can tell a change.
    let conn = rusqlite::Connection::open(env.index_path()).unwrap();
    conn.execute("UPDATE docs SET racy = 0", []).unwrap();

    copy_preserving_mtime(&path, &record_text("deploy", "wombat"), long_ago);
    assert_eq!(env.ids("wombat"), ids(&["deploy"]));
    assert_eq!(env.ids("quokka"), ids(&[]));
}

#[test]
fn cp_p_within_the_ctime_tick_of_indexing_is_seen() {
    let env = Env::new();
    let path = env.path("deploy");
    let long_ago = UNIX_EPOCH + Duration::from_secs(1_600_000_000);
    env.write("deploy", "quokka");
    set_mtime(&path, long_ago);
    assert_eq!(env.ids("quokka"), ids(&["deploy"]));

    // The ctime may not tick between indexing and this copy: the entry's
    // recent ctime made it racy, so its content is checked again.
    overwrite_in_place(&path, &record_text("deploy", "wombat"));
    set_mtime(&path, long_ago);
    assert_eq!(env.ids("wombat"), ids(&["deploy"]));
}

#[rstest]
fn new_hand_made_file(
    #[values(Keeper::Nobody, Keeper::WatcherThread, Keeper::WatcherProcess)] keeper: Keeper,
) {
    let env = Env::new();
    env.write("deploy", "quokka");
    assert_eq!(env.ids("quokka"), ids(&["deploy"]));
    let _watcher = keeper.start(&env);

    // No frontmatter at all, in a folder that already exists.
    fs::write(
        env.root().join("jotted.md"),
        "# Wombat sightings\n\nA wombat crossed the road.\n",
    )
    .unwrap();
    assert_eq!(search_now(&env, keeper, "wombat"), ids(&["jotted"]));
}

#[rstest]
fn deletion(
    #[values(Keeper::Nobody, Keeper::WatcherThread, Keeper::WatcherProcess)] keeper: Keeper,
) {
    let env = Env::new();
    env.write("deploy", "quokka");
    env.write("keep", "quokka");
    assert_eq!(env.ids("quokka"), ids(&["deploy", "keep"]));
    let _watcher = keeper.start(&env);

    fs::remove_file(env.path("deploy")).unwrap();
    assert_eq!(search_now(&env, keeper, "quokka"), ids(&["keep"]));
}

#[rstest]
fn rename(#[values(Keeper::Nobody, Keeper::WatcherThread, Keeper::WatcherProcess)] keeper: Keeper) {
    let env = Env::new();
    env.write("deploy", "quokka");
    assert_eq!(env.ids("quokka"), ids(&["deploy"]));
    let _watcher = keeper.start(&env);

    fs::rename(env.path("deploy"), env.path("release")).unwrap();
    assert_eq!(search_now(&env, keeper, "quokka"), ids(&["release"]));
}

#[rstest]
fn checkout_swapping_many_files(
    #[values(Keeper::Nobody, Keeper::WatcherThread, Keeper::WatcherProcess)] keeper: Keeper,
) {
    let env = Env::new();
    for i in 0..150 {
        env.write(&format!("note-{i:03}"), "quokka");
    }
    env.write("team/old", "quokka");
    assert_eq!(env.ids("quokka").len(), 151);
    let _watcher = keeper.start(&env);

    // As git does: unlink and recreate changed files, delete some, add new
    // ones (some in a new folder), remove a folder.
    for i in 0..150 {
        let path = env.path(&format!("note-{i:03}"));
        match i % 3 {
            0 => fs::remove_file(&path).unwrap(),
            1 => {
                fs::remove_file(&path).unwrap();
                fs::write(&path, record_text(&format!("note-{i:03}"), "wombat")).unwrap();
            }
            _ => {}
        }
    }
    fs::remove_dir_all(env.root().join("team")).unwrap();
    for i in 0..40 {
        env.write(&format!("added/new-{i:02}"), "wombat");
    }
    let outcome = env.search("wombat");
    assert_kept_by(keeper, &outcome, true);
    let wombats = ids_of(&outcome);
    assert_eq!(wombats.len(), 50 + 40);
    assert!(wombats.contains(&"added/new-07".to_string()));
    assert!(wombats.contains(&"note-001".to_string()));
    let quokkas = search_now(&env, keeper, "quokka");
    assert_eq!(quokkas.len(), 50);
    assert!(quokkas.iter().all(|id| id.starts_with("note-")));
    assert!(env.check().is_clean(), "{:?}", env.check());
}

#[cfg(unix)]
#[rstest]
fn edit_of_a_symlinked_record_target(
    #[values(Keeper::Nobody, Keeper::WatcherThread, Keeper::WatcherProcess)] keeper: Keeper,
) {
    let env = Env::new();
    // The target lives in a dot-folder: not a record itself, and its
    // events are ignored; only the symlink makes it one.
    fs::create_dir_all(env.root().join(".shared")).unwrap();
    let target = env.root().join(".shared/deploy.md");
    fs::write(&target, record_text("deploy", "quokka")).unwrap();
    std::os::unix::fs::symlink(&target, env.path("deploy")).unwrap();
    assert_eq!(env.ids("quokka"), ids(&["deploy"]));
    let _watcher = keeper.start(&env);

    overwrite_in_place(&target, &record_text("deploy", "wombat wombat"));
    assert_eq!(search_now(&env, keeper, "wombat"), ids(&["deploy"]));
    assert_eq!(search_now(&env, keeper, "quokka"), ids(&[]));
}
