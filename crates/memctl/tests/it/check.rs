//! `memctl check`: exit 0 on a clean store, 1 with every problem named by
//! path, line and reason; fit for a git pre-commit hook (SPEC §9).

use std::fs;
use std::path::Path;
use std::process::Command;

use pretty_assertions::assert_eq;

use crate::env::TestEnv;
use crate::read::BROKEN_YAML;

#[test]
fn a_clean_store_passes() {
    let env = TestEnv::new();
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
    let run = env.run(&["check"]);
    run.assert_success();
    assert_run_snapshot!(env, run);
}

#[test]
fn every_kind_of_problem_is_reported_with_path_and_line() {
    let env = TestEnv::new();
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    env.write_store_file("broken.md", BROKEN_YAML);
    env.write_store_file(
        "no-frontmatter.md",
        "# Deploy notes\n\nDeploys go out on Tuesdays.\n",
    );
    env.write_store_file(
        "misnamed.md",
        "---\nname: other\ndescription: Named wrong\ntype: project\n---\nBody.\n",
    );
    env.write_store_file(
        "untyped.md",
        "---\nname: untyped\ndescription: No type\n---\nBody.\n",
    );
    env.write_store_file(
        "Prefer-Pytest.md",
        "---\nname: Prefer-Pytest\ndescription: Twin\ntype: project\n---\nBody.\n",
    );
    fs::write(
        env.store().join("latin1.md"),
        b"---\nname: latin1\ndescription: caf\xe9\n---\n",
    )
    .expect("file");
    fs::write(env.store().join("big.md"), "x".repeat(300 * 1024)).expect("file");
    let before = env.store_bytes();
    let run = env.run(&["check"]);
    run.assert_code(1);
    assert_run_snapshot!(env, run);
    assert!(
        run.stdout.contains("/.memory/broken.md:3: error: "),
        "the YAML error is placed on its line:\n{}",
        run.render()
    );
    assert_eq!(env.store_bytes(), before, "check changes nothing");
}

#[test]
fn leftover_temp_files_are_not_problems() {
    let env = TestEnv::new();
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    env.write_store_file(".x1y2z3.memctl-tmp", "---\nname: half-writ");
    env.write_store_file(".tombstones/.q9w8.memctl-tmp", "{\"id\": ");
    let run = env.run(&["check"]);
    run.assert_success();
    assert!(!run.all_output().contains("memctl-tmp"), "{}", run.render());
}

#[test]
fn check_without_a_store_is_bad_input() {
    let env = TestEnv::bare();
    let run = env.run(&["check"]);
    run.assert_code(2);
    assert_run_snapshot!(env, run);
}

fn git(env: &TestEnv, dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args([
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.org",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", env.root().join("home"))
        // Neither the developer's git configuration nor an outer repository
        // (cargo test run from a git hook) may reach this repository.
        .env("XDG_CONFIG_HOME", env.root().join("home/.config"))
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_WORK_TREE")
        .env("MEMCTL_GLOBAL_DIR", env.global_store())
        .env("MEMCTL_CACHE_DIR", env.root().join("cache"))
        .env_remove("MEMCTL_STORE")
        .output()
        .expect("git runs")
}

#[test]
fn check_works_as_a_git_pre_commit_hook() {
    // git is part of the machine this project builds on (the checkout is a
    // git repository): a missing git fails here rather than passing unchecked.
    let env = TestEnv::new();
    env.remember(
        "prefer-pytest",
        "feedback",
        "Tests use pytest",
        "New tests use pytest.",
    );
    let work = env.work();
    assert!(git(&env, work, &["init", "-q"]).status.success());
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_memctl"));
    let hook = work.join(".git/hooks/pre-commit");
    fs::create_dir_all(hook.parent().expect("hooks folder")).expect("hooks folder");
    fs::write(
        &hook,
        format!("#!/bin/sh\nexec '{}' check\n", binary.display()),
    )
    .expect("hook");
    fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("executable hook");

    assert!(git(&env, work, &["add", ".memory"]).status.success());
    let clean = git(&env, work, &["commit", "-q", "-m", "memory"]);
    assert!(
        clean.status.success(),
        "a clean store commits: {}",
        String::from_utf8_lossy(&clean.stderr)
    );

    env.write_store_file("broken.md", BROKEN_YAML);
    assert!(git(&env, work, &["add", ".memory"]).status.success());
    let refused = git(&env, work, &["commit", "-q", "-m", "broken memory"]);
    assert!(
        !refused.status.success(),
        "the hook must stop a broken record"
    );
    let said = String::from_utf8_lossy(&refused.stdout).into_owned()
        + &String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("broken.md:3:"), "{said}");
}

#[test]
fn check_quiet_prints_no_summary() {
    let env = TestEnv::new();
    env.remember("a", "project", "Fact a", "A.");
    let clean = env.run(&["check", "-q"]);
    clean.assert_success();
    assert_eq!((clean.stdout.as_str(), clean.stderr.as_str()), ("", ""));

    env.write_store_file(
        "untyped.md",
        "---\nname: untyped\ndescription: No type\n---\nBody.\n",
    );
    let run = env.run(&["-q", "check"]);
    run.assert_code(1);
    assert!(run.stdout.contains("untyped.md"), "{}", run.render());
    assert!(
        !run.all_output().contains("records checked"),
        "{}",
        run.render()
    );
    assert!(!run.all_output().contains("hint:"), "{}", run.render());
}

/// Issue 6: `check` found no secret in a hand-written file holding an AWS
/// key id. It names path, line and rule, never the secret, and exits 1.
#[test]
fn secret_in_hand_written_record_is_reported_without_echoing_it() {
    let env = TestEnv::new();
    let key_id = format!("AKIA{}", "IOSFODNN7EXAMPLE");
    env.write_store_file(
        "deploy.md",
        &format!(
            "---\nname: deploy\ndescription: How we deploy\ntype: project\n---\nThe CI user's key id is {key_id}.\n"
        ),
    );
    let run = env.run(&["check"]);
    run.assert_code(1);
    assert!(
        run.stdout
            .contains("deploy.md:6: error: looks like a secret (rule aws-access-key-id)"),
        "{}",
        run.render()
    );
    assert!(!run.all_output().contains(&key_id), "{}", run.render());
}

/// Issue 6: a secret written with YAML escapes (`\x41` = `A`) in a
/// hand-written frontmatter showed on no raw line, and `check` passed it.
#[test]
fn yaml_escaped_secret_in_hand_written_frontmatter_is_reported() {
    let env = TestEnv::new();
    env.write_store_file(
        "deploy.md",
        "---\nname: deploy\ndescription: \"key \\x41KIAQWERTYUIOPASDFGH\"\ntype: project\n---\nBody.\n",
    );
    let run = env.run(&["check"]);
    run.assert_code(1);
    assert!(
        run.stdout.contains(
            "deploy.md:3: error: `description` looks like a secret once YAML decodes it (rule aws-access-key-id)"
        ),
        "{}",
        run.render()
    );
    assert!(!run.all_output().contains("QWERTYUIOP"), "{}", run.render());
}
