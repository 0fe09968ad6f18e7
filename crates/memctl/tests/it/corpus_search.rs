//! Real files as people and tools write them (the frontmatter-wild corpus)
//! indexed: every record `list --json` reports is indexed, and a search for
//! the rarest word of its description finds it.
//!
//! The whole corpus lives outside the repository and may be absent; the
//! committed sample under `tests/fixtures/` always runs.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::Path;

use crate::corpus::{copy_records, corpus_root};
use crate::env::TestEnv;

/// Records of the whole corpus searched for. One `memctl search` process
/// costs 40 to 150 ms in a debug build, so all 1,222 records would take
/// minutes; a sample of 200 (seeded, so that a failure repeats) keeps this
/// test near 15 s. Every record is still indexed and listed.
const CORPUS_SAMPLE: usize = 200;
const SAMPLE_SEED: u64 = 0x5eed_c0de;

/// Words shorter than this are not picked (they are mostly stop words).
const MIN_LETTERS: usize = 4;

/// A query that may match more records than this is not run: each result
/// costs a snippet, and a debug build makes those slow on long records.
const MAX_MATCHING: usize = 25;

#[test]
fn every_record_of_the_committed_sample_is_found_by_a_word_of_its_description() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/frontmatter-wild-sample");
    search_each_record(&dir, None);
}

#[test]
#[cfg_attr(
    corpus_absent,
    ignore = "the frontmatter-wild corpus is not at ../shared/corpora/frontmatter-wild beside the checkout"
)]
fn a_seeded_sample_of_the_whole_corpus_is_found_by_words_of_their_descriptions() {
    search_each_record(&corpus_root(), Some(CORPUS_SAMPLE));
}

/// One record as `list --json` reports it.
struct Listed {
    id: String,
    description: String,
    text: String,
}

/// The words of `text` as a person reads them: runs of letters and digits.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// Which records each index term occurs in. The terms come from the
/// index's own word-form rules (stems, CJK bigrams), used here only to judge
/// which description words are rare; finding the records is left to the
/// binary. Each distinct word is prepared once: the corpus has 13 MB of
/// text but few distinct words.
struct Rarity {
    terms_of: HashMap<String, Vec<String>>,
    /// Record numbers, ascending.
    records_with: HashMap<String, Vec<usize>>,
}

impl Rarity {
    fn of(records: &[Listed]) -> Rarity {
        let mut rarity = Rarity {
            terms_of: HashMap::new(),
            records_with: HashMap::new(),
        };
        for (n, record) in records.iter().enumerate() {
            let mut terms: BTreeSet<String> = BTreeSet::new();
            let distinct: BTreeSet<String> = words(&record.text)
                .chain(words(&record.id))
                .map(str::to_lowercase)
                .collect();
            for word in distinct {
                terms.extend(rarity.terms(&word).iter().cloned());
            }
            for term in terms {
                rarity.records_with.entry(term).or_default().push(n);
            }
        }
        rarity
    }

    fn terms(&mut self, word: &str) -> &Vec<String> {
        self.terms_of.entry(word.to_string()).or_insert_with(|| {
            mdwords::index_text(word)
                .split_whitespace()
                .map(str::to_string)
                .collect()
        })
    }

    /// The records that may match `word`: those with its rarest term.
    fn records_matching(&mut self, word: &str) -> Vec<usize> {
        let terms = self.terms(&word.to_lowercase()).clone();
        terms
            .iter()
            .map(|t| self.records_with.get(t).cloned().unwrap_or_default())
            .min_by_key(Vec::len)
            .unwrap_or_default()
    }

    /// A query of the rarest word of `description` with at least
    /// [`MIN_LETTERS`] letters, and how many records may match it. When that
    /// word is common (the description has only common words), the next
    /// rarest words join it, each required, until few records are left.
    fn query_for(&mut self, description: &str) -> Option<(Vec<String>, usize)> {
        let candidates: BTreeSet<&str> = words(description)
            .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= MIN_LETTERS)
            .collect();
        let mut ranked: Vec<(Vec<usize>, &str)> = candidates
            .into_iter()
            .map(|w| (self.records_matching(w), w))
            .collect();
        ranked.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then(a.1.cmp(b.1)));
        let mut ranked = ranked.into_iter();
        let (mut matching, word) = ranked.next()?;
        if matching.len() <= MAX_MATCHING {
            return Some((vec![word.to_string()], matching.len()));
        }
        let mut query = vec![format!("+{word}")];
        for (records, word) in ranked {
            if matching.len() <= MAX_MATCHING {
                break;
            }
            matching.retain(|n| records.binary_search(n).is_ok());
            query.push(format!("+{word}"));
        }
        Some((query, matching.len()))
    }
}

fn search_each_record(source: &Path, sample: Option<usize>) {
    let env = TestEnv::bare();
    let store = env.store();
    fs::create_dir_all(&store).expect("the store folder");
    copy_records(source, &store);

    let reindex = env.run(&["reindex"]);
    reindex.assert_success();
    let list = env.run(&["list", "--json"]);
    list.assert_success();
    let mut records: Vec<Listed> = list
        .json()
        .as_array()
        .expect("an array")
        .iter()
        .map(|row| {
            let field = |key: &str| row[key].as_str().expect("a string field").to_string();
            Listed {
                id: field("id"),
                description: field("description"),
                text: fs::read_to_string(field("path")).expect("a listed record is UTF-8"),
            }
        })
        .collect();
    let header = format!(
        "workspace store {}: indexed {} records, skipped ",
        store.display(),
        records.len()
    );
    assert!(
        reindex.stdout.starts_with(&header),
        "reindex indexes every listed record\n{}",
        reindex.render()
    );
    for line in reindex.stdout.lines().skip(1) {
        assert!(
            line.ends_with(
                ": a dotfile, so not a record; rename it without the leading dot to make it one"
            ),
            "only dotfiles are skipped: {line}"
        );
    }

    let mut rarity = Rarity::of(&records);
    if let Some(n) = sample {
        fastrand::Rng::with_seed(SAMPLE_SEED).shuffle(&mut records);
        records.truncate(n);
    }

    let mut no_word = 0;
    let mut too_common = 0;
    let mut rare = 0;
    let mut in_top_10 = 0;
    let mut missed = Vec::new();
    for record in &records {
        let Some((query, matching)) = rarity.query_for(&record.description) else {
            no_word += 1;
            continue;
        };
        if matching > MAX_MATCHING {
            too_common += 1;
            continue;
        }
        // A query at most 10 records can match must bring its record into
        // the top 10; a commoner one must bring it among all it can match.
        let limit = matching.max(10).to_string();
        let mut args = vec!["search", "--json", "--limit", &limit];
        args.extend(query.iter().map(String::as_str));
        let run = env.run(&args);
        assert!(run.code == 0 || run.code == 1, "{}", run.render());
        let ids = run.hit_ids();
        match ids.iter().position(|id| *id == record.id) {
            Some(rank) => {
                if rank < 10 {
                    in_top_10 += 1;
                }
                if matching <= 10 {
                    rare += 1;
                    assert!(
                        rank < 10,
                        "{query:?} (in {matching} records): {}",
                        run.render()
                    );
                }
            }
            None => missed.push(format!(
                "{} not found by {query:?} (in {matching} records; {} results: {:?})",
                record.id,
                ids.len(),
                &ids[..ids.len().min(3)]
            )),
        }
    }
    println!(
        "{}: {} records; {no_word} without a word of {MIN_LETTERS}+ letters, {too_common} \
         with only words more than {MAX_MATCHING} records contain; {rare} found by a query at most \
         10 records match; {in_top_10} in the top 10",
        source.display(),
        records.len()
    );
    // Records skipped for want of a usable word may not hide that nothing
    // was searched: at least 3 of 4 must be (the whole corpus's seeded
    // sample has 168 of 200).
    assert!(
        !records.is_empty() && (no_word + too_common) * 4 <= records.len(),
        "only {} of {} records had a word to search by",
        records.len() - no_word - too_common,
        records.len()
    );
    assert!(
        missed.is_empty(),
        "{} records not found by a word of their description:\n{}",
        missed.len(),
        missed.join("\n")
    );
}
