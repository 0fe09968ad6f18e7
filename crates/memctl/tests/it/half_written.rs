//! Issue 6, point 2: nothing half-written. Everything that can be checked is
//! checked before the first byte is written; a batch refuses only its bad
//! candidates; when MEMORY.md cannot follow a saved record, memctl says
//! exactly what was saved, and the next write repairs it (SPEC §6).

use std::fs;

use serde_json::{Value, json};

use crate::env::TestEnv;

fn remember_args<'a>(name: &'a str, description: &'a str) -> Vec<&'a str> {
    vec![
        "remember",
        "--yes",
        "--name",
        name,
        "--type",
        "project",
        "--description",
        description,
    ]
}

fn json_file(env: &TestEnv, name: &str, text: &str) -> String {
    let path = env.root().join(name);
    fs::write(&path, text).expect("the candidates file");
    path.display().to_string()
}

#[test]
fn nul_byte_in_body_from_stdin_leaves_no_file() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    let mut args = remember_args("nb", "a body with a NUL");
    args.push("-");
    let run = env.run_stdin(&args, "a\0b");
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("the body holds the control character U+0000 on line 1"),
        "{}",
        run.render()
    );
    assert!(!env.store().join("nb.md").exists());
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn nul_byte_in_json_body_leaves_no_file() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    let value = json!([{"name": "nb", "type": "project", "description": "d", "body": "a\u{0}b"}]);
    let path = json_file(&env, "nb.json", &value.to_string());
    let run = env.remembering_unnamed().candidates_from(&path).run();
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("candidate 1 (\"nb\"): the body holds the control character U+0000"),
        "{}",
        run.render()
    );
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn terminal_escapes_in_a_description_are_refused() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    for description in ["\x1b]0;TITLE\x07 retitled", "\x1b[31mred", "del \x7f char"] {
        let mut args = remember_args("esc", description);
        args.push("body");
        let run = env.run(&args);
        run.assert_code(2);
        assert!(
            run.stderr
                .contains("the description holds the control character"),
            "{}",
            run.render()
        );
        assert!(
            !run.stderr.contains('\x1b'),
            "the escape was echoed raw: {:?}",
            run.stderr
        );
    }
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn empty_or_multiline_tag_is_refused() {
    let env = TestEnv::new();
    let before = env.store_bytes();
    for (tag, said) in [
        ("", "tag 1 is empty"),
        ("a\nb", "the tag holds the control character U+000A"),
    ] {
        let mut args = remember_args("tagged", "tagged");
        args.extend(["--tag", tag, "body"]);
        let run = env.run(&args);
        run.assert_code(2);
        assert!(run.stderr.contains(said), "{}", run.render());
    }
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn one_bad_candidate_among_three_is_refused_alone() {
    let env = TestEnv::new();
    let value = json!([
        {"name": "first", "type": "project", "description": "First fact", "body": "one"},
        {"name": "../escape", "type": "project", "description": "Bad name", "body": "two"},
        {"name": "third", "type": "project", "description": "Third fact", "body": "three"},
        {"name": "fourth", "type": "project", "body": "no description"},
        {"name": "fifth", "type": "opinion", "description": "d", "body": "b"},
        {"name": "sixth", "type": "project", "description": "bell \u{7}", "body": "b"},
    ]);
    let path = json_file(&env, "batch.json", &value.to_string());
    let run = env.remembering_unnamed().candidates_from(&path).run();
    run.assert_code(2);
    assert!(env.store().join("first.md").is_file(), "{}", run.render());
    assert!(env.store().join("third.md").is_file(), "{}", run.render());
    for said in [
        "candidate 2 (\"../escape\"): invalid name",
        "candidate 4 (\"fourth\"): a new record needs a \"description\" field",
        "candidate 5 (\"fifth\"): the \"type\" field: unknown type \"opinion\"",
        "candidate 6 (\"sixth\"): the description holds the control character U+0007",
    ] {
        assert!(
            run.stderr.contains(said),
            "{said:?} not said:\n{}",
            run.render()
        );
    }
    let catalog = env.read_store_file("MEMORY.md");
    assert!(
        catalog.contains("[first]") && catalog.contains("[third]"),
        "{catalog}"
    );
}

#[test]
fn one_bad_candidate_is_its_own_row_in_json_output() {
    let env = TestEnv::new();
    let value = json!([
        {"name": "good", "type": "project", "description": "Good fact", "body": "one"},
        {"type": "project", "description": "No name", "body": "two"},
    ]);
    let path = json_file(&env, "rows.json", &value.to_string());
    let run = env
        .remembering_unnamed()
        .candidates_from(&path)
        .arg("--json")
        .run();
    run.assert_code(2);
    let rows: Vec<Value> = serde_json::from_str(&run.stdout).expect("JSON rows");
    assert_eq!(rows[0]["status"], "saved");
    assert_eq!(rows[1]["status"], "refused");
    assert_eq!(rows[1]["exit_code"], 2);
    assert_eq!(rows[1]["reason"], "candidate 2: needs a \"name\" field");
}

#[test]
fn json_file_with_a_bom_is_read() {
    let env = TestEnv::new();
    let value =
        json!([{"name": "bom", "type": "project", "description": "From Windows", "body": "b"}]);
    let path = json_file(&env, "bom.json", &format!("\u{feff}{value}"));
    env.remembering_unnamed().candidates_from(&path).ok();
    assert!(env.store().join("bom.md").is_file());
}

#[test]
fn json_syntax_error_names_line_and_column() {
    let env = TestEnv::new();
    let path = json_file(&env, "broken.json", "[\n  {\"name\": \"x\",,}\n]\n");
    let run = env.remembering_unnamed().candidates_from(&path).run();
    run.assert_code(2);
    assert!(run.stderr.contains("broken.json:2:16:"), "{}", run.render());
}

#[test]
fn unwritable_memory_md_says_what_was_saved_and_a_noop_rerun_repairs_it() {
    let env = TestEnv::new();
    // Enough records that MEMORY.md outgrows 512 bytes while one record does not.
    for n in 0..12 {
        env.remember(
            &format!("fact-{n}"),
            "project",
            &format!("Fact number {n}, long enough to take some room in the catalogue"),
            "one",
        );
    }
    let catalog = env.store().join("MEMORY.md");
    let mut args = remember_args("trigger3", "Saved though MEMORY.md is not");
    args.push("body");
    let run = env.run_with_small_file_limit(&args);
    run.assert_code(5);
    assert!(
        run.stderr.contains("Saved trigger3 (revision 1)"),
        "{}",
        run.render()
    );
    assert!(
        run.stderr
            .contains("saved trigger3.md; the workspace store's MEMORY.md could not be updated"),
        "{}",
        run.render()
    );
    assert!(
        !run.stderr.contains("cannot write trigger3"),
        "{}",
        run.render()
    );
    assert!(env.store().join("trigger3.md").is_file());

    assert!(
        !env.read_store_file("MEMORY.md").contains("trigger3"),
        "MEMORY.md lags"
    );
    let rerun = env.run(&args);
    rerun.assert_success();
    assert!(rerun.stdout.contains("NOOP trigger3"), "{}", rerun.render());
    let text = env.read_store_file("MEMORY.md");
    assert!(
        text.contains("[trigger3](trigger3.md)") && text.contains("[fact-0](fact-0.md)"),
        "{text}"
    );
    assert!(catalog.is_file());
}

/// A folder (or link, or pipe) where MEMORY.md belongs cannot be kept for
/// its owner, so it is not replaced; that is known before the record is
/// written, so nothing is.
#[test]
fn memory_md_that_cannot_be_read_blocks_the_write_before_any_byte() {
    let env = TestEnv::new();
    env.remember("first", "project", "First fact", "one");
    let catalog = env.store().join("MEMORY.md");
    fs::remove_file(&catalog).expect("MEMORY.md");
    fs::create_dir(&catalog).expect("a folder in its place");
    let mut args = remember_args("blocked", "Not saved while MEMORY.md is a folder");
    args.push("body");
    let run = env.run(&args);
    run.assert_code(5);
    assert!(
        run.stderr.contains("MEMORY.md is a folder"),
        "{}",
        run.render()
    );
    assert!(!env.store().join("blocked.md").exists(), "{}", run.render());
    let forget = env.run(&["forget", "--yes", "first"]);
    forget.assert_code(5);
    assert!(
        env.store().join("first.md").is_file(),
        "{}",
        forget.render()
    );
}

#[test]
fn existing_non_utf8_file_is_named_with_its_real_reason() {
    let env = TestEnv::new();
    env.remember("first", "project", "First fact", "one");
    // An index makes the write plan from the index, which lists no skipped files.
    env.run(&["search", "first"]).assert_success();
    fs::write(
        env.store().join("latin.md"),
        b"---\nname: latin\n---\ncaf\xe9\n",
    )
    .expect("a Latin-1 file");
    let mut args = remember_args("latin", "d");
    args.push("body");
    let run = env.run(&args);
    run.assert_code(2);
    assert!(run.stderr.contains("not valid UTF-8"), "{}", run.render());
    assert!(!run.stderr.contains("appeared"), "{}", run.render());
}

/// A body on standard input that is not UTF-8 exited 5 (an I/O error), and
/// a byte-order mark was stored inside the body.
#[test]
fn body_on_stdin_that_is_not_utf8_is_bad_input_and_a_bom_is_dropped() {
    let env = TestEnv::new();
    let mut args = remember_args("latin1", "A body in Latin-1");
    args.push("-");
    let mut cmd = env.command();
    cmd.write_stdin(b"caf\xe9\n".to_vec());
    let run = env.run_with(cmd, &args);
    run.assert_code(2);
    assert!(run.stderr.contains("not UTF-8"), "{}", run.render());
    assert!(!env.store().join("latin1.md").exists());

    let mut args = remember_args("bom", "A body with a byte-order mark");
    args.push("-");
    env.run_stdin(&args, "\u{feff}Body.\n").assert_success();
    assert!(
        env.read_store_file("bom.md").ends_with("---\nBody.\n"),
        "{}",
        env.read_store_file("bom.md")
    );
}
