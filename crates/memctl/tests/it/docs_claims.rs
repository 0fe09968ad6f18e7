//! What README.md and docs/USER-GUIDE.md claim about memctl holds through
//! the binary (issue 28): the exit codes the README lists for the cases the
//! issue found wrong, the completions the guide names, a layout table with
//! every crate, a pre-commit snippet with no owner or tag that does not exist,
//! and the commands the README names for its demo store.
//! docs_run.rs runs their shell lines; agents_doc.rs their configurations.

use std::path::Path;

use crate::docs_run::copy_folder;
use crate::env::TestEnv;

fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The README's "Exit codes:" paragraph, one segment a code: what it says
/// between `N ` and `, N+1 `.
fn readme_exit_codes() -> Vec<String> {
    let readme = read("README.md");
    let start = readme
        .find("Exit codes: ")
        .expect("README says the exit codes");
    let paragraph = readme[start..].split("\n\n").next().unwrap_or_default();
    let paragraph = paragraph.replace('\n', " ");
    (0..=5)
        .map(|code| {
            let from = paragraph
                .find(&format!(" {code} "))
                .unwrap_or_else(|| panic!("README: no exit code {code} in {paragraph:?}"));
            let rest = &paragraph[from + 3..];
            let to = rest.find(&format!(", {} ", code + 1)).unwrap_or(rest.len());
            rest[..to].to_string()
        })
        .collect()
}

#[test]
fn readme_exit_codes_are_the_ones_the_binary_gives() {
    let codes = readme_exit_codes();
    // The issue: the README said 1 was "nothing found" where `show` gives 2.
    assert!(codes[1].contains("search found nothing"), "{:?}", codes[1]);
    assert!(!codes[1].contains("unknown id"), "{:?}", codes[1]);
    assert!(
        codes[2].contains("an unknown id") && codes[2].contains("no store"),
        "{:?}",
        codes[2]
    );
    assert!(codes[3].contains("not confirmed"), "{:?}", codes[3]);
    let env = TestEnv::new();
    env.remember(
        "deploy",
        "project",
        "How we deploy",
        "Through make release.",
    );
    env.run(&["search", "kubernetes"]).assert_code(1);
    env.run(&["show", "nope"]).assert_code(2);
    env.run(&["forget", "nope", "--yes"]).assert_code(2);
    env.run(&["show", "deploy"]).assert_code(0);
    let no_store = TestEnv::bare();
    for args in [&["list"][..], &["search", "deploy"], &["check"]] {
        no_store.run(args).assert_code(2);
    }
    let unconfirmed = env.run(&[
        "remember",
        "--name",
        "x",
        "--type",
        "user",
        "--description",
        "A fact",
        "body",
    ]);
    unconfirmed.assert_code(3);
}

/// Completions are mentioned in both documents, and each shell the guide
/// names gets them.
#[test]
fn the_completions_the_docs_name_are_printed() {
    let guide = read("docs/USER-GUIDE.md");
    assert!(read("README.md").contains("memctl completions"), "README");
    assert!(guide.contains("memctl completions"), "USER-GUIDE");
    let env = TestEnv::bare();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        assert!(
            guide.contains(&format!("`{shell}`")),
            "USER-GUIDE names {shell}"
        );
        let run = env.run(&["completions", shell]);
        run.assert_success();
        assert!(run.stdout.contains("memctl"), "{shell}: {}", run.render());
    }
}

/// The issue found `crates/mdembed` missing from the README's layout.
#[test]
fn readme_layout_lists_every_crate() {
    let readme = read("README.md");
    let layout = readme
        .split("## Layout")
        .nth(1)
        .expect("README has a layout");
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for entry in std::fs::read_dir(&crates).expect("crates/ lists") {
        let name = entry.expect("an entry").file_name();
        let name = name.to_string_lossy();
        assert!(
            layout.contains(&format!("`crates/{name}`")),
            "README's layout table leaves out crates/{name}"
        );
    }
}

/// The issue found `OWNER` and `rev: v0.1.0` (a tag that does not exist)
/// in the README's pre-commit snippet: it names no repository to fetch.
#[test]
fn readme_pre_commit_snippet_names_no_owner_or_release() {
    let readme = read("README.md");
    let snippet = readme
        .split("```yaml")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("README has a pre-commit snippet");
    assert!(snippet.contains("repo: local"), "{snippet}");
    assert!(
        !snippet.contains("OWNER") && !snippet.contains("rev:"),
        "{snippet}"
    );
}

/// "Other commands work the same way on the demo store": each command the
/// README names there, on a copy of it (commands may write), exits 0.
#[test]
fn readme_demo_store_commands_work() {
    let readme = read("README.md");
    let sentence = readme
        .split("Other commands work the same way on the demo store:")
        .nth(1)
        .and_then(|rest| rest.split(". ").next())
        .expect("README names commands for the demo store");
    let commands: Vec<&str> = sentence.split('`').skip(1).step_by(2).collect();
    assert!(commands.len() >= 4, "{sentence}");
    let env = TestEnv::bare();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/demo-store");
    copy_folder(&demo, &env.work().join("demo-store"));
    for command in commands {
        let mut args = vec!["--store", "demo-store"];
        args.extend(command.split_whitespace());
        env.run(&args).assert_success();
    }
}
