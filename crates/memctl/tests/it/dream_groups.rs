//! `memctl dream` finding what users write (issue 15, item 5): a correction
//! whose value is in both the description and the body, and three copies
//! of one fact, through the real binary.

use crate::env::TestEnv;

/// A record as memctl writes one, with a source and a date.
fn dated(env: &TestEnv, id: &str, source: &str, updated: &str, description: &str, body: &str) {
    env.write_store_file(
        &format!("{id}.md"),
        &format!(
            "---\nname: {id}\ndescription: {description}\ntype: project\ncreated: 2026-01-01T00:00:00Z\nupdated: {updated}\nrevision: 1\nsource: {source}\n---\n{body}"
        ),
    );
}

/// The plan of `dream --dry-run --json`, which writes nothing.
fn dry_plan(env: &TestEnv) -> serde_json::Value {
    let before = env.store_bytes();
    let run = env.run(&["dream", "--dry-run", "--json"]);
    run.assert_success();
    assert_eq!(env.store_bytes(), before, "--dry-run wrote");
    run.json()
}

fn operations(plan: &serde_json::Value) -> &Vec<serde_json::Value> {
    plan["operations"].as_array().expect("operations")
}

/// The one correction of `plan`, checked to retire `old` for `new`.
fn the_correction(plan: &serde_json::Value, old: &str, new: &str) -> String {
    let ops = operations(plan);
    assert_eq!(ops.len(), 1, "{plan:#}");
    assert_eq!(ops[0]["op"], "retire", "{plan:#}");
    assert_eq!(ops[0]["finding"], "correction", "{plan:#}");
    assert_eq!(ops[0]["reads"]["id"], old);
    assert_eq!(ops[0]["superseded_by"]["id"], new);
    ops[0]["reason"].as_str().expect("reason").to_string()
}

#[test]
fn correction_in_description_and_body_is_counted_once_not_skipped() {
    let env = TestEnv::new();
    dated(
        &env,
        "freeze-old",
        "user",
        "2026-02-01T00:00:00Z",
        "Deploy freeze until March 1",
        "No deploys to production until March 1.\n",
    );
    dated(
        &env,
        "freeze-new",
        "user",
        "2026-02-20T00:00:00Z",
        "Deploy freeze until April 15",
        "No deploys to production until April 15.\n",
    );
    let reason = the_correction(&dry_plan(&env), "freeze-old", "freeze-new");
    assert_eq!(
        reason,
        "corrected: \"until March\" → \"until April\", \"1\" → \"15\"; freeze-new (2026-02-20) is newer than freeze-old (2026-02-01)"
    );
}

#[test]
fn chinese_correction_in_description_and_body_is_counted_once_not_skipped() {
    let env = TestEnv::new();
    dated(
        &env,
        "freeze-old",
        "user",
        "2026-02-01T00:00:00Z",
        "部署冻结到3月1日",
        "部署冻结到3月1日，之前不要发版。\n",
    );
    dated(
        &env,
        "freeze-new",
        "user",
        "2026-02-20T00:00:00Z",
        "部署冻结到4月15日",
        "部署冻结到4月15日，之前不要发版。\n",
    );
    let reason = the_correction(&dry_plan(&env), "freeze-old", "freeze-new");
    assert_eq!(
        reason,
        "corrected: \"3\" → \"4\", \"1\" → \"15\"; freeze-new (2026-02-20) is newer than freeze-old (2026-02-01)"
    );
}

/// Two copies of a fact on two lines and a third with both sentences on
/// one line, among six other facts (so that `--max-delete-pct`'s default
/// allows the merge to remove two records).
fn three_copies(env: &TestEnv, third_source: &str) {
    let others = [
        "Releases ship every other Tuesday.",
        "The API listens on port 8080.",
        "Commit messages use the imperative mood.",
        "Logs are structured JSON with a request id.",
        "Schema changes go through a migration.",
        "The user prefers short answers.",
    ];
    for (n, fact) in others.iter().enumerate() {
        dated(
            env,
            &format!("other-{n}"),
            "user",
            "2026-01-01T00:00:00Z",
            fact,
            &format!("{fact}\n"),
        );
    }
    let two_lines = "Use pnpm for installs.\nNever use npm.\n";
    dated(
        env,
        "pnpm-a",
        "user",
        "2026-01-01T00:00:00Z",
        "Use pnpm",
        two_lines,
    );
    dated(
        env,
        "pnpm-b",
        "user",
        "2026-01-02T00:00:00Z",
        "Use pnpm",
        two_lines,
    );
    dated(
        env,
        "pnpm-c",
        third_source,
        "2026-01-03T00:00:00Z",
        "Use pnpm",
        "Use pnpm for installs. Never use npm.\n",
    );
}

#[test]
fn three_copies_one_on_one_line_are_one_merge_not_a_merge_and_a_copy_left_behind() {
    let env = TestEnv::new();
    three_copies(&env, "user");
    let plan = dry_plan(&env);
    let ops = operations(&plan);
    assert_eq!(ops.len(), 1, "{plan:#}");
    assert_eq!(ops[0]["op"], "merge");
    let read: Vec<&str> = ops[0]["reads"]
        .as_array()
        .expect("reads")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    assert_eq!(read, ["pnpm-a", "pnpm-b", "pnpm-c"]);
    assert!(plan.get("left_alone").is_none(), "{plan:#}");
    let shown = env.run(&["dream", "--dry-run"]);
    assert_run_snapshot!(env, shown);
    env.run(&["dream", "--yes"]).assert_success();
    let left: Vec<_> = env
        .store_bytes()
        .into_keys()
        .filter(|p| {
            p.extension().is_some_and(|e| e == "md") && p.to_string_lossy().contains("pnpm")
        })
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
}

#[test]
fn a_less_trusted_copy_in_other_words_is_reported_not_dropped() {
    let env = TestEnv::new();
    three_copies(&env, "inferred");
    let plan = dry_plan(&env);
    let ops = operations(&plan);
    assert_eq!(ops.len(), 1, "{plan:#}");
    assert_eq!(ops[0]["op"], "merge");
    assert_eq!(ops[0]["reads"].as_array().expect("reads").len(), 2);
    let alone = plan["left_alone"].as_array().expect("left_alone");
    assert_eq!(alone.len(), 1, "{plan:#}");
    let named: Vec<&str> = alone[0]["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    assert_eq!(named, ["pnpm-a", "pnpm-b", "pnpm-c"]);
    assert_eq!(
        alone[0]["reason"],
        "pnpm-c says the same as pnpm-a, pnpm-b in other words (word similarity at least 1.00), but is less trusted (inferred under user): merge by hand, keeping the trusted words"
    );
}
