//! Real files as people and tools write them (the frontmatter-wild corpus),
//! copied into a temporary store: every record is listed, `check` reports
//! exactly the ones strict YAML rejects with path and line, and no reading
//! command changes a byte.
//!
//! The whole corpus lives outside the repository and may be absent; the
//! committed sample under `tests/fixtures/` always runs.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use regex::Regex;

use crate::env::{TestEnv, files_under};

/// The whole corpus, beside the checkout (`../shared/corpora/frontmatter-wild`).
pub(crate) fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/frontmatter-wild")
}

/// What the corpus README and the sample README say of their files.
struct Documented {
    files: usize,
    not_strict: usize,
    no_frontmatter: usize,
}

#[test]
#[cfg_attr(
    corpus_absent,
    ignore = "the frontmatter-wild corpus is not at ../shared/corpora/frontmatter-wild beside the checkout"
)]
fn the_whole_frontmatter_wild_corpus() {
    read_only_commands_over(
        &corpus_root(),
        &Documented {
            files: 1226,
            not_strict: 238,
            no_frontmatter: 20,
        },
    );
}

#[test]
fn the_committed_frontmatter_wild_sample() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/frontmatter-wild-sample");
    read_only_commands_over(
        &dir,
        &Documented {
            files: 120,
            not_strict: 34,
            no_frontmatter: 14,
        },
    );
}

/// Copies the `.md` files of each subfolder of `source` (not its top-level
/// README, not the licence files) into `store`, keeping the folders.
pub(crate) fn copy_records(source: &Path, store: &Path) -> Vec<PathBuf> {
    let mut copied = Vec::new();
    let mut folders: Vec<PathBuf> = fs::read_dir(source)
        .expect("the corpus folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let name = folder.file_name().expect("a folder name").to_owned();
        fs::create_dir_all(store.join(&name)).expect("a store subfolder");
        for entry in fs::read_dir(&folder).expect("a corpus subfolder") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "md") {
                let rel = Path::new(&name).join(path.file_name().expect("a file name"));
                fs::copy(&path, store.join(&rel)).expect("a copy");
                copied.push(rel);
            }
        }
    }
    copied.sort();
    copied
}

/// How an independent reader sees a file's frontmatter, by SPEC §2's fence
/// rules and a strict YAML parser.
#[derive(Debug, PartialEq, Eq)]
enum Frontmatter {
    None,
    Strict,
    NotStrict,
}

fn classify(bytes: &[u8]) -> Frontmatter {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    if lines.next().map(|l| l.trim_end_matches(' ')) != Some("---") {
        return Frontmatter::None;
    }
    let mut block = Vec::new();
    for line in lines {
        if line == "---" || line == "..." {
            let yaml = block.join("\n");
            let strict =
                serde_saphyr::from_str::<Option<BTreeMap<String, serde::de::IgnoredAny>>>(&yaml)
                    .is_ok();
            return if strict {
                Frontmatter::Strict
            } else {
                Frontmatter::NotStrict
            };
        }
        block.push(line);
    }
    Frontmatter::None
}

fn is_dotfile(rel: &Path) -> bool {
    rel.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
}

fn read_only_commands_over(source: &Path, documented: &Documented) {
    let env = TestEnv::bare();
    let store = env.store();
    fs::create_dir_all(&store).expect("the store folder");
    let copied = copy_records(source, &store);
    assert_eq!(
        copied.len(),
        documented.files,
        "files copied from {}",
        source.display()
    );

    let kinds: BTreeMap<&PathBuf, Frontmatter> = copied
        .iter()
        .map(|rel| (rel, classify(&fs::read(store.join(rel)).expect("a file"))))
        .collect();
    let count = |kind: Frontmatter| kinds.values().filter(|k| **k == kind).count();
    assert_eq!(
        count(Frontmatter::NotStrict),
        documented.not_strict,
        "strict-YAML failures, as documented"
    );
    assert_eq!(
        count(Frontmatter::None),
        documented.no_frontmatter,
        "files without frontmatter, as documented"
    );

    // SPEC §2: dotfiles are not records, whatever their extension.
    let records: BTreeSet<String> = copied
        .iter()
        .filter(|rel| !is_dotfile(rel))
        .map(|rel| rel.with_extension("").display().to_string())
        .collect();
    println!(
        "{}: {} files, {} records ({} dotfiles are not records)",
        source.display(),
        copied.len(),
        records.len(),
        copied.len() - records.len()
    );
    let before = files_under(&store);

    let list = env.run(&["list", "--json"]);
    list.assert_success();
    let rows: Vec<serde_json::Value> = serde_json::from_str(&list.stdout).expect("list --json");
    let listed: BTreeSet<String> = rows
        .iter()
        .filter_map(|r| r["id"].as_str().map(str::to_string))
        .collect();
    assert_eq!(listed, records, "list --json shows every record");
    assert_eq!(rows.len(), records.len(), "each once");
    assert!(
        rows.iter()
            .all(|r| r["description"].as_str().is_some_and(|d| !d.is_empty())),
        "every record has a description"
    );

    let text_list = env.run(&["list"]);
    text_list.assert_success();
    assert_eq!(text_list.stdout.lines().count(), records.len());
    let mut said: Vec<&str> = text_list.stderr.lines().collect();
    assert_eq!(
        said.pop(),
        Some(format!("{} records", records.len()).as_str())
    );
    for warning in said {
        // Only the dotfiles, which are not records, may be mentioned.
        let named = copied
            .iter()
            .find(|rel| warning.contains(&format!("/{}: ", rel.display())));
        assert!(
            named.is_some_and(|rel| is_dotfile(rel)),
            "unexpected: {warning}"
        );
    }

    let check = env.run(&["check"]);
    check.assert_code(1);
    let finding = Regex::new(
        r"^(?P<path>.+?\.md)(?::(?P<line>\d+))?: (?P<severity>error|warning): (?P<message>.+)$",
    )
    .expect("a pattern");
    let store_prefix = format!("{}/", store.display());
    let mut line_errors: BTreeSet<String> = BTreeSet::new();
    let mut no_frontmatter: BTreeSet<String> = BTreeSet::new();
    for line in check.stdout.lines() {
        // The corpus comes without a MEMORY.md; check says so (SPEC §3).
        if line.starts_with(&format!("{store_prefix}MEMORY.md: ")) {
            assert!(line.contains(": error: missing, though"), "{line}");
            continue;
        }
        let found = finding
            .captures(line)
            .unwrap_or_else(|| panic!("not path[:line]: severity: message: {line}"));
        let rel = found["path"]
            .strip_prefix(&store_prefix)
            .unwrap_or_else(|| panic!("not a path in the store: {line}"))
            .to_string();
        assert!(store.join(&rel).is_file(), "{line}");
        // Documentation in the corpus shows credential-shaped examples,
        // which `check` rightly reports too (docs/SECRETS.md).
        let secret = found["message"].starts_with("looks like a secret");
        if found.name("line").is_some() && &found["severity"] == "error" && !secret {
            line_errors.insert(rel.clone());
        }
        if found["message"].starts_with("no frontmatter") {
            no_frontmatter.insert(rel);
        }
    }
    let expected_of = |kind: Frontmatter| -> BTreeSet<String> {
        kinds
            .iter()
            .filter(|(rel, k)| **k == kind && !is_dotfile(rel))
            .map(|(rel, _)| rel.display().to_string())
            .collect()
    };
    assert_eq!(
        line_errors,
        expected_of(Frontmatter::NotStrict),
        "check names each strict-YAML failure with its line"
    );
    assert_eq!(
        no_frontmatter,
        expected_of(Frontmatter::None),
        "check names each file without frontmatter"
    );
    assert!(
        check
            .stderr
            .contains(&format!("{} records checked", records.len())),
        "{}",
        check.stderr
    );

    let status = env.run(&["status"]);
    status.assert_success();
    let counted = Regex::new(r"(?m)^  records: (\d+)\b").expect("a pattern");
    let count = counted.captures(&status.stdout).map(|c| c[1].to_string());
    assert_eq!(count, Some(records.len().to_string()), "{}", status.stdout);

    // `show` a spread of records, every broken one among them.
    let broken = expected_of(Frontmatter::NotStrict);
    for (n, id) in records.iter().enumerate() {
        if n % 10 != 0 && !broken.contains(&format!("{id}.md")) {
            continue;
        }
        let shown = env.run(&["show", id]);
        shown.assert_success();
        let bytes = &before[&PathBuf::from(format!("{id}.md"))];
        assert_eq!(
            shown.stdout,
            String::from_utf8_lossy(bytes),
            "show prints {id} as it is"
        );
        env.run(&["show", "--json", id]).assert_success();
    }

    assert!(
        files_under(&store) == before,
        "a reading command changed, added or removed a file in the store"
    );
}
