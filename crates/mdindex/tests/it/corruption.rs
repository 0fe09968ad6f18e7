//! An index deleted, truncated, overwritten or from another version is
//! rebuilt by the next search, which says why and answers correctly.

use std::fs::{self, OpenOptions};

use mdindex::{RebuildCause, SearchOutcome};
use pretty_assertions::assert_eq;

use crate::common::{Env, ids_of};

/// A store big enough that its index spans many pages.
fn indexed_env() -> Env {
    let env = Env::new();
    for i in 0..300 {
        env.write(
            &format!("note-{i:03}"),
            &format!("quokka filler{i} {}", "padding words ".repeat(20)),
        );
    }
    env.write("target", "wombat");
    let first = env.search("wombat");
    assert_eq!(
        first.rebuilt.as_ref().map(|r| &r.cause),
        Some(&RebuildCause::Missing)
    );
    assert_eq!(first.rebuilt.as_ref().map(|r| r.indexed), Some(301));
    // Fold the WAL into the file, so that damage to the file is damage to the index.
    let conn = rusqlite::Connection::open(env.index_path()).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    env
}

fn assert_answers(env: &Env, outcome: &SearchOutcome) {
    assert_eq!(ids_of(outcome), vec!["target".to_string()]);
    assert_eq!(env.ids("quokka").len(), 300);
    assert!(env.check().is_clean());
}

fn rebuilt_cause(outcome: &SearchOutcome) -> RebuildCause {
    outcome
        .rebuilt
        .as_ref()
        .expect("the index was rebuilt")
        .cause
        .clone()
}

#[test]
fn garbage_bytes_are_rebuilt() {
    let env = indexed_env();
    fs::write(env.index_path(), vec![0xA5u8; 64 * 1024]).unwrap();
    let outcome = env.search("wombat");
    assert!(
        matches!(rebuilt_cause(&outcome), RebuildCause::Damaged(_)),
        "{outcome:?}"
    );
    assert_answers(&env, &outcome);
}

#[test]
fn garbage_inside_a_sound_header_is_rebuilt_at_first_use() {
    let env = indexed_env();
    let path = env.index_path();
    let mut bytes = fs::read(&path).unwrap();
    // Keep page 1 (header and schema), smash every page after it.
    for byte in &mut bytes[4096..] {
        *byte = 0xA5;
    }
    fs::write(&path, bytes).unwrap();
    let outcome = env.search("wombat");
    assert!(
        matches!(rebuilt_cause(&outcome), RebuildCause::Damaged(_)),
        "{outcome:?}"
    );
    assert_answers(&env, &outcome);
}

#[test]
fn truncated_to_nothing_is_rebuilt() {
    let env = indexed_env();
    OpenOptions::new()
        .write(true)
        .open(env.index_path())
        .unwrap()
        .set_len(0)
        .unwrap();
    let outcome = env.search("wombat");
    assert!(
        matches!(rebuilt_cause(&outcome), RebuildCause::Unrecognised(_)),
        "{outcome:?}"
    );
    assert_answers(&env, &outcome);
}

#[test]
fn truncated_to_half_is_rebuilt() {
    let env = indexed_env();
    let path = env.index_path();
    let len = fs::metadata(&path).unwrap().len();
    OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let outcome = env.search("wombat");
    assert!(
        matches!(rebuilt_cause(&outcome), RebuildCause::Damaged(_)),
        "{outcome:?}"
    );
    assert_answers(&env, &outcome);
}

#[test]
fn deleted_is_rebuilt_even_with_a_stale_wal_beside_it() {
    let env = indexed_env();
    let path = env.index_path();
    // A WAL with frames from the old index, left behind by its deletion.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("DELETE FROM docs WHERE id = 'note-001'", [])
        .unwrap();
    let wal = format!("{}-wal", path.display());
    let wal_bytes = fs::read(&wal).unwrap();
    drop(conn);
    fs::remove_file(&path).unwrap();
    fs::write(&wal, wal_bytes).unwrap();
    let outcome = env.search("wombat");
    assert_eq!(rebuilt_cause(&outcome), RebuildCause::Missing);
    assert_answers(&env, &outcome);
}

#[test]
fn another_schema_or_text_version_is_rebuilt() {
    for (key, expected) in [
        ("schema_version", "schema"),
        ("text_version", "text"),
        ("tokenizer", "tokenizer"),
    ] {
        let env = indexed_env();
        let conn = rusqlite::Connection::open(env.index_path()).unwrap();
        conn.execute("UPDATE meta SET value = 'older' WHERE key = ?1", [key])
            .unwrap();
        drop(conn);
        let outcome = env.search("wombat");
        let cause = rebuilt_cause(&outcome);
        let matches = match expected {
            "schema" => matches!(cause, RebuildCause::SchemaVersion { .. }),
            "text" => matches!(cause, RebuildCause::TextVersion { .. }),
            _ => matches!(cause, RebuildCause::Tokenizer { .. }),
        };
        assert!(matches, "{key}: {cause:?}");
        assert!(cause.to_string().contains("older"), "{cause}");
        assert_answers(&env, &outcome);
    }
}

#[test]
fn a_missing_table_is_rebuilt() {
    let env = indexed_env();
    let conn = rusqlite::Connection::open(env.index_path()).unwrap();
    conn.execute("DROP TABLE dirty", []).unwrap();
    drop(conn);
    let outcome = env.search("wombat");
    assert!(
        matches!(rebuilt_cause(&outcome), RebuildCause::Unrecognised(_)),
        "{outcome:?}"
    );
    assert_answers(&env, &outcome);
}

#[test]
fn the_rebuild_reason_is_one_line() {
    let env = indexed_env();
    fs::write(
        env.index_path(),
        b"not a database at all, just text that is long enough to have a header",
    )
    .unwrap();
    let outcome = env.search("wombat");
    let line = format!("index rebuilt: {}", rebuilt_cause(&outcome));
    assert!(!line.contains('\n'), "{line}");
    assert_answers(&env, &outcome);
}
