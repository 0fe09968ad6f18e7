//! Integration tests of the `memctl` binary: each one runs the real program
//! in a temporary project (see `env.rs`) and pins what it prints with insta.

// Helpers outside `#[test]` functions are test code too: a failed `expect`
// there is the test failing, with its message.
#![allow(clippy::expect_used, clippy::unwrap_used)]

/// Snapshots a [`env::Run`] (command, exit code, stdout, stderr) with the
/// environment's filters: `assert_run_snapshot!(env, run)` or
/// `assert_run_snapshot!("name", env, run)`.
macro_rules! assert_run_snapshot {
    ($env:expr, $run:expr) => {{
        let rendered = $run.render();
        $env.insta_settings()
            .bind(|| insta::assert_snapshot!(rendered));
    }};
    ($name:expr, $env:expr, $run:expr) => {{
        let rendered = $run.render();
        $env.insta_settings()
            .bind(|| insta::assert_snapshot!($name, rendered));
    }};
}

mod adopt_claude_code;
mod agents_doc;
mod arguments;
mod catalog;
mod check;
mod claude_code_memory;
mod concurrency;
mod context;
mod context_current;
mod corpus;
mod corpus_search;
mod crash;
mod crash_windows;
mod docs_claims;
mod docs_run;
mod dream;
mod dream_auto;
mod dream_groups;
mod dream_hostile;
mod edit;
mod end_of_input;
mod env;
mod extract;
mod extract_codex;
mod first_ten_minutes;
mod forget;
mod freshness;
mod from_json;
mod full_disk;
mod git;
mod git_commit_only;
mod git_log;
mod half_written;
mod help;
mod hook_lifecycle;
mod hook_outcomes;
mod hook_pending;
mod hostile_clone;
mod hostile_settings;
mod index;
mod init;
mod interactive;
mod mcp;
mod mcp_face;
mod mcp_stdio;
mod model_based;
mod model_guards;
mod model_secrets;
mod names;
mod one_build;
mod pending;
mod pre_commit;
mod private_files;
mod read;
mod real_agents;
mod real_model;
mod real_model_lifecycle;
mod regressions;
mod regressions_files;
mod regressions_search;
mod remember;
mod remember_quiet;
mod remember_refusals;
mod remembering;
mod review_candidates;
mod search;
mod search_words;
mod secrets;
mod semantic;
mod semantic_context;
mod setup_print;
mod small_things;
mod status;
mod trojan_source;
mod watch;
