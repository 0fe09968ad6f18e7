//! What a search returns: the fields of a hit, filters, exclusions, the
//! listing of a filter-only query, and BM25 weighting.

use std::fs;

use mdindex::query;
use mdstore::RecordType;
use pretty_assertions::assert_eq;

use crate::common::Env;

fn write_full(
    env: &Env,
    id: &str,
    kind: &str,
    updated: &str,
    tags: &str,
    description: &str,
    body: &str,
) {
    fs::write(
        env.path(id),
        format!(
            "---\nname: {id}\ndescription: {description}\ntype: {kind}\ncreated: 2026-01-01T00:00:00Z\n\
             updated: {updated}\nrevision: 3\nsource: verified\ntags: [{tags}]\n---\n{body}\n"
        ),
    )
    .unwrap();
}

fn ids(outcome: &mdindex::SearchOutcome) -> Vec<&str> {
    outcome.hits.iter().map(|h| h.id.as_str()).collect()
}

fn search_types(env: &Env, text: &str, types: &[RecordType]) -> Vec<String> {
    mdindex::search_store(
        &env.store,
        &env.cache,
        &query::parse(text).unwrap(),
        100,
        types,
        &mut |_| {},
    )
    .unwrap()
    .hits
    .into_iter()
    .map(|h| h.id)
    .collect()
}

#[test]
fn a_hit_carries_what_json_output_needs() {
    let env = Env::new();
    write_full(
        &env,
        "deploy-freeze",
        "project",
        "2026-02-03T04:05:06Z",
        "release, ops",
        "No deploys on Fridays",
        "The deploy freeze starts Friday noon.",
    );
    let outcome = env.search("freeze");
    let hit = &outcome.hits[0];
    assert_eq!(hit.id, "deploy-freeze");
    assert_eq!(hit.name, "deploy-freeze");
    assert_eq!(hit.record_type, Some(mdstore::RecordType::Project));
    assert_eq!(hit.path, env.path("deploy-freeze"));
    assert!(hit.path.is_absolute());
    assert_eq!(hit.description, "No deploys on Fridays");
    assert!(hit.snippet.text.contains("freeze"), "{:?}", hit.snippet);
    assert!(hit.score > 0.0);
    assert_eq!(hit.updated.as_deref(), Some("2026-02-03T04:05:06Z"));
    assert!(hit.age_days.unwrap() >= 0);
    assert_eq!(hit.revision, Some(3));
    assert_eq!(hit.source, mdstore::Source::Verified);

    let json = serde_json::to_value(hit).unwrap();
    let mut keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "age_days",
            "description",
            "id",
            "name",
            "path",
            "revision",
            "score",
            "snippet",
            "source",
            "type",
            "updated"
        ]
    );
    assert!(json["snippet"].is_string());
}

#[test]
fn name_and_description_outrank_the_body() {
    let env = Env::new();
    write_full(
        &env,
        "in-body",
        "project",
        "2026-01-01T00:00:00Z",
        "",
        "Something else",
        "Mentions the wombat once.",
    );
    write_full(
        &env,
        "in-description",
        "project",
        "2026-01-01T00:00:00Z",
        "",
        "All about the wombat",
        "Other text.",
    );
    write_full(
        &env,
        "wombat",
        "project",
        "2026-01-01T00:00:00Z",
        "",
        "Unrelated",
        "Other text.",
    );
    let outcome = env.search("wombat");
    assert_eq!(ids(&outcome).len(), 3);
    assert_eq!(ids(&outcome)[2], "in-body");
    let scores: Vec<f64> = outcome.hits.iter().map(|h| h.score).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
}

#[test]
fn types_tags_and_exclusions_filter() {
    let env = Env::new();
    write_full(
        &env,
        "a",
        "project",
        "2026-01-01T00:00:00Z",
        "ops",
        "wombat one",
        "quokka",
    );
    write_full(
        &env,
        "b",
        "feedback",
        "2026-01-01T00:00:00Z",
        "Ops, dev",
        "wombat two",
        "numbat",
    );
    write_full(
        &env,
        "c",
        "user",
        "2026-01-01T00:00:00Z",
        "dev",
        "wombat three",
        "numbat",
    );
    let mut all = search_types(&env, "wombat", &[]);
    all.sort();
    assert_eq!(all, ["a", "b", "c"]);
    assert_eq!(search_types(&env, "wombat", &[RecordType::Feedback]), ["b"]);
    assert_eq!(search_types(&env, "wombat type:user", &[]), ["c"]);
    // Both restrictions apply.
    assert!(search_types(&env, "wombat type:user", &[RecordType::Feedback]).is_empty());
    let mut tagged = search_types(&env, "wombat tag:ops", &[]);
    tagged.sort();
    assert_eq!(tagged, ["a", "b"], "tags compare without case");
    assert_eq!(search_types(&env, "wombat tag:ops tag:dev", &[]), ["b"]);
    assert_eq!(search_types(&env, "wombat -numbat", &[]), ["a"]);
}

#[test]
fn a_filter_only_query_lists_the_most_recent_first() {
    let env = Env::new();
    write_full(
        &env,
        "old",
        "project",
        "2025-01-01T00:00:00Z",
        "",
        "first",
        "x",
    );
    write_full(
        &env,
        "new",
        "project",
        "2026-06-01T00:00:00Z",
        "",
        "second",
        "x",
    );
    write_full(
        &env,
        "mid",
        "project",
        "2025-06-01T00:00:00Z",
        "",
        "third",
        "x",
    );
    write_full(
        &env,
        "other",
        "user",
        "2026-07-01T00:00:00Z",
        "",
        "fourth",
        "x",
    );
    let outcome = env.search("type:project");
    assert_eq!(ids(&outcome), ["new", "mid", "old"]);
    let scores: Vec<f64> = outcome.hits.iter().map(|h| h.score).collect();
    assert!(scores.iter().all(|s| *s > 0.0), "{scores:?}");
    assert!(scores.windows(2).all(|w| w[0] > w[1]), "{scores:?}");
}

/// One clock a request: a query asked at a time of the caller's ages its
/// hits from that time, not from the index's own reading of the clock.
#[test]
fn hits_are_aged_from_the_time_the_query_was_asked_at() {
    let env = Env::new();
    let updated = "2026-01-01T00:00:00Z";
    write_full(&env, "aged", "project", updated, "", "aged", "x");
    let asked: jiff::Timestamp = "2026-01-11T12:00:00Z".parse().unwrap();
    for text in ["aged", "type:project"] {
        let query = query::parse(text).unwrap().at(asked);
        let outcome =
            mdindex::search_store(&env.store, &env.cache, &query, 10, &[], &mut |_| {}).unwrap();
        let hit = &outcome.hits[0];
        assert_eq!(hit.age_days, Some(10), "{text}");
        if text == "type:project" {
            // A filter-only query's score falls with that age: 1 / (1 + 10.5).
            assert!((hit.score - 1.0 / 11.5).abs() < 1e-9, "{}", hit.score);
        }
    }
}

#[test]
fn the_limit_is_kept() {
    let env = Env::new();
    for i in 0..30 {
        env.write(&format!("n{i}"), "wombat");
    }
    let outcome = mdindex::search_store(
        &env.store,
        &env.cache,
        &query::parse("wombat").unwrap(),
        7,
        &[],
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(outcome.hits.len(), 7);
}

#[test]
fn scores_of_a_small_and_a_larger_store_compare() {
    // A small store whose one record is all about the word (which every
    // record of that store contains)...
    let small = Env::new();
    write_full(
        &small,
        "prefer-pytest",
        "feedback",
        "2026-01-01T00:00:00Z",
        "",
        "Tests use pytest, never unittest",
        "Always pytest: pytest fixtures, pytest markers, pytest plugins.",
    );
    // ... against a passing mention in a larger store.
    let large = Env::new();
    for n in 0..20 {
        let aside = if n == 0 {
            " Once tried pytest in a side project."
        } else {
            ""
        };
        write_full(
            &large,
            &format!("note-{n:02}"),
            "user",
            "2026-01-01T00:00:00Z",
            "",
            &format!("Personal note {n}"),
            &format!("Editors, shells, terminals and keyboard layouts, part {n}.{aside}"),
        );
    }
    let strong = small.search("pytest").hits[0].score;
    let passing = large.search("pytest").hits[0].score;
    assert!(strong > passing, "{strong} <= {passing}");
}
