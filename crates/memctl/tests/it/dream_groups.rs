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

/// Issue 25 item 6: four records that differ only in identifiers were
/// planned as corrections retiring three of them (only the 25% cap stopped
/// the plan). A correction changes one attribute of one subject: values
/// changed in two places of the sentence are a template filled in for
/// other subjects. A real correction beside them is still found.
#[test]
fn records_differing_only_in_identifiers_were_planned_as_corrections() {
    let env = TestEnv::new();
    for n in 1..=4 {
        let text = format!("record {n} about omega{n}");
        dated(
            &env,
            &format!("omega{n}"),
            "user",
            &format!("2026-02-0{n}T00:00:00Z"),
            &text,
            &format!("{text}\n"),
        );
    }
    dated(
        &env,
        "service-a",
        "user",
        "2026-02-01T00:00:00Z",
        "Service A listens on port 8001",
        "Service A listens on port 8001.\n",
    );
    dated(
        &env,
        "service-b",
        "user",
        "2026-02-02T00:00:00Z",
        "Service B listens on port 8002",
        "Service B listens on port 8002.\n",
    );
    dated(
        &env,
        "node-old",
        "user",
        "2026-02-01T00:00:00Z",
        "The CI runs on Node 18",
        "The CI runs on Node 18.\n",
    );
    dated(
        &env,
        "node-new",
        "user",
        "2026-02-20T00:00:00Z",
        "The CI runs on Node 22",
        "The CI runs on Node 22.\n",
    );
    let plan = dry_plan(&env);
    let reason = the_correction(&plan, "node-old", "node-new");
    assert!(reason.contains("\"18\" → \"22\""), "{reason}");
    let left = plan["left_alone"].to_string();
    assert!(
        !left.contains("omega") && !left.contains("service-"),
        "{plan:#}"
    );
    // Applied, the store keeps every templated record.
    env.run(&["dream", "--yes"]).assert_success();
    for id in [
        "omega1",
        "omega2",
        "omega3",
        "omega4",
        "service-a",
        "service-b",
        "node-new",
    ] {
        assert!(env.store().join(format!("{id}.md")).is_file(), "{id} went");
    }
    assert!(!env.store().join("node-old.md").exists());
}

/// Issue 25 item 6: `Alice owns the payments module` and `Bob owns the
/// search module` above one body were merged as near-duplicates under one
/// name. Different subjects are not duplicates; two records that only
/// retitle one fact still are.
#[test]
fn different_subjects_were_merged_as_near_duplicates() {
    let env = TestEnv::new();
    let body =
        "Changes to it need the owner's review, and the owner is on call for it during releases.\n";
    dated(
        &env,
        "payments-owner",
        "user",
        "2026-02-01T00:00:00Z",
        "Alice owns the payments module",
        body,
    );
    dated(
        &env,
        "search-owner",
        "user",
        "2026-02-02T00:00:00Z",
        "Bob owns the search module",
        body,
    );
    dated(
        &env,
        "layout",
        "user",
        "2026-02-01T00:00:00Z",
        "Monorepo layout",
        "Services live under services/ and shared libraries under libs/.\n",
    );
    dated(
        &env,
        "layout-again",
        "user",
        "2026-02-02T00:00:00Z",
        "Repository layout",
        "Services live under services/, shared libraries under libs/.\n",
    );
    let plan = dry_plan(&env);
    let ops = operations(&plan);
    assert_eq!(ops.len(), 1, "{plan:#}");
    assert_eq!(ops[0]["op"], "merge", "{plan:#}");
    let merged: Vec<&str> = ops[0]["reads"]
        .as_array()
        .expect("reads")
        .iter()
        .map(|r| r["id"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(merged, ["layout", "layout-again"], "{plan:#}");
}
