//! The labelled set of docs/SECRETS.md: secret-shaped lines generated with a
//! fixed seed from the templates in tests/fixtures/secrets/, and lines that
//! are not secrets. Shared by the tests (`secrets.rs`) and
//! `examples/secrets_eval.rs`, which prints the figures.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mdstore::guard::secrets::{SecretFinding, find_secrets};

/// The seed every figure in docs/SECRETS.md was measured with.
pub const SEED: u64 = 6;
/// How many lines each template gives.
const SAMPLES_PER_TEMPLATE: usize = 2;

/// One generated line and what it is.
pub struct Labelled {
    /// The family (positives) or kind (negatives) it belongs to.
    pub group: String,
    /// The rule expected to name it; empty for a negative.
    pub rule: String,
    pub line: String,
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/secrets")
}

/// Lines that are secrets, labelled with family and expected rule.
pub fn positives() -> Vec<Labelled> {
    generate("positives.tsv", 3)
}

/// Lines that are not secrets, labelled with their kind.
pub fn negatives() -> Vec<Labelled> {
    generate("negatives.tsv", 2)
}

fn generate(file: &str, columns: usize) -> Vec<Labelled> {
    let path = fixtures_dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut rng = fastrand::Rng::with_seed(SEED);
    let mut out = Vec::new();
    for (number, row) in text.lines().enumerate() {
        if row.starts_with('#') || row.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = row.splitn(columns, '\t').collect();
        assert_eq!(
            fields.len(),
            columns,
            "{}:{}: {row}",
            path.display(),
            number + 1
        );
        let (rule, template) = if columns == 3 {
            (fields[1], fields[2])
        } else {
            ("", fields[1])
        };
        for _ in 0..SAMPLES_PER_TEMPLATE {
            out.push(Labelled {
                group: fields[0].to_string(),
                rule: rule.to_string(),
                line: expand(template, &mut rng),
            });
        }
    }
    out
}

/// Replaces each `{kind:length}` token of `template` with random
/// characters; other braces (`{{ vault_secret }}`, JSON) stay as they are.
fn expand(template: &str, rng: &mut fastrand::Rng) -> String {
    let token = regex::Regex::new(r"\{([A-Za-z0-9]+(?::[0-9]+)?)\}").expect("token pattern");
    token
        .replace_all(template, |captures: &regex::Captures<'_>| {
            token_text(&captures[1], rng).unwrap_or_else(|| captures[0].to_string())
        })
        .into_owned()
}

fn token_text(token: &str, rng: &mut fastrand::Rng) -> Option<String> {
    const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
    const DIGITS: &str = "0123456789";
    let letters = format!("{UPPER}{LOWER}");
    let alnum = format!("{letters}{DIGITS}");
    match token {
        "uuid" => {
            let mut hex = |n| random(rng, "0123456789abcdef", n);
            return Some(format!(
                "{}-{}-4{}-a{}-{}",
                hex(8),
                hex(4),
                hex(3),
                hex(3),
                hex(12)
            ));
        }
        "pw" => return Some(password(rng)),
        "PRIVATE" => return Some(["PRIVATE", "KEY"].join(" ")),
        _ => {}
    }
    let (kind, length) = token.split_once(':')?;
    let length: usize = length.parse().ok()?;
    let alphabet = match kind {
        "alnum" => alnum,
        "upper" => format!("{UPPER}{DIGITS}"),
        "lower" => format!("{LOWER}{DIGITS}"),
        "letters" => letters,
        "digits" => DIGITS.to_string(),
        "hex" => "0123456789abcdef".to_string(),
        "base32" => format!("{UPPER}234567"),
        "base64" => format!("{alnum}+/"),
        "b64url" => format!("{alnum}-_"),
        "azure" => format!("{alnum}_~.-"),
        _ => panic!("unknown token {{{token}}}"),
    };
    Some(random(rng, &alphabet, length))
}

fn random(rng: &mut fastrand::Rng, alphabet: &str, length: usize) -> String {
    let chars: Vec<char> = alphabet.chars().collect();
    (0..length)
        .map(|_| chars[rng.usize(..chars.len())])
        .collect()
}

/// A password as people choose them: `Tiger42!harbor`.
fn password(rng: &mut fastrand::Rng) -> String {
    const WORDS: &[&str] = &[
        "tiger", "harbor", "summer", "violet", "falcon", "granite", "maple", "orbit", "pepper",
        "quartz", "river", "saturn", "winter", "zebra",
    ];
    const SYMBOLS: &[char] = &['!', '#', '%', '^', '&', '*', '?', '$'];
    let first = WORDS[rng.usize(..WORDS.len())];
    let mut word = first.to_string();
    if rng.bool() {
        word[..1].make_ascii_uppercase();
    }
    format!(
        "{word}{}{}{}",
        rng.u32(10..10_000),
        SYMBOLS[rng.usize(..SYMBOLS.len())],
        WORDS[rng.usize(..WORDS.len())]
    )
}

/// Detection on the positives, per family: (found, named by the expected rule, total).
pub fn detection_by_family(set: &[Labelled]) -> BTreeMap<String, (usize, usize, usize)> {
    let mut by_family: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    for labelled in set {
        let findings = find_secrets(&labelled.line);
        let entry = by_family.entry(labelled.group.clone()).or_default();
        entry.0 += usize::from(!findings.is_empty());
        entry.1 += usize::from(findings.iter().any(|f| f.rule == labelled.rule));
        entry.2 += 1;
    }
    by_family
}

/// Every finding in the `.md` files under `root`, with the file's path
/// relative to it; and how many files and bytes were read.
pub fn scan_tree(root: &Path) -> (Vec<(PathBuf, SecretFinding)>, usize, usize) {
    let mut findings = Vec::new();
    let (mut files, mut bytes) = (0, 0);
    let mut paths: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .map(|entry| entry.into_path())
        .filter(|path| {
            path.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md"))
        })
        .collect();
    paths.sort();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        files += 1;
        bytes += text.len();
        let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        findings.extend(find_secrets(&text).into_iter().map(|f| (rel.clone(), f)));
    }
    (findings, files, bytes)
}
