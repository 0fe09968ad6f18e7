//! The frontmatter-wild corpus (real files as people and tools write them)
//! indexed whole: every readable file is found by a word of its description.

use std::fs;
use std::path::{Path, PathBuf};

use mdindex::{Index, query};
use mdstore::WalkItem;

use crate::common::Env;

const FOLDERS: [&str; 4] = [
    "claude-subagents",
    "copilot",
    "cursorrules",
    "powershell-docs",
];

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/frontmatter-wild")
}

fn sample_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/frontmatter-wild-sample")
}

/// Copies the corpus's record folders into the store.
fn copy_into(env: &Env, root: &Path) {
    for folder in FOLDERS {
        let target = env.root().join(folder);
        fs::create_dir_all(&target).unwrap();
        for entry in fs::read_dir(root.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            fs::copy(&path, target.join(path.file_name().unwrap())).unwrap();
        }
    }
}

/// The longest word of a description (a run of letters and digits, as the
/// tokenizer cuts them): rare enough to be a search term, not a stop word.
fn key_word(description: &str) -> Option<&str> {
    description
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4 && w.chars().any(char::is_alphabetic))
        .max_by_key(|w| w.chars().count())
}

/// How a file is looked for by a word.
#[derive(Clone, Copy)]
enum Lookup {
    /// A whole search, with ranking and snippets, among all results.
    Search,
    /// Only whether the file's row matches the query's FTS5 expression
    /// (the whole corpus: a full search per file would be quadratic).
    Match,
}

fn every_readable_file_is_found_by_a_word_of_its_description(root: &Path, lookup: Lookup) {
    let env = Env::new();
    copy_into(&env, root);
    let outcome = env.search("anything");
    let rebuilt = outcome.rebuilt.unwrap();
    let index = Index::open_existing(&env.store, &env.cache).unwrap();
    let conn = rusqlite::Connection::open(env.index_path()).unwrap();
    let (mut searched, mut readable) = (0, 0);
    for item in env.store.walk() {
        let WalkItem::Record(entry) = item else {
            continue;
        };
        let Ok(record) = env.store.read_entry(&entry) else {
            continue;
        };
        readable += 1;
        let description = record.meta.description.clone().unwrap_or_default();
        let Some(word) = key_word(&description) else {
            continue;
        };
        let query = query::parse(word).unwrap();
        let found = match lookup {
            Lookup::Search => index
                .search(&query, readable + 1000, &[])
                .unwrap()
                .iter()
                .any(|h| h.id == record.id),
            Lookup::Match => {
                let expression = query.fts_match().unwrap();
                conn.query_row(
                    "SELECT count(*) FROM fts JOIN docs ON docs.doc = fts.rowid
                     WHERE fts MATCH ?1 AND docs.rel_path = ?2",
                    (expression, entry.rel_path.to_str().unwrap()),
                    |row| row.get::<_, i64>(0),
                )
                .unwrap()
                    == 1
            }
        };
        assert!(
            found,
            "{} not found by {word:?} (description {description:?})",
            record.id
        );
        searched += 1;
    }
    assert!(readable > 0, "no readable file under {}", root.display());
    assert_eq!(readable, rebuilt.indexed);
    // Nearly every description has a word to search by.
    assert!(searched * 100 >= readable * 95, "{searched} of {readable}");
    assert!(env.check().is_clean());
    eprintln!(
        "frontmatter-wild at {}: {readable} readable files indexed, {searched} found by a word of their description, {} skipped",
        root.display(),
        rebuilt.skipped.len()
    );
}

#[test]
fn the_committed_sample_is_searchable() {
    every_readable_file_is_found_by_a_word_of_its_description(&sample_root(), Lookup::Search);
}

#[test]
#[cfg_attr(
    corpus_absent,
    ignore = "the frontmatter-wild corpus is not at ../shared/corpora/frontmatter-wild beside the checkout"
)]
fn the_whole_corpus_is_searchable() {
    let root = corpus_root();
    every_readable_file_is_found_by_a_word_of_its_description(&root, Lookup::Match);
}
