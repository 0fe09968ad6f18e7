//! Finding the frontmatter-wild corpus and its committed sample.

use std::path::{Path, PathBuf};

/// The record folders of the corpus; its top README and the LICENSE.txt
/// files are not records.
pub const FOLDERS: [&str; 4] = [
    "claude-subagents",
    "copilot",
    "cursorrules",
    "powershell-docs",
];

/// The whole corpus, beside the checkout (`../shared/corpora/frontmatter-wild`).
pub fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/frontmatter-wild")
}

/// The sample committed under `tests/fixtures/`.
pub fn sample_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/frontmatter-wild-sample")
}

/// One record file of the corpus or the sample.
pub struct WildFile {
    /// `folder/name.md`.
    pub rel_path: PathBuf,
    pub text: String,
}

/// Every record file under `root`, sorted by path.
pub fn record_files(root: &Path) -> Vec<WildFile> {
    let mut files = Vec::new();
    for folder in FOLDERS {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(folder))
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", root.join(folder).display()))
            .map(|entry| entry.expect("directory entry").path())
            .filter(|path| {
                path.extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("md"))
            })
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let rel_path = path.strip_prefix(root).expect("under root").to_path_buf();
            files.push(WildFile { rel_path, text });
        }
    }
    files
}
