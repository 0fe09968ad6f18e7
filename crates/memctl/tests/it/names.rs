//! The name rules of SPEC §2 through the command line, and ids that try to
//! leave the store.

use std::fs;

use pretty_assertions::assert_eq;

use crate::env::TestEnv;

fn remember_named(env: &TestEnv, name: &str) -> crate::env::Run {
    env.run(&[
        "remember",
        "--yes",
        &format!("--name={name}"),
        "--type",
        "project",
        "--description",
        "A fact about the build",
        "The build uses cargo.",
    ])
}

#[test]
fn each_name_rule_refuses_with_exit_2_and_writes_nothing() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    let too_long = "a".repeat(81);
    let cases: [(&str, &str); 12] = [
        (&too_long, "1 to 80 characters, this one has 81"),
        ("", "1 to 80 characters, this one has 0"),
        ("a..b", "\"..\""),
        ("team/ci-cache", "'/'"),
        ("..\\secrets", "'\\\\'"),
        ("memory", "reserved"),
        ("MEMORY", "reserved"),
        ("con", "reserved"),
        ("lpt9", "reserved"),
        (".hidden", "may not start with '.'"),
        ("-dash", "may not start with '-'"),
        ("tab\there", "control character"),
    ];
    for (name, reason) in cases {
        let run = remember_named(&env, name);
        run.assert_code(2);
        assert!(
            run.stderr.contains(reason),
            "{name:?}: expected {reason:?} in\n{}",
            run.render()
        );
        assert!(run.stderr.contains("invalid name"), "{}", run.render());
        assert_eq!(env.store_bytes(), before, "{name:?} wrote something");
    }
}

#[test]
fn the_name_rules_in_one_snapshot() {
    let env = TestEnv::new();
    for name in ["../escape", "con", ".hidden", "a".repeat(81).as_str()] {
        let run = remember_named(&env, name);
        run.assert_code(2);
        let label = format!(
            "bad_name_{}",
            if name.len() > 20 {
                "too_long"
            } else {
                name.trim_start_matches(['.', '/'])
            }
        );
        assert_run_snapshot!(label, env, run);
    }
}

#[test]
fn the_longest_and_the_non_latin_names_are_accepted() {
    let env = TestEnv::new();
    let longest = "a".repeat(80);
    for name in [
        longest.as_str(),
        "测试-pytest",
        "ci.cache_v2",
        "con-fig",
        "memory-notes",
    ] {
        remember_named(&env, name).assert_success();
        // Same content under a new name is a NOOP; make each one new.
        fs::remove_file(env.store().join(format!("{name}.md")))
            .expect("written under its own name");
    }
    let env = TestEnv::new();
    env.remember(
        "测试-pytest",
        "feedback",
        "测试一律用 pytest",
        "新的测试用 pytest。",
    );
    assert!(env.store().join("测试-pytest.md").is_file());
}

#[test]
fn ids_that_leave_the_store_are_refused_by_every_command() {
    let env = TestEnv::new();
    // A valid record right outside the store: nothing may read, edit or delete it.
    let outside = env.work().join("outside.md");
    let outside_text = "---\nname: outside\ndescription: Not in the store\ntype: project\n---\nOUTSIDE-SECRET-BODY\n";
    fs::write(&outside, outside_text).expect("the outside file");
    let mut env = env;
    env.set_var("EDITOR", "true");
    for id in ["../outside", "/etc/passwd", "..", "sub/../../outside"] {
        for command in ["show", "edit", "forget"] {
            let args: Vec<&str> = match command {
                "forget" => vec![command, "--yes", id],
                _ => vec![command, id],
            };
            let run = env.run(&args);
            run.assert_code(2);
            assert!(
                !run.all_output().contains("OUTSIDE-SECRET-BODY")
                    && !run.all_output().contains("root:"),
                "{}",
                run.render()
            );
        }
    }
    assert_eq!(
        fs::read_to_string(&outside).expect("still there"),
        outside_text
    );
    let run = env.run(&["show", "../outside"]);
    assert_run_snapshot!(env, run);
}

#[test]
fn a_symlink_leading_outside_the_store_is_skipped_and_reported() {
    let env = TestEnv::new();
    let outside = env.work().join("outside.md");
    fs::write(
        &outside,
        "---\nname: link\ndescription: Outside\ntype: project\n---\nOUTSIDE-BODY\n",
    )
    .expect("outside");
    std::os::unix::fs::symlink(&outside, env.store().join("link.md")).expect("a symlink");
    let show = env.run(&["show", "link"]);
    assert_ne!(show.code, 0, "{}", show.render());
    assert!(
        !show.all_output().contains("OUTSIDE-BODY"),
        "{}",
        show.render()
    );
    let list = env.run(&["list"]);
    list.assert_success();
    assert!(
        list.stderr.contains("link.md") && list.stderr.contains("outside the store"),
        "{}",
        list.render()
    );
    assert!(!list.stdout.contains("link"), "{}", list.render());
    let check = env.run(&["check"]);
    check.assert_code(1);
    assert!(
        check
            .stdout
            .contains("link.md: error: a symlink that leads outside the store"),
        "{}",
        check.render()
    );
}

#[test]
fn cyrillic_lookalike_name_is_refused() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    // Cyrillic р, а, у, р, а and a Latin l: it reads as "paypal".
    let run = remember_named(&env, "\u{440}\u{430}\u{443}\u{440}\u{430}l");
    run.assert_code(2);
    assert!(
        run.stderr.contains("may not mix scripts") && run.stderr.contains("U+006C"),
        "{}",
        run.render()
    );
    assert_eq!(env.store_bytes(), before);
    // One script a name is fine, Japanese mixing Han and kana too.
    for name in ["привет", "日本語のメモ", "한국어-pytest"] {
        remember_named(&env, name).assert_success();
        fs::remove_file(env.store().join(format!("{name}.md"))).expect("written");
    }
}

#[test]
fn fullwidth_name_is_the_same_record() {
    let env = TestEnv::new();
    env.remember("fullwidth", "project", "Half-width first", "One.");
    let run = env.remember("ｆｕｌｌｗｉｄｔｈ", "project", "Full-width second", "Two.");
    assert!(run.stdout.contains("UPDATE fullwidth"), "{}", run.render());
    let records: Vec<_> = fs::read_dir(env.store())
        .expect("the store")
        .map(|e| e.expect("an entry").file_name())
        .filter(|n| n != "MEMORY.md")
        .collect();
    assert_eq!(records, ["fullwidth.md"]);
    assert!(
        env.read_store_file("fullwidth.md")
            .contains("Full-width second")
    );
}

#[test]
fn name_with_md_extension_is_not_doubled() {
    let env = TestEnv::new();
    remember_named(&env, "notes.md").assert_success();
    assert!(env.store().join("notes.md").is_file());
    assert!(!env.store().join("notes.md.md").exists());
    env.run(&["show", "notes"]).assert_success();
}

#[test]
fn long_name_is_not_echoed_whole_by_show() {
    let env = TestEnv::new();
    let long = "a".repeat(5_000);
    let run = env.run(&["show", &long]);
    run.assert_code(2);
    assert!(
        run.stderr.contains(&format!("\"{}…\"", "a".repeat(39))),
        "{}",
        run.render()
    );
    assert!(!run.stderr.contains(&"a".repeat(41)), "{}", run.render());
}

#[test]
fn long_name_is_not_echoed_whole_by_remember() {
    let env = TestEnv::new();
    let run = remember_named(&env, &"a".repeat(5_000));
    run.assert_code(2);
    assert!(run.stderr.contains("this one has 5000"), "{}", run.render());
    assert!(!run.stderr.contains(&"a".repeat(41)), "{}", run.render());
}
