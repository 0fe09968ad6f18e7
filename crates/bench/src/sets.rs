//! The labelled prompt sets of issue 14 (docs/CONTEXT.md, "Real folders"):
//! every set in `crates/bench/fixtures/` that exists when a program runs,
//! so that a set landing later is measured without a code change.
//!
//! - `real/NAME/prompts.json`: prompts over a real Claude Code folder of
//!   `tests/fixtures/claude-memory/` (see [`REAL_STORES`]), or over
//!   `real/NAME/store/` when the set brings its own;
//! - `own/NAME/prompts.json` over `own/NAME/store/` (written by us);
//! - `context/`: the old development set, a development figure only.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::context::{self, Kind, Prompt};

/// The store of each real set, a folder of `tests/fixtures/claude-memory/`
/// (named in the set's README).
pub const REAL_STORES: [(&str, &str); 3] = [
    ("ja-resonite", "MLShukai--ResoniteIO"),
    ("en-js2", "ttraenkler--js2"),
    ("ko-rhwp", "the0807--rhwp"),
];

/// What a set is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// A real folder: held out one at a time, and the figures reported.
    Real,
    /// A store and prompts written by us, by different hands.
    Own,
    /// The old development set (records and prompts by the same hands).
    Dev,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Real => "real",
            Role::Own => "own",
            Role::Dev => "dev",
        }
    }
}

/// One labelled set: prompts and the store they are about.
#[derive(Clone, Debug)]
pub struct LabelledSet {
    /// `real/ja-resonite`, `own/ko`, `context`.
    pub name: String,
    pub role: Role,
    pub store: PathBuf,
    pub prompts_file: PathBuf,
    pub prompts: Vec<Prompt>,
}

/// The sets found, and the folders that have a store but no prompts yet.
#[derive(Debug, Default)]
pub struct Found {
    pub sets: Vec<LabelledSet>,
    /// `own/ko: no prompts.json yet`, for the programs to say SKIPPED.
    pub skipped: Vec<String>,
}

/// `crates/bench/fixtures/`.
pub fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// `tests/fixtures/claude-memory/` of the repository.
fn real_folders() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/claude-memory")
}

/// Every labelled set under `root` (real first, then own, then the old
/// development set; by name within each).
pub fn find(root: &Path) -> anyhow::Result<Found> {
    let mut found = Found::default();
    for (group, role) in [("real", Role::Real), ("own", Role::Own)] {
        for dir in subfolders(&root.join(group))? {
            let name = format!("{group}/{}", file_name(&dir));
            let store = match role {
                Role::Real => real_store(&dir)?,
                _ => dir.join("store"),
            };
            let prompts_file = dir.join("prompts.json");
            if !prompts_file.is_file() {
                found.skipped.push(format!("{name}: no prompts.json yet"));
                continue;
            }
            found.sets.push(set(name, role, store, prompts_file)?);
        }
    }
    let dev = root.join("context");
    if dev.is_dir() {
        let store = dev.join("store");
        found.sets.push(set(
            "context".into(),
            Role::Dev,
            store,
            dev.join("prompts.json"),
        )?);
    }
    Ok(found)
}

fn set(
    name: String,
    role: Role,
    store: PathBuf,
    prompts_file: PathBuf,
) -> anyhow::Result<LabelledSet> {
    anyhow::ensure!(
        store.is_dir(),
        "{name}: its store {} is not a folder",
        store.display()
    );
    let prompts = context::prompts(&prompts_file)?;
    Ok(LabelledSet {
        name,
        role,
        store,
        prompts_file,
        prompts,
    })
}

/// The store of the real set in `dir`: its own `store/`, else its folder
/// of `tests/fixtures/claude-memory/`.
fn real_store(dir: &Path) -> anyhow::Result<PathBuf> {
    let own = dir.join("store");
    if own.is_dir() {
        return Ok(own);
    }
    let name = file_name(dir);
    let folder = REAL_STORES
        .iter()
        .find(|(set, _)| *set == name)
        .map(|(_, folder)| real_folders().join(folder))
        .with_context(|| {
            format!(
                "{}: a real set with neither a store/ folder nor an entry in sets::REAL_STORES",
                dir.display()
            )
        })?;
    Ok(folder)
}

fn subfolders(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            dirs.push(path);
        }
    }
    dirs.sort();
    Ok(dirs)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What is wrong with a set's labels, one line each naming the prompt: an
/// id that is no record of the store, a kind that contradicts the labels
/// (a negative with relevant records, or the reverse), a prompt given
/// twice, an empty prompt or language. The programs print these, and a
/// test fails on any; nobody fixes a label silently.
pub fn label_problems(set: &LabelledSet) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen = HashSet::new();
    for (at, prompt) in set.prompts.iter().enumerate() {
        let mut say = |what: String| problems.push(format!("{} prompt {at}: {what}", set.name));
        for id in &prompt.relevant {
            let inside = Path::new(id)
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !inside {
                say(format!("`relevant` names {id:?}, a path out of the store"));
            } else if !set.store.join(format!("{id}.md")).is_file() {
                say(format!(
                    "`relevant` names {id:?}, no record of {}",
                    set.store.display()
                ));
            }
        }
        match prompt.kind {
            Some(Kind::Negative) if !prompt.relevant.is_empty() => {
                say("a negative with relevant records".into())
            }
            Some(Kind::Direct | Kind::Paraphrase) if prompt.relevant.is_empty() => {
                say("not a negative, yet no relevant record".into())
            }
            _ => {}
        }
        if prompt.text.trim().is_empty() {
            say("an empty prompt".into());
        }
        if prompt.text.contains('\0') {
            say("a NUL byte, which no command-line argument can carry to the binary".into());
        }
        if prompt.lang.trim().is_empty() {
            say("an empty `lang`".into());
        }
        if !seen.insert(prompt.text.as_str()) {
            say("the same prompt as an earlier one".into());
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_set_found_has_prompts_and_labels_that_name_records_of_its_store() {
        let found = find(&fixtures_root()).unwrap();
        for skipped in &found.skipped {
            eprintln!("SKIPPED: {skipped}");
        }
        let names: Vec<&str> = found.sets.iter().map(|s| s.name.as_str()).collect();
        for expected in ["real/en-js2", "real/ja-resonite", "context"] {
            assert!(names.contains(&expected), "{names:?}");
        }
        for set in &found.sets {
            assert!(
                set.prompts.len() >= 50,
                "{}: {}",
                set.name,
                set.prompts.len()
            );
            let problems = label_problems(set);
            assert!(problems.is_empty(), "{}", problems.join("\n"));
        }
    }

    #[test]
    fn label_problems_name_the_prompt_and_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store");
        std::fs::create_dir(&store).unwrap();
        std::fs::write(store.join("deploy.md"), "---\nname: deploy\n---\nx\n").unwrap();
        let file = dir.path().join("prompts.json");
        std::fs::write(
            &file,
            r#"[{"prompt": "how do we deploy", "relevant": ["deploy"], "lang": "en", "kind": "direct"},
                {"prompt": "rename this", "relevant": ["deploy"], "lang": "en", "kind": "negative"},
                {"prompt": "how do we deploy", "relevant": ["deploy\u202e"], "lang": "en", "kind": "paraphrase"},
                {"prompt": " ", "relevant": [], "lang": "", "kind": "direct"},
                {"prompt": "a\u0000b", "relevant": ["../store/deploy"], "lang": "en", "kind": "direct"}]"#,
        )
        .unwrap();
        let set = set("t".into(), Role::Own, store, file).unwrap();
        let problems = label_problems(&set);
        assert_eq!(
            problems
                .iter()
                .map(|p| &p[..p.find(':').unwrap()])
                .collect::<Vec<_>>(),
            [
                "t prompt 1",
                "t prompt 2",
                "t prompt 2",
                "t prompt 3",
                "t prompt 3",
                "t prompt 3",
                "t prompt 4",
                "t prompt 4"
            ],
            "{problems:#?}"
        );
        assert!(problems[0].contains("a negative with relevant records"));
        assert!(
            problems[1].contains(r#""deploy\u{202e}""#),
            "{}",
            problems[1]
        );
        assert!(problems[2].contains("the same prompt"));
        assert!(
            problems[6].contains("a path out of the store"),
            "{}",
            problems[6]
        );
        assert!(problems[7].contains("NUL"), "{}", problems[7]);
    }

    #[test]
    fn a_prompts_file_with_a_bad_field_is_an_error_naming_the_file_prompt_and_field() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("prompts.json");
        for (json, field) in [
            (
                r#"[{"prompt": "a", "relevant": []}, {"prompt": "b"}]"#,
                "`relevant`",
            ),
            (
                r#"[{"prompt": "a", "relevant": [], "kind": "Direct"}]"#,
                "`kind`",
            ),
            (r#"[{"prompt": "a", "relevant": [3]}]"#, "`relevant` id"),
            (
                r#"[{"prompt": "a", "relevant": [], "long": "yes"}]"#,
                "`long`",
            ),
            (r#"{"prompt": "a"}"#, "JSON array"),
        ] {
            std::fs::write(&file, json).unwrap();
            let err = format!("{:#}", context::prompts(&file).unwrap_err());
            assert!(err.contains("prompts.json"), "{err}");
            assert!(err.contains(field), "{json}: {err}");
        }
    }
}
