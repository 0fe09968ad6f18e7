//! Issue 14 item 6: `check` and `list` on two real Claude Code memory
//! folders (tests/fixtures/claude-memory/, copied into the test's store).
//! What Claude Code does by design (a title or a slug of its own in
//! `name`, `type` under `metadata:`) is not a problem; what is wrong still
//! is: its hand-kept `MEMORY.md`, and the links in it to files the folder
//! does not have, files without frontmatter or a `description`, and
//! anything broken, secret or colliding (SPEC §2, §3, §9).

use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use crate::env::TestEnv;

const JAPANESE: &str = "MLShukai--ResoniteIO";
const ENGLISH: &str = "ttraenkler--js2";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/claude-memory")
        .join(name)
}

/// A project whose `.memory/` is a copy of the real folder `name`: its
/// memories and its `MEMORY.md`, without the LICENSE and SOURCE.md this
/// repository keeps beside them.
fn adopted(name: &str) -> TestEnv {
    let env = TestEnv::bare();
    fs::create_dir_all(env.store()).expect("the store");
    for entry in fs::read_dir(fixture(name)).expect("the fixture") {
        let entry = entry.expect("a fixture file");
        let file = entry.file_name();
        if file != "LICENSE" && file != "SOURCE.md" {
            fs::copy(entry.path(), env.store().join(&file)).expect("a copy");
        }
    }
    env
}

fn stems(name: &str) -> Vec<String> {
    let mut stems: Vec<String> = fs::read_dir(fixture(name))
        .expect("the fixture")
        .map(|e| {
            e.expect("a fixture file")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|f| f.ends_with(".md") && f != "MEMORY.md" && f != "SOURCE.md")
        .map(|f| f.trim_end_matches(".md").to_string())
        .collect();
    stems.sort();
    stems
}

#[test]
fn japanese_folder_reports_only_its_hand_kept_memory_md() {
    let env = adopted(JAPANESE);
    let before = env.store_bytes();
    let run = env.run(&["check"]);
    run.assert_code(1);
    assert_run_snapshot!(env, run);
    let hook = env.run(&["check", "-q", "--scope", "workspace"]);
    hook.assert_code(1);
    assert_run_snapshot!("japanese_pre_commit", env, hook);
    assert_eq!(env.store_bytes(), before, "check changes nothing");
}

#[test]
fn japanese_folder_passes_check_once_adopted() {
    let env = adopted(JAPANESE);
    let original_index = env.read_store_file("MEMORY.md");
    env.run(&["init"]).assert_success();
    assert_eq!(
        env.read_store_file("MEMORY.md.before-memctl"),
        original_index,
        "Claude Code's index is kept"
    );
    let run = env.run(&["check"]);
    run.assert_success();
    assert_run_snapshot!(env, run);
    let hook = env.run(&["check", "-q", "--scope", "workspace"]);
    hook.assert_success();
    assert_eq!(hook.all_output(), "", "{}", hook.render());
}

#[test]
fn english_folder_reports_what_is_wrong_and_only_that() {
    let env = adopted(ENGLISH);
    let before = env.store_bytes();
    let run = env.run(&["check"]);
    run.assert_code(1);
    assert_run_snapshot!(env, run);
    let hook = env.run(&["check", "-q", "--scope", "workspace"]);
    hook.assert_code(1);
    assert_run_snapshot!("english_pre_commit", env, hook);
    assert_eq!(env.store_bytes(), before, "check changes nothing");
}

#[test]
fn both_folders_list_every_memory_under_its_file_name() {
    for name in [JAPANESE, ENGLISH] {
        let env = adopted(name);
        let before = env.store_bytes();
        let json = env.run(&["list", "--json"]);
        json.assert_success();
        let mut ids: Vec<String> = json
            .json()
            .as_array()
            .expect("an array")
            .iter()
            .map(|r| r["id"].as_str().expect("an id").to_string())
            .collect();
        ids.sort();
        assert_eq!(ids, stems(name), "{name}");
        let run = env.run(&["list"]);
        run.assert_success();
        assert_run_snapshot!(format!("list_{name}"), env, run);
        assert_eq!(env.store_bytes(), before, "list changes nothing in {name}");
    }
}

/// Issue 14: `edit` refused every record of a Claude Code folder whose
/// `name` is a title ("`name` must stay …"), the edit untouched.
#[test]
fn edit_of_a_record_whose_name_is_a_title_is_saved() {
    let mut env = adopted(ENGLISH);
    env.set_var(
        "EDITOR",
        r#"sed -i 's/^Project lead for ts2wasm\./Project lead for js2./'"#,
    );
    let run = env.run(&["edit", "user_role"]);
    run.assert_success();
    let text = env.read_store_file("user_role.md");
    assert!(text.contains("name: User profile — project lead"), "{text}");
    assert!(text.contains("Project lead for js2."), "{text}");
}

/// What is wrong in a Claude Code folder is still reported: broken YAML, a
/// secret, a `name` that is another record's id or looks like one.
#[test]
fn real_problems_in_an_adopted_folder_are_still_reported() {
    let env = adopted(JAPANESE);
    env.write_store_file(
        "feedback_broken.md",
        "---\nname: broken\ndescription: Use this: not that\nmetadata:\n  type: feedback\n---\nBody.\n",
    );
    env.write_store_file(
        "feedback_impostor.md",
        "---\nname: feedback_git_no_pager\ndescription: A second record by that name\nmetadata:\n  type: feedback\n---\nBody.\n",
    );
    // A Cyrillic `е` in `release`.
    env.write_store_file(
        "feedback_look_alike.md",
        "---\nname: r\u{435}lease-pipeline\ndescription: Looks like another\nmetadata:\n  type: feedback\n---\nBody.\n",
    );
    let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    env.write_store_file(
        "reference_token.md",
        &format!(
            "---\nname: CI token\ndescription: The token CI uses\nmetadata:\n  type: reference\n---\nIt is {token}.\n"
        ),
    );
    env.run(&["init"]).assert_success();
    let run = env.run(&["check", "-q", "--scope", "workspace"]);
    run.assert_code(1);
    assert!(!run.all_output().contains(&token), "{}", run.render());
    assert_run_snapshot!(env, run);
}
