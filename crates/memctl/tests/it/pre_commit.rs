//! The hook in `.pre-commit-hooks.yaml`, run by the real pre-commit tool
//! (the version pinned in tests/pre-commit/requirements.txt, installed
//! into a virtual environment under the target folder) with `try-repo` on
//! this checkout, in a temporary git repository.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::env::TestEnv;

/// This checkout: the repository whose hook definition is tested.
fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `pre-commit` in `<target>/pre-commit-venv`, installed there first if it
/// is missing or not the pinned version. Without python3, venv or the
/// package registry the test fails and says why: it never passes unchecked.
fn pre_commit() -> PathBuf {
    let binary = Path::new(env!("CARGO_BIN_EXE_memctl"));
    let target = binary
        .parent()
        .and_then(Path::parent)
        .expect("the memctl binary sits in <target>/<profile>/");
    let venv = target.join("pre-commit-venv");
    let tool = venv.join("bin/pre-commit");
    let requirements = checkout().join("tests/pre-commit/requirements.txt");
    let pinned = fs::read_to_string(&requirements)
        .expect("tests/pre-commit/requirements.txt")
        .lines()
        .find_map(|l| l.strip_prefix("pre-commit=="))
        .expect("requirements.txt pins pre-commit==VERSION")
        .trim()
        .to_string();
    let installed = Command::new(&tool)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if installed.as_deref() == Some(format!("pre-commit {pinned}").as_str()) {
        return tool;
    }
    let step = |program: &Path, args: &[&str]| {
        let output = Command::new(program).args(args).output();
        match output {
            Ok(o) if o.status.success() => {}
            Ok(o) => panic!(
                "installing pre-commit for this test failed: {} {args:?}:\n{}{}\nthe test needs python3 with venv and pip, and PyPI (CI has both)",
                program.display(),
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(e) => panic!(
                "installing pre-commit for this test failed: cannot run {}: {e}; the test needs python3 with venv and pip, and PyPI (CI has both)",
                program.display()
            ),
        }
    };
    step(
        Path::new("python3"),
        &["-m", "venv", &venv.display().to_string()],
    );
    step(
        &venv.join("bin/pip"),
        &[
            "install",
            "--quiet",
            "-r",
            &requirements.display().to_string(),
        ],
    );
    tool
}

/// `pre-commit try-repo <this checkout> memctl-check --all-files` in the
/// test's project, with the memctl under test first on PATH.
fn run_hook(env: &TestEnv, tool: &Path) -> (i32, String) {
    let memctl = env.std_command();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_memctl"))
        .parent()
        .expect("the binary's folder");
    let mut path = bin_dir.as_os_str().to_os_string();
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let mut cmd = Command::new(tool);
    cmd.env_clear();
    for (name, value) in memctl.get_envs() {
        if let Some(value) = value {
            cmd.env(name, value);
        }
    }
    let output = cmd
        .env("PATH", path)
        .env("PRE_COMMIT_HOME", env.root().join("pre-commit-home"))
        .args([
            "try-repo",
            &checkout().display().to_string(),
            "memctl-check",
        ])
        .arg("--all-files")
        .current_dir(env.work())
        .output()
        .expect("pre-commit runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code().unwrap_or(-1), text)
}

fn git(env: &TestEnv, args: &[&str]) {
    let memctl = env.std_command();
    let mut cmd = Command::new("git");
    cmd.env_clear();
    for (name, value) in memctl.get_envs() {
        if let Some(value) = value {
            cmd.env(name, value);
        }
    }
    let output = cmd
        .args(args)
        .current_dir(env.work())
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Issue 9: a project adds `memctl check` to its pre-commit configuration
/// from this repository's hook definition; it passes a clean store and
/// fails one holding a secret, naming the rule.
#[test]
fn pre_commit_hook_fails_on_a_secret_and_passes_a_clean_store() {
    let tool = pre_commit();
    let mut env = TestEnv::bare();
    let config = env.root().join("gitconfig");
    fs::write(
        &config,
        "[user]\n\tname = t\n\temail = t@example.invalid\n[init]\n\tdefaultBranch = main\n",
    )
    .expect("git config");
    env.set_var("GIT_CONFIG_GLOBAL", config.display().to_string());
    env.set_var("GIT_CONFIG_NOSYSTEM", "1");
    git(&env, &["init", "--quiet"]);
    env.run(&["init"]).assert_success();
    // The author's own global store holds a problem: not the project's.
    leaky_global_store(&env);
    env.remembering_unnamed()
        .kind("project")
        .name("clean")
        .description("A clean record")
        .body("Body.")
        .ok();
    git(&env, &["add", "-A"]);
    let (code, text) = run_hook(&env, &tool);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("memctl check") && text.contains("Passed"),
        "{text}"
    );

    let key_id = format!("AKIA{}", "IOSFODNN7EXAMPLE");
    fs::write(
        env.store().join("leaky.md"),
        format!(
            "---\nname: leaky\ndescription: Deploy\ntype: project\n---\nThe key id is {key_id}.\n"
        ),
    )
    .expect("a record");
    git(&env, &["add", "-A"]);
    let (code, text) = run_hook(&env, &tool);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("Failed"), "{text}");
    assert!(
        text.contains("leaky.md:6") && text.contains("aws-access-key-id"),
        "{text}"
    );
    assert!(!text.contains(&key_id), "{text}");
}

/// A global store holding a record with a secret.
fn leaky_global_store(env: &TestEnv) {
    fs::create_dir_all(env.global_store()).expect("the global store");
    fs::write(
        env.global_store().join("mine.md"),
        // Split, so that no secret scanner flags this file.
        concat!(
            "---\nname: mine\ndescription: Mine\ntype: user\n---\nkey AKIA",
            "IOSFODNN7EXAMPLE\n"
        ),
    )
    .expect("a record");
}

/// Issue 9: the hook checked the committer's global store too, so a
/// problem there failed every project's commits.
#[test]
fn check_scope_workspace_leaves_the_global_store_out() {
    let env = TestEnv::new();
    leaky_global_store(&env);
    env.run(&["check"]).assert_code(1);
    let run = env.run(&["check", "--scope", "workspace"]);
    run.assert_success();
    assert!(!run.all_output().contains("mine.md"), "{}", run.render());
    env.run(&["check", "--scope", "global"]).assert_code(1);
}
