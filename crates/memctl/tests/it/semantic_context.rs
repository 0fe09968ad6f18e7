//! Issues 18 and 24: with the model on, the prompt hook judges whether a
//! prompt deserves any record by its closeness to every record set
//! against its closeness to ordinary requests (`mdagent::context::meaning`),
//! so it embeds every record that has no vector yet, once, as `search`
//! does; the background's vectors are made once and kept in the cache.

use crate::env::TestEnv;
use crate::semantic::{env_with_model, write_records};

/// The content hashes that have a vector, in every index of the test.
fn vectors(env: &TestEnv) -> usize {
    vectors_where(env, "1")
}

/// How many vectors the stores' indexes hold that meet SQL `condition`.
fn vectors_where(env: &TestEnv, condition: &str) -> usize {
    env.index_files()
        .iter()
        .map(|db| {
            let conn = rusqlite::Connection::open(db).expect("the index opens");
            let sql = format!("SELECT count(*) FROM vectors WHERE {condition}");
            conn.query_row(&sql, [], |row| row.get::<_, i64>(0))
                .unwrap_or(0)
        })
        .sum::<i64>() as usize
}

const PROMPT: &str = "where do the shared pytest fixtures go, and is unittest allowed?";

/// The records of [`write_records`] and one more that the prompt's
/// other half is about: context shows two of five.
fn store_with_two_relevant(env: &TestEnv) {
    write_records(env);
    env.write_record(
        "pytest-fixtures",
        "project",
        "Shared pytest fixtures live in tests/conftest.py",
        "Database fixtures roll back after each test.",
    );
}

fn shown(env: &TestEnv) -> Vec<String> {
    let run = env.run(&["context", "--json", "--query", PROMPT]);
    run.assert_success();
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    run.json()["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| r["id"].as_str().expect("an id").to_string())
        .collect()
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn context_with_the_model_on_embeds_every_record_once_and_keeps_the_background() {
    let env = env_with_model("context_embeds_every_record_once");
    store_with_two_relevant(&env);
    let shown = shown(&env);
    assert!(shown.contains(&"pytest-fixtures".to_string()), "{shown:?}");
    assert_eq!(
        vectors(&env),
        5,
        "every record, to judge closeness: {shown:?}"
    );
    let kept: Vec<_> = walkdir::WalkDir::new(env.root())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "f32"))
        .collect();
    assert_eq!(kept.len(), 1, "the background's vectors, kept once");
    assert_eq!(self::shown(&env), shown, "the same answer from the cache");
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn context_with_the_model_on_heals_a_vector_table_of_the_wrong_shape() {
    let env = env_with_model("context_with_the_model_on_heals_a_vector_table");
    store_with_two_relevant(&env);
    let before = shown(&env);
    for db in env.index_files() {
        let conn = rusqlite::Connection::open(&db).expect("the index opens");
        conn.execute_batch("DROP TABLE vectors; CREATE TABLE vectors (x)")
            .expect("the damage is done");
    }
    assert_eq!(shown(&env), before);
    assert_eq!(
        vectors(&env),
        5,
        "the table made again, every record embedded"
    );
}

/// A vector of the right length that the model cannot have made (all NaN
/// in half precision, whose cosine sorted first) is made again before
/// context orders by it.
#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn context_with_the_model_on_makes_a_damaged_vector_again() {
    const NAN: &str = "unhex(replace(hex(zeroblob(1024)), '00', '7E'))";
    let env = env_with_model("context_makes_a_damaged_vector_again");
    store_with_two_relevant(&env);
    let before = shown(&env);
    for db in env.index_files() {
        let conn = rusqlite::Connection::open(&db).expect("the index opens");
        conn.execute_batch(&format!("UPDATE vectors SET vector = {NAN}"))
            .expect("the damage is done");
    }
    assert_eq!(vectors_where(&env, &format!("vector = {NAN}")), 5);
    assert_eq!(shown(&env), before);
    assert_eq!(
        vectors_where(&env, &format!("vector = {NAN}")),
        0,
        "made again"
    );
    assert_eq!(vectors(&env), 5);
}

/// A model that is named but gone: context answers by words alone, as
/// without the model, and says why on stderr.
#[test]
fn context_with_a_model_named_but_gone_answers_by_words_and_says_so() {
    let mut env = TestEnv::new();
    let gone = env.root().join("no-such-model");
    env.set_var("MEMCTL_EMBED_MODEL", gone.display().to_string());
    store_with_two_relevant(&env);
    let one = env.run(&[
        "context",
        "--json",
        "--query",
        "is unittest allowed in new tests?",
    ]);
    one.assert_success();
    assert_eq!(
        one.json()["records"].as_array().map(Vec::len),
        Some(1),
        "{}",
        one.stdout
    );
    assert!(
        one.stderr.contains("semantic matching is off"),
        "{}",
        one.stderr
    );
    let two = env.run(&["context", "--json", "--query", PROMPT]);
    two.assert_success();
    assert_eq!(
        two.json()["records"].as_array().map(Vec::len),
        Some(2),
        "{}",
        two.stdout
    );
    assert!(
        two.stderr.contains("semantic matching is off"),
        "{}",
        two.stderr
    );
}

/// The hook's refresh drops the vectors of records that are gone and of
/// another version, and makes the missing ones, in the queries made cheap
/// for a hook at 10,000 records (`mdindex::semantic`: the gone found by
/// merging the two hash indexes, the missing by the key alone once only
/// current vectors are left): the same vectors as before, no more.
#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn context_drops_the_vectors_of_gone_records_and_of_another_version() {
    let env = env_with_model("context_drops_gone_and_other_version_vectors");
    store_with_two_relevant(&env);
    let before = shown(&env);
    assert_eq!(vectors(&env), 5);
    std::fs::remove_file(env.store().join("pytest-fixtures.md")).expect("the record goes");
    let without = shown(&env);
    assert!(
        !without.contains(&"pytest-fixtures".to_string()),
        "{without:?}"
    );
    assert_eq!(vectors(&env), 4, "the gone record's vector is dropped");
    store_with_two_relevant(&env);
    assert_eq!(shown(&env), before);
    for db in env.index_files() {
        let conn = rusqlite::Connection::open(&db).expect("the index opens");
        conn.execute_batch("UPDATE vectors SET version = 'another-model'")
            .expect("the version is changed");
    }
    assert_eq!(shown(&env), before);
    assert_eq!(vectors_where(&env, "version = 'another-model'"), 0);
    assert_eq!(vectors(&env), 5, "each record's vector made again, once");
}
