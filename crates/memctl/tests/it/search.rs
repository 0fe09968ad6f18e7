//! `memctl search` (SPEC §5): output for people and for scripts, the scopes,
//! the query language, junk that must never be an error, CJK and English
//! word forms.

use std::collections::BTreeSet;

use pretty_assertions::assert_eq;

use crate::env::{Run, TestEnv};
use crate::freshness::set;

/// The keys of one `--json` result, in the order SPEC §5 gives them.
const JSON_KEYS: [&str; 12] = [
    "id",
    "name",
    "type",
    "scope",
    "path",
    "description",
    "snippet",
    "score",
    "updated",
    "age_days",
    "revision",
    "source",
];

/// Snapshots a run with the environment's filters plus the volatile values
/// of search output: BM25 scores and the index file's hashed name and size.
macro_rules! assert_search_snapshot {
    ($env:expr, $run:expr) => {{
        let rendered = $run.render();
        let mut settings = $env.insta_settings();
        crate::search::add_index_filters(&mut settings);
        settings.bind(|| insta::assert_snapshot!(rendered));
    }};
    ($name:expr, $env:expr, $run:expr) => {{
        let rendered = $run.render();
        let mut settings = $env.insta_settings();
        crate::search::add_index_filters(&mut settings);
        settings.bind(|| insta::assert_snapshot!($name, rendered));
    }};
}
pub(crate) use assert_search_snapshot;

/// Used by [`assert_search_snapshot`], which other modules call too.
pub fn add_index_filters(settings: &mut insta::Settings) {
    settings.add_filter(r#""score": [-+0-9.eE]+"#, r#""score": [SCORE]"#);
    settings.add_filter(r"\b[0-9a-f]{16}\.sqlite\b", "[HASH].sqlite");
    settings.add_filter(r"\b\d+\.\d MiB\b", "[SIZE] MiB");
}

/// A record with `updated` set `minutes_ago` minutes back (still today), so
/// that results which tie on relevance come out in a known order.
fn dated_record(
    id: &str,
    record_type: &str,
    description: &str,
    tags: &[&str],
    body: &str,
    minutes_ago: i64,
) -> String {
    let updated =
        jiff::Timestamp::from_second(jiff::Timestamp::now().as_second() - 60 * minutes_ago)
            .expect("a time");
    let tags = if tags.is_empty() {
        String::new()
    } else {
        format!("tags: [{}]\n", tags.join(", "))
    };
    format!(
        "---\nname: {id}\ndescription: {description}\ntype: {record_type}\n{tags}\
         created: {updated}\nupdated: {updated}\nrevision: 2\nsource: verified\n---\n{body}\n"
    )
}

/// A workspace store and a global store with records in English, Chinese,
/// Japanese and Korean.
pub(crate) fn world() -> TestEnv {
    let env = TestEnv::new();
    let workspace: [(&str, &str, &str, &[&str], &str); 7] = [
        (
            "prefer-pytest",
            "feedback",
            "Tests in this project use pytest, never unittest",
            &["python", "testing"],
            "测试一律用 pytest。New test files use pytest fixtures.",
        ),
        (
            "deploy-freeze",
            "project",
            "No deploys on Fridays",
            &["release"],
            "The deploy freeze starts Friday noon; hotfixes need two reviews.",
        ),
        (
            "deploy-checklist",
            "project",
            "What to run before a release",
            &["release"],
            "Run the smoke suite, then deploy with make release. Never freeze the lockfile by hand.",
        ),
        (
            "review-language",
            "feedback",
            "Code review comments in Japanese",
            &[],
            "テストは必ず書くこと。レビューは日本語で書く。",
        ),
        (
            "staging-server",
            "reference",
            "Where the Korean team's staging server is",
            &[],
            "테스트 서버는 staging.example.com 입니다.",
        ),
        (
            "cafe-hours",
            "reference",
            "The café downstairs opens at eight",
            &[],
            "Coffee before the stand-up.",
        ),
        (
            "who",
            "user",
            "The user is a Rust developer",
            &[],
            "Ten years of Rust; reads Go.",
        ),
    ];
    for (n, (id, kind, description, tags, body)) in workspace.iter().enumerate() {
        env.write_store_file(
            &format!("{id}.md"),
            &dated_record(id, kind, description, tags, body, 10 + n as i64),
        );
    }
    let global = env.global_store();
    std::fs::create_dir_all(&global).expect("the global store");
    for (n, (id, kind, description, body)) in [
        (
            "editor",
            "user",
            "Uses helix as the editor",
            "Edits in helix; runs tests with pytest from a fish shell.",
        ),
        (
            "shell",
            "user",
            "Prefers the fish shell",
            "Fish, not bash, for interactive work.",
        ),
    ]
    .iter()
    .enumerate()
    {
        std::fs::write(
            global.join(format!("{id}.md")),
            dated_record(id, kind, description, &[], body, 30 + n as i64),
        )
        .expect("a global record");
    }
    // Build both indexes now, so that each test's first search does not
    // print the "index rebuilt" lines that belong to the index tests.
    env.run(&["reindex"]).assert_success();
    env
}

pub(crate) fn search(env: &TestEnv, args: &[&str]) -> Run {
    let mut full = vec!["search"];
    full.extend_from_slice(args);
    env.run(&full)
}

/// `search --json ARGS`, asserted to exit 0 or 1, as `(id, scope)` pairs.
#[track_caller]
pub(crate) fn hits(env: &TestEnv, args: &[&str]) -> Vec<(String, String)> {
    let mut full = vec!["--json"];
    full.extend_from_slice(args);
    let run = search(env, &full);
    assert!(run.code == 0 || run.code == 1, "{}", run.render());
    assert_eq!(run.code == 1, run.stdout.trim() == "[]", "{}", run.render());
    run.hits()
}

#[track_caller]
pub(crate) fn ids(env: &TestEnv, args: &[&str]) -> BTreeSet<String> {
    hits(env, args).into_iter().map(|(id, _)| id).collect()
}

#[test]
fn results_show_id_scope_type_age_description_and_a_marked_snippet() {
    let env = world();
    let run = search(&env, &["pytest"]);
    run.assert_success();
    assert_eq!(
        run.stderr, "",
        "a search of a fresh index says nothing on stderr"
    );
    assert_search_snapshot!(env, run);
}

#[test]
fn no_match_exits_1_and_says_so() {
    let env = world();
    let run = search(&env, &["zeppelin"]);
    run.assert_code(1);
    assert_search_snapshot!(env, run);

    let json = search(&env, &["--json", "zeppelin"]);
    json.assert_code(1);
    assert_eq!(json.stdout, "[]\n", "{}", json.render());
}

#[test]
fn json_has_the_spec_keys_in_the_spec_order() {
    let env = world();
    let run = search(&env, &["--json", "pytest"]);
    run.assert_success();
    let json = run.json();
    let rows = json.as_array().expect("an array");
    assert_eq!(rows.len(), 2, "{}", run.render());
    for row in rows {
        let keys: Vec<&str> = row
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, JSON_KEYS);
        let score = row["score"].as_f64().expect("a numeric score");
        assert!(score > 0.0, "{row}");
    }
    assert_eq!(rows[0]["revision"], 2);
    assert_eq!(rows[0]["source"], "verified");
    assert_eq!(rows[0]["age_days"], 0);
    assert_search_snapshot!(env, run);
}

#[test]
fn snippets_mark_matches_with_brackets_and_no_colour_codes() {
    let env = world();
    let plain = search(&env, &["helix"]);
    plain.assert_success();
    assert!(
        plain.stdout.contains("Edits in [helix];"),
        "{}",
        plain.render()
    );
    assert!(!plain.all_output().contains('\x1b'), "{}", plain.render());

    // The same search with colour asked for marks with colour, not brackets:
    // proof that the brackets above are the no-colour rendering.
    let coloured = search(&env, &["--color", "always", "helix"]);
    coloured.assert_success();
    assert!(coloured.stdout.contains("\x1b["), "{}", coloured.render());
    assert!(
        !coloured.stdout.contains("[helix]"),
        "{}",
        coloured.render()
    );

    // On a terminal NO_COLOR (set in every run) still gives brackets.
    let terminal = env.run_in_terminal(&["search", "helix"], "");
    terminal.assert_success();
    assert!(
        terminal.stdout.contains("Edits in [helix];"),
        "{}",
        terminal.render()
    );
}

#[test]
fn both_stores_are_searched_together_and_each_hit_is_labelled() {
    let env = world();
    let run = search(&env, &["fish", "OR", "pytest"]);
    run.assert_success();
    for line in [
        "prefer-pytest (workspace · feedback, today)",
        "editor (global · user, today)",
        "shell (global · user, today)",
    ] {
        assert!(run.stdout.contains(line), "no {line:?}\n{}", run.render());
    }
    let all = hits(&env, &["pytest"]);
    assert_eq!(
        all.iter().cloned().collect::<BTreeSet<_>>(),
        [
            ("editor".to_string(), "global".to_string()),
            ("prefer-pytest".to_string(), "workspace".to_string()),
        ]
        .into_iter()
        .collect()
    );
}

#[test]
fn scope_option_query_filter_and_global_flag_pick_the_stores() {
    let env = world();
    let pytest_in = |scopes: &[&str]| -> BTreeSet<(String, String)> {
        [("prefer-pytest", "workspace"), ("editor", "global")]
            .into_iter()
            .filter(|(_, s)| scopes.contains(s))
            .map(|(id, s)| (id.to_string(), s.to_string()))
            .collect()
    };
    let cases: [(&[&str], &[&str]); 8] = [
        (&["pytest"], &["workspace", "global"]),
        (&["--scope", "all", "pytest"], &["workspace", "global"]),
        (&["--scope", "workspace", "pytest"], &["workspace"]),
        (&["--scope", "global", "pytest"], &["global"]),
        (&["scope:global", "pytest"], &["global"]),
        (&["pytest", "scope:workspace"], &["workspace"]),
        (&["--global", "pytest"], &["global"]),
        (&["pytest", "--global"], &["global"]),
    ];
    for (args, scopes) in cases {
        let found: BTreeSet<_> = hits(&env, args).into_iter().collect();
        assert_eq!(found, pytest_in(scopes), "search {args:?}");
    }
}

#[test]
fn type_and_tag_filters() {
    let env = world();
    assert_eq!(
        ids(&env, &["--type", "project", "deploy"]),
        set(&["deploy-checklist", "deploy-freeze"])
    );
    assert_eq!(
        ids(&env, &["-t", "feedback", "deploy"]),
        set(&[]),
        "no feedback record mentions deploy"
    );
    assert_eq!(
        ids(&env, &["type:feedback", "tests"]),
        set(&["prefer-pytest"])
    );
    assert_eq!(ids(&env, &["type:user"]), set(&["who", "editor", "shell"]));
    assert_eq!(
        ids(&env, &["tag:release"]),
        set(&["deploy-checklist", "deploy-freeze"])
    );
    assert_eq!(
        ids(&env, &["tag:release", "friday"]),
        set(&["deploy-freeze"])
    );
    assert_eq!(ids(&env, &["tag:python", "--type", "project"]), set(&[]));
}

#[test]
fn must_must_not_phrase_and_prefix() {
    let env = world();
    // Free words are alternatives.
    assert_eq!(
        ids(&env, &["deploy", "freeze"]),
        set(&["deploy-checklist", "deploy-freeze"])
    );
    assert_eq!(ids(&env, &["deploy", "+hotfixes"]), set(&["deploy-freeze"]));
    // `-freeze` is a query word, not an unknown option.
    let not = search(&env, &["deploy", "-hotfix"]);
    not.assert_success();
    assert!(
        not.stdout.starts_with("deploy-checklist "),
        "{}",
        not.render()
    );
    assert!(!not.stdout.contains("deploy-freeze"), "{}", not.render());
    assert_eq!(
        ids(&env, &["deploy", "-freeze"]),
        set(&[]),
        "both deploy records mention a freeze"
    );
    // A phrase must match as written: "freeze the lockfile" is not "deploy freeze".
    assert_eq!(ids(&env, &["\"deploy freeze\""]), set(&["deploy-freeze"]));
    assert_eq!(
        ids(&env, &["\"freeze the lockfile\""]),
        set(&["deploy-checklist"])
    );
    assert_eq!(
        ids(&env, &["-\"deploy freeze\"", "release"]),
        set(&["deploy-checklist"])
    );
    assert_eq!(
        ids(&env, &["hotfix*"]),
        set(&["deploy-freeze"]),
        "a prefix matches a longer word"
    );
    assert_eq!(ids(&env, &["pyt*"]), set(&["prefer-pytest", "editor"]));
    assert_eq!(
        ids(&env, &["unitt"]),
        set(&[]),
        "without * a prefix is a word"
    );
}

#[test]
fn junk_is_searched_for_and_is_never_an_error() {
    let env = world();
    let junk = [
        "\"unbalanced",
        "NEAR(",
        "NEAR(deploy freeze, 2)",
        "AND",
        "OR",
        "NOT",
        "*",
        "-",
        "--",
        "+",
        "\"",
        "\"\"",
        "(",
        ")",
        ":",
        "^deploy",
        "deploy:",
        "type:",
        "tag:",
        "scope:",
        "{id name}: x",
        "id:deploy-freeze",
        "body:freeze",
        "a*b",
        "***",
        "-\"",
        "+\"\"",
        "--json=x",
        "'",
        "\\",
        "%",
        "😀",
        "деплой",
        "",
        " ",
    ];
    for query in junk {
        let run = search(&env, &[query]);
        // Junk without a word in it is refused as such, never a crash.
        let nothing = run.code == 2 && run.stderr.contains("nothing to search for");
        assert!(
            run.code == 0 || run.code == 1 || nothing,
            "query {query:?}\n{}",
            run.render()
        );
        assert!(
            nothing || !run.stderr.contains("error"),
            "query {query:?}\n{}",
            run.render()
        );
    }
    let together = search(&env, &junk);
    assert!(
        together.code == 0 || together.code == 1,
        "{}",
        together.render()
    );
    let json = search(
        &env,
        &["--json", "\"unbalanced", "NEAR(", "AND", "*", "-", "--"],
    );
    assert!(json.code == 0 || json.code == 1, "{}", json.render());
    json.json();
}

#[test]
fn query_with_nothing_to_search_exits_2() {
    let env = world();
    for query in ["(", "*", "\"", "", "-", "   ", "***"] {
        let run = search(&env, &[query]);
        run.assert_code(2);
        assert!(
            run.stderr.contains("nothing to search for"),
            "query {query:?}\n{}",
            run.render()
        );
        assert_eq!(run.stdout, "", "query {query:?}");
    }
    assert_search_snapshot!(env, search(&env, &["("]));
    // Filters alone list what they select.
    assert_eq!(
        ids(&env, &["type:project"]),
        ids(&env, &["--type", "project", ""])
    );
    assert!(!ids(&env, &["type:project"]).is_empty());
}

#[test]
fn unknown_type_filter_exits_2() {
    let env = world();
    let run = search(&env, &["deploy", "type:bogus"]);
    run.assert_code(2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("user, feedback, project, reference"),
        "{}",
        run.render()
    );
    assert_search_snapshot!(env, run);
    let scope = search(&env, &["scope:nowhere"]);
    scope.assert_code(2);
    assert!(
        scope.stderr.contains("workspace, global, all"),
        "{}",
        scope.render()
    );
    // Quoted, it is text.
    search(&env, &["\"type:bogus\""]).assert_code(1);
}

#[test]
fn limit_caps_the_results() {
    let env = world();
    assert_eq!(hits(&env, &["--limit", "1", "pytest"]).len(), 1);
    assert_eq!(hits(&env, &["-n", "3", "type:user"]).len(), 3);
    assert_eq!(hits(&env, &["-n", "2", "type:user"]).len(), 2);
}

/// Results of the two stores merge by score, but BM25 scores of stores of
/// different sizes are not comparable: in a small store a word that most of
/// its records contain gets FTS5's floor IDF (1e-6), so a record that is all
/// about the word sinks below a passing mention in a larger store.
#[test]
fn a_strong_match_in_a_small_store_ranks_above_a_passing_mention_in_a_large_one() {
    let env = TestEnv::new();
    env.write_record(
        "prefer-pytest",
        "feedback",
        "Tests use pytest, never unittest",
        "Always pytest: pytest fixtures, pytest markers, pytest plugins.",
    );
    for n in 0..20 {
        let aside = if n == 0 {
            " Once tried pytest in a side project."
        } else {
            ""
        };
        env.write_global_record(
            &format!("note-{n:02}"),
            "user",
            &format!("Personal note {n}"),
            &format!("Editors, shells, terminals and keyboard layouts, part {n}.{aside}"),
        );
    }
    let run = search(&env, &["--json", "pytest"]);
    run.assert_success();
    assert_eq!(
        run.hits(),
        [
            ("prefer-pytest".to_string(), "workspace".to_string()),
            ("note-00".to_string(), "global".to_string())
        ],
        "{}",
        run.stdout
    );
}
