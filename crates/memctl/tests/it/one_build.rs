//! The README's two commands compile the workspace once: `cargo run -p
//! memctl` (the demo) must build every dependency with the features `cargo
//! test --workspace` builds it with, or the tests compile it, and everything
//! above it, a second time. A dev-dependency or a bench dependency that turns
//! on a feature of a shared dependency breaks that silently; this test names
//! it, and crates/memctl/Cargo.toml ("One build for the README's two
//! commands") is where it goes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Each package of `cargo tree ARGS` (name and version) with the features
/// it is built with, host and target together.
fn features(args: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new(cargo)
        .current_dir(root)
        .args(["tree", "--locked", "--offline", "--prefix", "none"])
        .args(["--format", "{p}|{f}"])
        .args(args)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    let mut packages: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Some((package, list)) = line.split_once('|') else {
            continue;
        };
        // "name v1.2.3 (/path)" and "name v1.2.3 (*)": the name and version.
        let package = package.split(" (").next().unwrap_or_default().trim();
        let list = list.trim().trim_end_matches("(*)").trim();
        packages.entry(package.to_string()).or_default().extend(
            list.split(',')
                .filter(|f| !f.is_empty())
                .map(str::to_string),
        );
    }
    packages
}

#[test]
fn the_demo_builds_every_dependency_as_the_tests_do() {
    let demo = features(&["-p", "memctl", "--edges", "normal,build"]);
    let tests = features(&["--workspace", "--edges", "normal,build,dev"]);
    assert!(
        demo.len() > 100,
        "cargo tree listed {} packages",
        demo.len()
    );
    let differ: Vec<String> = demo
        .iter()
        .filter_map(|(package, built)| {
            let tested = tests.get(package)?;
            (built != tested).then(|| {
                let only_tests: Vec<_> = tested.difference(built).collect();
                let only_demo: Vec<_> = built.difference(tested).collect();
                format!("{package}: the tests add {only_tests:?}, the demo adds {only_demo:?}")
            })
        })
        .collect();
    assert!(
        differ.is_empty(),
        "`cargo test --workspace` would build these again after the README's demo; \
         turn the features on in crates/memctl/Cargo.toml (\"One build\"):\n{}",
        differ.join("\n")
    );
}
