//! `memctl list` and `memctl show`, in text and JSON, over good, broken and
//! odd files.

use std::fs;

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::env::TestEnv;

/// A frontmatter that strict YAML rejects (an unquoted `: ` in a value).
pub const BROKEN_YAML: &str = "---\nname: broken\ndescription: Use this: not that\ntype: project\n---\nThe body of a broken file.\n";

fn three_records(env: &TestEnv) {
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    env.remember(
        "ci-cache",
        "project",
        "CI caches cargo",
        "Keyed on Cargo.lock.",
    );
    env.remember(
        "who",
        "user",
        "The user is a Rust developer",
        "Ten years of Rust.",
    );
}

fn json_of(run: &crate::env::Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", run.render()))
}

#[test]
fn list_shows_every_record() {
    let env = TestEnv::new();
    three_records(&env);
    let run = env.run(&["list"]);
    run.assert_success();
    assert_run_snapshot!(env, run);
}

#[test]
fn list_filters_by_type() {
    let env = TestEnv::new();
    three_records(&env);
    let run = env.run(&["list", "--type", "project"]);
    run.assert_success();
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.render());
    assert!(run.stdout.contains("ci-cache"));
}

#[test]
fn list_json_has_every_field() {
    let env = TestEnv::new();
    three_records(&env);
    let run = env.run(&["list", "--json"]);
    run.assert_success();
    let rows = json_of(&run);
    let ids: Vec<&str> = rows
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(ids, ["ci-cache", "prefer-pytest", "who"]);
    assert_run_snapshot!(env, run);
}

#[test]
fn list_still_lists_a_broken_file_and_reports_unreadable_ones() {
    let env = TestEnv::new();
    three_records(&env);
    env.write_store_file("broken.md", BROKEN_YAML);
    env.write_store_file(
        "no-frontmatter.md",
        "# Deploy notes\n\nDeploys go out on Tuesdays.\n",
    );
    fs::write(
        env.store().join("latin1.md"),
        b"---\nname: latin1\ndescription: caf\xe9\n---\n",
    )
    .expect("file");
    fs::write(env.store().join("big.md"), "x".repeat(300 * 1024)).expect("file");
    let before = env.store_bytes();
    let run = env.run(&["list"]);
    run.assert_success();
    assert_run_snapshot!(env, run);
    let json = env.run(&["list", "--json"]);
    let ids: Vec<String> = json_of(&json)
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|r| r["id"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        ids,
        [
            "broken",
            "ci-cache",
            "no-frontmatter",
            "prefer-pytest",
            "who"
        ]
    );
    assert_eq!(env.store_bytes(), before, "reading changes nothing");
}

#[test]
fn list_ignores_dotfiles_memory_md_and_leftover_temp_files() {
    let env = TestEnv::new();
    three_records(&env);
    env.write_store_file(".abc123.memctl-tmp", "---\nname: half\ndescr");
    env.write_store_file(
        ".notes.md",
        "---\nname: notes\ndescription: hidden\ntype: project\n---\n",
    );
    env.write_store_file(
        ".git/info.md",
        "---\nname: info\ndescription: hidden\ntype: project\n---\n",
    );
    env.write_store_file("memory.MD", "# a second catalogue\n");
    let run = env.run(&["list", "--json"]);
    run.assert_success();
    assert_eq!(
        json_of(&run).as_array().expect("an array").len(),
        3,
        "{}",
        run.render()
    );
    assert!(
        !run.stderr.contains("memctl-tmp") && !run.stderr.contains("memory.MD"),
        "{}",
        run.render()
    );
}

#[test]
fn list_labels_scopes_when_there_are_two_stores() {
    let env = TestEnv::new();
    three_records(&env);
    env.remembering_unnamed()
        .global()
        .name("editor")
        .kind("user")
        .description("Uses helix")
        .body("Helix.")
        .ok();
    let run = env.run(&["list"]);
    run.assert_success();
    assert_run_snapshot!(env, run);
    let global_only = env.run(&["list", "--global", "--json"]);
    assert_eq!(json_of(&global_only).as_array().expect("an array").len(), 1);
}

#[test]
fn list_without_any_store_says_how_to_make_one() {
    let env = TestEnv::bare();
    let run = env.run(&["list"]);
    // As search and check do with no store (issue 28: list said 0).
    run.assert_code(2);
    assert_run_snapshot!(env, run);
    for command in [&["search", "x"][..], &["check"], &["list", "--json"]] {
        env.run(command).assert_code(2);
    }
    assert!(
        !env.store().exists() && !env.global_store().exists(),
        "reading created a store"
    );
}

#[test]
fn show_prints_the_file_as_it_is() {
    let env = TestEnv::new();
    three_records(&env);
    let run = env.run(&["show", "prefer-pytest"]);
    run.assert_success();
    assert_eq!(run.stdout, env.read_store_file("prefer-pytest.md"));
    assert_run_snapshot!(env, run);
}

#[test]
fn show_finds_an_id_in_any_case() {
    let env = TestEnv::new();
    three_records(&env);
    let run = env.run(&["show", "PREFER-Pytest"]);
    run.assert_success();
    assert_eq!(run.stdout, env.read_store_file("prefer-pytest.md"));
}

#[test]
fn show_json_has_every_field() {
    let env = TestEnv::new();
    env.remembering("prefer-pytest")
        .kind("feedback")
        .description("Tests use pytest")
        .tag("tests")
        .expires("2030-01-31")
        .source("verified")
        .body("New tests use pytest.")
        .ok();
    let run = env.run(&["show", "--json", "prefer-pytest"]);
    run.assert_success();
    let value = json_of(&run);
    assert_eq!(value["body"], "New tests use pytest.\n");
    assert_eq!(value["revision"], 1);
    assert_eq!(value["source"], "verified");
    assert_eq!(value["problems"], Value::Array(Vec::new()));
    assert_run_snapshot!(env, run);
}

#[test]
fn show_json_of_a_broken_file_lists_its_problems() {
    let env = TestEnv::new();
    env.write_store_file("broken.md", BROKEN_YAML);
    let run = env.run(&["show", "--json", "broken"]);
    run.assert_success();
    let value = json_of(&run);
    assert_eq!(value["description"], "Use this: not that");
    assert_eq!(value["type"], "project");
    let problems = value["problems"].as_array().expect("problems");
    assert!(problems.iter().any(|p| p["line"] == 3), "{}", run.render());
}

#[test]
fn show_of_an_unknown_id_is_bad_input() {
    let env = TestEnv::new();
    let run = env.run(&["show", "nothing-here"]);
    run.assert_code(2);
    assert_run_snapshot!(env, run);
}

#[test]
fn show_falls_back_to_the_global_store() {
    let env = TestEnv::new();
    env.remembering_unnamed()
        .global()
        .name("editor")
        .kind("user")
        .description("Uses helix")
        .body("Helix.")
        .ok();
    let run = env.run(&["show", "--json", "editor"]);
    run.assert_success();
    assert_eq!(json_of(&run)["scope"], "global");
}

#[test]
fn show_oversized_record_says_why() {
    let env = TestEnv::new();
    fs::write(
        env.store().join("huge.md"),
        format!(
            "---\nname: huge\ndescription: Big\ntype: project\n---\n{}\n",
            "x".repeat(300 * 1024)
        ),
    )
    .expect("file");
    let run = env.run(&["show", "huge"]);
    run.assert_code(2);
    assert_run_snapshot!(env, run);
    assert!(
        run.stderr.contains("huge.md: larger than 256 KiB"),
        "{}",
        run.render()
    );
    assert!(!run.stderr.contains("no record"), "{}", run.render());
}

#[test]
fn show_record_that_is_not_text_says_why() {
    let env = TestEnv::new();
    fs::write(
        env.store().join("latin1.md"),
        b"---\nname: latin1\ndescription: caf\xe9\n---\n",
    )
    .expect("file");
    fs::write(
        env.store().join("nul.md"),
        b"---\nname: nul\ndescription: a\0b\n---\n",
    )
    .expect("file");
    for (id, why) in [
        ("latin1", "not valid UTF-8"),
        ("nul", "contains a NUL byte"),
    ] {
        let run = env.run(&["show", id]);
        run.assert_code(2);
        assert!(
            run.stderr.contains(&format!("{id}.md: {why}")),
            "{}",
            run.render()
        );
    }
}

/// A hand-written record whose name, description and tags hold terminal
/// escapes: a window-title change (OSC), a colour (CSI) and a C1 CSI.
pub const HOSTILE_RECORD: &str = "---\nname: \"hostile\\e[2J\"\ndescription: \"retitle \\e]0;TITLE\\a and \\e[31mred\\x9b0m\"\ntype: project\ntags: [\"tag\\e[5m\"]\n---\nThe body says \u{1b}[31mred\u{1b}[0m too.\n";

#[test]
fn terminal_escape_in_description_is_shown_escaped() {
    let env = TestEnv::new();
    env.write_store_file("hostile.md", HOSTILE_RECORD);
    for args in [
        &["list"][..],
        &["show", "hostile"],
        &["search", "retitle"],
        &["check"],
        &["status"],
    ] {
        let run = env.run(args);
        let raw = run
            .all_output()
            .chars()
            .find(|&c| c.is_control() && c != '\n');
        assert_eq!(raw, None, "a raw control character\n{}", run.render());
    }
    let list = env.run(&["list"]);
    assert!(
        list.stdout
            .contains(r"retitle \x1b]0;TITLE\x07 and \x1b[31mred\x9b0m"),
        "{}",
        list.render()
    );
    let show = env.run(&["show", "hostile"]);
    assert!(
        show.stdout
            .contains(r"The body says \x1b[31mred\x1b[0m too."),
        "{}",
        show.render()
    );
    let search = env.run(&["search", "retitle"]);
    assert!(
        search.stdout.contains(r"retitle \x1b]0;TITLE\x07"),
        "{}",
        search.render()
    );
    // JSON is for programs: the text is there whole, escaped by JSON itself.
    let json = env.run(&["list", "--json"]);
    assert_eq!(
        json_of(&json)[0]["description"],
        "retitle \u{1b}]0;TITLE\u{7} and \u{1b}[31mred\u{9b}0m"
    );
}

#[test]
fn list_columns_align_with_cjk() {
    let env = TestEnv::new();
    env.write_record("한국어-메모", "user", "Korean id", "본문.");
    env.write_record("ab", "user", "Latin id", "Body.");
    env.write_record("a-much-longer-latin-id", "project", "Longer id", "Body.");
    let run = env.run(&["list"]);
    run.assert_success();
    // Each description starts at the same display column; Hangul takes two.
    let columns: Vec<usize> = run
        .stdout
        .lines()
        .map(|line| {
            let (before, _) = line.split_once(" id").expect("a description");
            let (before, _) = before.rsplit_once(' ').expect("a word before");
            before
                .chars()
                .map(|c| {
                    if ('\u{ac00}'..='\u{d7a3}').contains(&c) {
                        2
                    } else {
                        1
                    }
                })
                .sum()
        })
        .collect();
    assert_eq!(columns.len(), 3, "{}", run.render());
    assert!(
        columns.iter().all(|&c| c == columns[0]),
        "{columns:?}\n{}",
        run.render()
    );
    assert_run_snapshot!(env, run);
}

#[test]
fn long_description_is_cut_in_human_output() {
    let mut env = TestEnv::new();
    let long = "word ".repeat(2_000);
    env.write_record("long", "project", long.trim_end(), "Body.");
    env.write_record("short", "project", "Short", "Body.");
    // Not a terminal: 100 columns unless $COLUMNS says otherwise.
    for (columns, width) in [(None, 100), (Some("60"), 60)] {
        if let Some(columns) = columns {
            env.set_var("COLUMNS", columns);
        }
        let run = env.run(&["list"]);
        run.assert_success();
        let line = run.stdout.lines().next().expect("the long record's line");
        assert_eq!(line.chars().count(), width, "{line}");
        assert!(line.ends_with('…'), "{line}");
        let search = env.run(&["search", "word"]);
        let description = search.stdout.lines().nth(1).expect("a description line");
        assert!(description.chars().count() <= width, "{description}");
        assert!(description.ends_with('…'), "{description}");
    }
    let json = env.run(&["list", "--json"]);
    assert_eq!(json_of(&json)[0]["description"], long.trim_end());
}

#[test]
fn color_is_decided_per_stream_by_the_usual_variables() {
    let mut env = TestEnv::new();
    env.write_record("colour", "user", "Coloured", "Body.");
    env.write_store_file("broken.md", "\u{0}");
    // NO_COLOR (set by the test environment) and no terminal: no colour.
    let plain = env.run(&["list"]);
    assert!(!plain.all_output().contains('\u{1b}'), "{}", plain.render());
    // --color always: both streams.
    let always = env.run(&["list", "--color", "always"]);
    assert!(
        always.stdout.contains("\u{1b}[1mcolour"),
        "{}",
        always.render()
    );
    assert!(
        always.stderr.contains("\u{1b}[33mwarning:"),
        "{}",
        always.render()
    );
    // CLICOLOR_FORCE without NO_COLOR: anstream's rule, not a terminal needed.
    env.set_var("NO_COLOR", "");
    env.set_var("CLICOLOR_FORCE", "1");
    let forced = env.run(&["list"]);
    assert!(
        forced.stdout.contains("\u{1b}[1mcolour"),
        "{}",
        forced.render()
    );
    let never = env.run(&["list", "--color", "never"]);
    assert!(!never.all_output().contains('\u{1b}'), "{}", never.render());
}
