//! `memctl extract` on Codex's session file, its rollout (issue 27): the
//! transcript Codex names in its SessionEnd event. The fixture
//! `tests/fixtures/extract/codex-rollout.jsonl` is a rollout Codex 0.169.1
//! wrote in a real-client run (base instructions cut short, paths
//! replaced), with a tool call and its output added in Codex's shape.

use serde_json::Value;

use crate::extract::Extract;

#[test]
fn a_codex_rollout_sends_only_what_the_user_and_the_assistant_said() {
    let x = Extract::new("codex-rollout.jsonl", "good.json");
    x.run(&["--dry-run", "--json"]).assert_success();
    let stdin = x.model_stdin();
    let request: Value = serde_json::from_str(&stdin).expect("the request is JSON");
    let messages: Vec<(&str, &str)> = request["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["text"].as_str().unwrap()))
        .collect();
    assert_eq!(
        messages,
        [
            (
                "user",
                "Please tidy the parser module, and keep the tests green."
            ),
            (
                "assistant",
                "Done: the parser module is tidier and the tests still pass."
            ),
        ]
    );
    // Neither a tool's output, nor Codex's own context, nor memctl's.
    for marker in [
        "Perl",
        "environment_context",
        "Recalled memory",
        "You are a coding agent",
        "cat NOTES.txt",
    ] {
        assert!(
            !stdin.contains(marker),
            "{marker} reached the model:\n{stdin}"
        );
    }
}
