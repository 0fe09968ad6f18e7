//! `memctl edit`: `$EDITOR` is a small script here. A valid edit is saved
//! with its revision bumped and MEMORY.md regenerated; an invalid one is
//! never saved (SPEC §9).

use std::fs::File;

use pretty_assertions::assert_eq;

use crate::env::TestEnv;
use crate::remember::fake_github_token;

fn env_with_record() -> TestEnv {
    let env = TestEnv::new();
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    env
}

fn set_editor(env: &mut TestEnv, script: &str) {
    let path = env.script("editor", script);
    env.set_var("EDITOR", path.display().to_string());
}

#[test]
fn a_valid_edit_is_saved_with_the_next_revision_and_memory_md_follows() {
    let mut env = env_with_record();
    set_editor(
        &mut env,
        r#"sed -i -e 's/^description: .*/description: Tests use pytest and hypothesis/' -e 's/^New tests use pytest.$/New tests use pytest; properties use hypothesis./' "$1""#,
    );
    let run = env.run(&["edit", "prefer-pytest"]);
    run.assert_success();
    assert_run_snapshot!(env, run);
    let text = env.read_store_file("prefer-pytest.md");
    assert!(
        text.contains("description: Tests use pytest and hypothesis\n"),
        "{text}"
    );
    assert!(text.contains("\nrevision: 2\n"), "{text}");
    assert!(
        text.ends_with("---\nNew tests use pytest; properties use hypothesis.\n"),
        "{text}"
    );
    assert!(
        env.read_store_file("MEMORY.md")
            .contains("— Tests use pytest and hypothesis\n"),
        "MEMORY.md follows the edit"
    );
    assert!(
        crate::env::temp_files(env.root()).is_empty(),
        "no temporary file is left"
    );
    // Nor the scratch copy the editor worked on ($TMPDIR/memctl-edit-*).
    let scratch: Vec<_> = std::fs::read_dir(env.root().join("tmp"))
        .expect("the test's TMPDIR")
        .collect();
    assert!(scratch.is_empty(), "left in TMPDIR: {scratch:?}");
}

#[test]
fn an_edit_that_changes_nothing_saves_nothing() {
    let mut env = env_with_record();
    set_editor(&mut env, "true");
    let before = env.store_bytes();
    let run = env.run(&["edit", "prefer-pytest"]);
    run.assert_success();
    assert!(run.stderr.contains("No changes"), "{}", run.render());
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn an_invalid_edit_is_not_saved_without_a_terminal() {
    let secret_edit = format!(r#"printf 'token: {}\n' >> "$1""#, fake_github_token());
    let cases = [
        (
            "broken_yaml",
            r#"sed -i 's/^description: .*/description: Use this: not that/' "$1""#.to_string(),
        ),
        (
            "no_description",
            r#"sed -i '/^description: /d' "$1""#.to_string(),
        ),
        ("no_type", r#"sed -i '/^type: /d' "$1""#.to_string()),
        (
            "renamed",
            r#"sed -i 's/^name: .*/name: other/' "$1""#.to_string(),
        ),
        (
            "unclosed_frontmatter",
            r#"sed -i '6,$ s/^---$/--/' "$1""#.to_string(),
        ),
        ("secret", secret_edit),
    ];
    for (label, script) in cases {
        let mut env = env_with_record();
        set_editor(&mut env, &script);
        let before = env.store_bytes();
        let run = env.run(&["edit", "prefer-pytest"]);
        run.assert_code(2);
        assert!(
            run.stderr.contains("nothing was saved"),
            "{label}:\n{}",
            run.render()
        );
        assert!(
            !run.all_output().contains(&fake_github_token()),
            "{label}: secret printed"
        );
        assert_eq!(env.store_bytes(), before, "{label}: the file changed");
        assert_run_snapshot!(format!("invalid_edit_{label}"), env, run);
    }
}

#[test]
fn a_failing_editor_saves_nothing() {
    let mut env = env_with_record();
    set_editor(&mut env, r#"sed -i 's/pytest/nose/' "$1"; exit 1"#);
    let before = env.store_bytes();
    let run = env.run(&["edit", "prefer-pytest"]);
    run.assert_code(3);
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn edit_of_an_unknown_id_is_bad_input() {
    let mut env = env_with_record();
    set_editor(&mut env, "true");
    env.run(&["edit", "nothing-here"]).assert_code(2);
}

#[test]
fn a_held_lock_times_out_with_exit_4_and_saves_nothing() {
    let mut env = env_with_record();
    set_editor(
        &mut env,
        r#"sed -i 's/^description: .*/description: Changed/' "$1""#,
    );
    env.set_var("MEMCTL_LOCK_TIMEOUT_MS", "200");
    let before = env.store_bytes();
    let folder = File::open(env.store()).expect("the store folder");
    folder.lock().expect("the test takes the lock");
    let run = env.run(&["edit", "prefer-pytest"]);
    run.assert_code(4);
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn an_edit_keeps_unknown_keys_and_a_hand_made_record_gets_a_revision() {
    let mut env = TestEnv::new();
    env.write_store_file(
        "deploy.md",
        "---\nname: deploy\nowner: platform\ndescription: Deploys go out on Tuesdays\ntype: project\n---\nBody.\n",
    );
    set_editor(&mut env, r#"sed -i 's/Tuesdays/Wednesdays/' "$1""#);
    env.run(&["edit", "deploy"]).assert_success();
    let text = env.read_store_file("deploy.md");
    assert!(text.starts_with("---\nname: deploy\nowner: platform\ndescription: Deploys go out on Wednesdays\ntype: project\n"), "{text}");
    assert!(text.contains("\nrevision: 2\n"), "{text}");
    assert!(text.ends_with("---\nBody.\n"), "{text}");
}

#[test]
fn an_edit_that_appends_an_aws_key_is_refused_by_the_secret_guard() {
    let mut env = env_with_record();
    let before = env.store_bytes();
    set_editor(
        &mut env,
        r#"printf 'key id AKIAIOSFODNN7REALKEY\n' >> "$1""#,
    );
    let run = env.run(&["edit", "prefer-pytest"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains("looks like a secret"),
        "{}",
        run.render()
    );
    assert!(
        !run.all_output().contains("AKIAIOSFODNN7REALKEY"),
        "{}",
        run.render()
    );
    assert_eq!(env.store_bytes(), before);
}

#[test]
fn a_held_lock_times_out_with_exit_4_for_edit_as_for_every_write() {
    let mut env = env_with_record();
    env.set_var("MEMCTL_LOCK_TIMEOUT_MS", "200");
    set_editor(&mut env, r#"printf 'More.\n' >> "$1""#);
    let before = env.store_bytes();
    let folder = File::open(env.store()).expect("the store folder");
    folder.lock().expect("the test takes the lock");
    let run = env.run(&["edit", "prefer-pytest"]);
    run.assert_code(4);
    assert!(
        run.stderr.contains("held the write lock of") && run.stderr.contains("nothing was written"),
        "{}",
        run.render()
    );
    assert!(
        run.stderr.contains("MEMCTL_LOCK_TIMEOUT_MS"),
        "{}",
        run.render()
    );
    assert_eq!(env.store_bytes(), before);
}

/// An edit that lost the race to another writer was kept in a folder other
/// users could read (0755): the copy may hold what the person typed.
#[cfg(unix)]
#[test]
fn an_edit_kept_after_a_conflict_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let mut env = env_with_record();
    let record = env.store().join("prefer-pytest.md");
    set_editor(
        &mut env,
        &format!(
            "echo 'Edited meanwhile.' >> '{}'; echo 'My edit.' >> \"$1\"",
            record.display()
        ),
    );
    let run = env.run(&["edit", "prefer-pytest"]);
    run.assert_code(4);
    let kept = run
        .stderr
        .split("your edit is kept at ")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap_or_else(|| panic!("no kept path\n{}", run.render()));
    let folder = std::path::Path::new(kept.trim())
        .parent()
        .expect("a folder");
    let mode = std::fs::metadata(folder)
        .expect("kept")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700, "{}", run.render());
}

/// An editor script that replaces the record with `frontmatter_line` among
/// valid keys, then runs `then` (a shell line) on the file.
fn rewrite_script(frontmatter_line: &str, then: &str) -> String {
    format!(
        "cat > \"$1\" <<'EOF'\n---\nname: prefer-pytest\n{frontmatter_line}\ntype: feedback\n---\nNew tests use pytest.\nEOF\n{then}"
    )
}

/// Issue 6: `edit` saved, with exit 0, secrets hidden by YAML escapes or an
/// escaped line break, and control characters and NUL bytes that
/// `remember` refuses; the file then reached MEMORY.md.
#[test]
fn edit_refuses_yaml_hidden_secrets_and_control_characters_remember_refuses() {
    let token_tail = "C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    let cases = [
        (
            "aws_escape",
            rewrite_script(r#"description: "key \x41KIAQWERTYUIOPASDFGH""#, ""),
            "looks like a secret",
        ),
        (
            "password_continued",
            rewrite_script("description: \"password: \\\n  hunter2hunter2\"", ""),
            "looks like a secret",
        ),
        (
            "tag_token",
            rewrite_script(
                &format!("description: d\ntags: [\"ghp_\\x41\\x31b2{token_tail}\"]"),
                "",
            ),
            "looks like a secret",
        ),
        (
            "nul_appended",
            rewrite_script("description: d", r#"printf '\0' >> "$1""#),
            "NUL",
        ),
        (
            "description_escapes",
            rewrite_script(r#"description: "d\e[2J\a\x9b""#, ""),
            "control character U+001B",
        ),
        (
            "tags_control",
            rewrite_script(
                r#"description: d
tags: ["", "a\nb", "x\u001b"]"#,
                "",
            ),
            "tag 1 is empty",
        ),
    ];
    for (label, script, expected) in cases {
        let mut env = env_with_record();
        set_editor(&mut env, &script);
        let before = env.store_bytes();
        let run = env.run(&["edit", "prefer-pytest"]);
        run.assert_code(2);
        assert!(
            run.stderr.contains("nothing was saved") && run.stderr.contains(expected),
            "{label}:\n{}",
            run.render()
        );
        for secret in ["QWERTYUIOP", "hunter2", token_tail] {
            assert!(
                !run.all_output().contains(secret),
                "{label}: secret printed"
            );
        }
        assert_eq!(env.store_bytes(), before, "{label}: the store changed");
    }
}
