//! Whether two records say the same thing in other words: the judge of
//! near-duplicates (docs/DREAM.md has the measurements behind each rule).
//!
//! A record is compared by its body (its description only when the body
//! has no words: the description is a title, and titles of different facts
//! on one subject are often the same): the set of its content words (the
//! index's terms without stop words, a few abbreviations spelled out) and
//! values. Two records are near-duplicates when
//! - no value of one is replaced by another in the other ("Node 18" and
//!   "Node 22": a correction, or another fact); a value only one of them has
//!   is a detail added, allowed when one record holds the other's words;
//! - their word sets are alike: Jaccard similarity at least the threshold,
//!   or the smaller (of at least [`MIN_CONTAINED`] words) mostly inside the
//!   larger (a restatement plus a `Why:` line). Words one letter apart
//!   (`pushng`, `pushing`) count as the same;
//! - one does not negate what the other says (a `not`, `never`, `不`, `않`
//!   in only one of them), unless they are nearly the same words;
//! - they are not one sentence with one word replaced ("the default branch
//!   is master" / "… is main": the same sentence about another thing);
//! - a long record (more than [`LONG_WORDS`] words) also keeps its word
//!   order: on long texts of one subject word sets are alike by chance.

use std::collections::HashMap;
use std::sync::LazyLock;

use mdstore::markdown;
use mdwords::stopwords;
use mdwords::{index_text, is_cjk};

use crate::gather::replaced::{self, Kind, Side};
use crate::gather::terms::{Terms, hash_term, mix};
use crate::records::DreamRecord;

/// The Jaccard similarity of word sets from which two records are
/// near-duplicates, chosen on the first labelled set (docs/DREAM.md).
pub const NEAR_THRESHOLD: f64 = 0.375;

/// The share of the smaller record's words inside the larger one from
/// which it restates it, for a smaller record of at least
/// [`MIN_CONTAINED`] words.
const CONTAINED: f64 = 0.7;
const MIN_CONTAINED: usize = 5;

/// Records with more words than this are long: their adjacent word pairs
/// must be alike too, at least [`LONG_PAIRS`] (Jaccard).
pub(crate) const LONG_WORDS: usize = 40;
const LONG_PAIRS: f64 = 0.5;

/// Two records whose words are this alike may differ in a negation (one
/// adds "no tabs" to the other).
const NEGATION_OVERRIDE: f64 = 0.7;

/// Abbreviations and spellings that name the same thing, as written; both
/// sides become index terms when first used.
const ALIASES: &[(&str, &str)] = &[
    ("config", "configuration"),
    ("db", "database"),
    ("dep", "dependency"),
    ("deps", "dependencies"),
    ("doc", "documentation"),
    ("docs", "documentation"),
    ("env", "environment"),
    ("golang", "go"),
    ("js", "javascript"),
    ("k8s", "kubernetes"),
    ("kube", "kubernetes"),
    ("postgresql", "postgres"),
    ("pr", "pull request"),
    ("prod", "production"),
    ("prs", "pull requests"),
    ("repo", "repository"),
    ("ts", "typescript"),
];

/// Index term of an abbreviation → the index terms it stands for.
static ALIAS_TERMS: LazyLock<HashMap<String, Vec<String>>> = LazyLock::new(|| {
    ALIASES
        .iter()
        .map(|(short, long)| {
            let terms = index_text(long).split(' ').map(str::to_string).collect();
            (index_text(short), terms)
        })
        .collect()
});

/// Words that only quantify ("every change", "each change"), left out of
/// the one-word-replaced rule as stop words are.
const QUANTIFIERS: &[&str] = &["all", "any", "each", "everi", "some"];

/// English words that negate or set aside what follows. Contractions
/// (`don't`) are found in the text itself.
const NEGATIONS: &[&str] = &[
    "avoid", "cannot", "except", "instead", "neither", "never", "no", "nobody", "none", "nor",
    "not", "nothing", "rather", "unless", "without",
];

/// Negations of Chinese, Japanese and Korean, found in the text as written.
const CJK_NEGATIONS: &[&str] = &[
    "不", "别", "没", "勿", "禁止", "无", "ない", "ぬ", "않", "안 ", "말", "못", "없", "금지",
];

/// What the first, cheap look at a pair needs of a record: kept for every
/// record while gathering, where the whole [`Likeness`] is made again only
/// for pairs that pass it.
#[derive(Clone, Debug)]
pub(crate) struct Screen {
    /// Hashes of its content words and values, sorted, each once.
    words: Box<[u64]>,
    /// Hashes of its values (description and `expires` included), sorted,
    /// each once.
    values: Box<[u64]>,
    /// Hashes of its content words that are not values, sorted, each once.
    plain: Box<[u64]>,
}

/// A record as the judge compares it.
#[derive(Debug)]
pub(crate) struct Likeness {
    screen: Screen,
    /// Its words in order (stop words included), for the one-word-replaced
    /// rule; empty for a long record.
    sequence: Vec<(u64, Kind)>,
    /// Hashes of adjacent content words, for a long record only.
    pairs: Vec<u64>,
    /// The lower-case spelling of each English content word (by hash), for
    /// words one letter apart; empty for a long record.
    spellings: Vec<(u64, String)>,
    negated: bool,
    /// What its English negations negate: the (up to) three content words
    /// after each, sorted.
    negated_words: Vec<u64>,
    /// Its description's words in order, and how its English content words
    /// are spelled, when the body is what is compared: a description names
    /// the subject ("Alice owns the payments module") that a templated body
    /// leaves out.
    title: Vec<(u64, Kind)>,
    title_spellings: Vec<(u64, String)>,
    /// Its description's content words, sorted.
    title_words: Vec<u64>,
}

/// Keeps an `expires` date apart from any value of the text.
const EXPIRES: u64 = 0x6578_7069_7265_7300;

/// One term as compared: its key, whether it is a stop word, a value, and
/// how it is spelled.
struct Key {
    key: String,
    stop: bool,
    value: bool,
    spelling: String,
}

impl Likeness {
    pub(crate) fn of(record: &DreamRecord) -> Likeness {
        let description = record.record.meta.description.as_deref().unwrap_or("");
        Likeness::from_terms(
            record,
            &Terms::of(description),
            &Terms::of(&markdown::live_text(&record.record.body)),
        )
    }

    /// From a record and the terms of its description and of its body's
    /// live text (struck, commented and hidden text is no fact).
    pub(crate) fn from_terms(record: &DreamRecord, description: &Terms, body: &Terms) -> Likeness {
        let titled = keys(description);
        let written = keys(body);
        let mut values: Vec<u64> = written
            .iter()
            .chain(&titled)
            .filter(|k| k.value)
            .map(|k| hash_term(&k.key))
            .collect();
        // When a fact ends is part of it: "freeze until today" and "freeze
        // until December" are two facts, however alike their words.
        if let Some(expires) = &record.record.meta.expires {
            values.push(mix(hash_term(expires.trim()) ^ EXPIRES));
        }
        if !written.iter().any(|k| !k.stop) {
            return Likeness::from_keys(&titled, values, is_negated(&description.text));
        }
        let mut likeness = Likeness::from_keys(&written, values, is_negated(&body.text));
        if titled.len() <= replaced::MAX_TERMS {
            (likeness.title, likeness.title_spellings) = sequence_of(&titled);
        }
        likeness.title_words = sorted(
            titled
                .iter()
                .filter(|k| !k.stop)
                .map(|k| hash_term(&k.key))
                .collect(),
        );
        likeness
    }

    fn from_keys(keys: &[Key], values: Vec<u64>, negated: bool) -> Likeness {
        let content: Vec<&Key> = keys.iter().filter(|k| !k.stop).collect();
        // A value and a word are one key: "Wednesdays" is a name inside a
        // sentence and a word at its start.
        let hash = |k: &Key| hash_term(&k.key);
        let words = sorted(content.iter().map(|k| hash(k)).collect());
        let plain = sorted(
            content
                .iter()
                .filter(|k| !k.value)
                .map(|k| hash(k))
                .collect(),
        );
        let long = words.len() > LONG_WORDS;
        let pairs = if long {
            let hashes: Vec<u64> = content.iter().map(|k| hash(k)).collect();
            sorted(
                hashes
                    .windows(2)
                    .map(|w| mix(w[0].rotate_left(17) ^ w[1]))
                    .collect(),
            )
        } else {
            Vec::new()
        };
        let (sequence, spellings) = if long {
            (Vec::new(), Vec::new())
        } else {
            sequence_of(keys)
        };
        Likeness {
            screen: Screen {
                words: words.into(),
                plain: plain.into(),
                values: sorted(values).into(),
            },
            sequence,
            pairs,
            spellings,
            negated,
            negated_words: negated_words(keys),
            title: Vec::new(),
            title_spellings: Vec::new(),
            title_words: Vec::new(),
        }
    }

    /// Whether the record holds `word` anywhere: its body or its description.
    fn holds(&self, word: u64) -> bool {
        self.screen.words.binary_search(&word).is_ok()
            || self.title_words.binary_search(&word).is_ok()
    }

    /// Its words and values, for the candidate search.
    pub(crate) fn features(&self) -> &[u64] {
        if self.pairs.is_empty() {
            &self.screen.words
        } else {
            &self.pairs
        }
    }

    pub(crate) fn into_screen(self) -> Screen {
        self.screen
    }

    /// How a content word (by hash) is spelled, if it is an English word.
    fn spelling(&self, word: u64) -> Option<&str> {
        self.spellings
            .iter()
            .find(|(h, _)| *h == word)
            .map(|(_, s)| s.as_str())
    }
}

/// How each English content word of a text is spelled, by hash.
type Spellings = Vec<(u64, String)>;

/// Terms in order, each with its [`Kind`], and how each English content
/// word is spelled (for words one letter apart).
fn sequence_of(keys: &[Key]) -> (Vec<(u64, Kind)>, Spellings) {
    let sequence = keys
        .iter()
        .map(|k| {
            let kind = if k.stop || QUANTIFIERS.contains(&k.key.as_str()) {
                Kind::Function
            } else if k.key.chars().any(is_cjk) {
                Kind::Cjk
            } else {
                Kind::Word
            };
            (hash_term(&k.key), kind)
        })
        .collect();
    let spellings = keys
        .iter()
        .filter(|k| !k.stop && !k.value && typo_checked(&k.spelling))
        .map(|k| (hash_term(&k.key), k.spelling.clone()))
        .collect();
    (sequence, spellings)
}

fn sorted(mut hashes: Vec<u64>) -> Vec<u64> {
    hashes.sort_unstable();
    hashes.dedup();
    hashes
}

/// The terms of a text as keys: a value's terms joined into one key, an
/// abbreviation spelled out (a value stays a value unless it stands for
/// several words: `PR` is "pull request").
fn keys(terms: &Terms) -> Vec<Key> {
    let mut out: Vec<Key> = Vec::with_capacity(terms.terms.len());
    let mut last_value = None;
    for term in &terms.terms {
        let spelling = terms.text[term.span.clone()].to_lowercase();
        if let (Some(chunk), Some(last)) = (term.value, out.last_mut())
            && last_value == Some(chunk)
            && last.value
        {
            last.key.push(' ');
            last.key.push_str(&term.term);
            last.spelling.push(' ');
            last.spelling.push_str(&spelling);
            continue;
        }
        last_value = term.value;
        let value = term.value.is_some();
        match ALIAS_TERMS.get(&term.term) {
            Some(long) if long.len() > 1 || !value => {
                out.extend(long.iter().map(|t| Key {
                    key: t.clone(),
                    stop: false,
                    value: false,
                    spelling: t.clone(),
                }));
                last_value = None;
            }
            Some(long) => out.push(Key {
                key: long[0].clone(),
                stop: false,
                value,
                spelling,
            }),
            None => out.push(Key {
                stop: !value && is_stop(&term.term, &spelling),
                key: term.term.clone(),
                value,
                spelling,
            }),
        }
    }
    out
}

/// A value as compared: its index terms, an abbreviation spelled out
/// (`K8s` and `Kubernetes`, `Mondays` and `Monday` are one value).
pub(crate) fn value_key(value: &str) -> String {
    let terms = index_text(value);
    match ALIAS_TERMS.get(&terms) {
        Some(long) => long.join(" "),
        None => terms,
    }
}

fn is_stop(term: &str, spelling: &str) -> bool {
    if term.chars().any(is_cjk) {
        stopwords::is_cjk_stop_word(term)
    } else {
        stopwords::is_english(spelling) || stopwords::is_english(term)
    }
}

/// The content words after each English negation (`never merge main`:
/// merge, main; `don't` is `don` and `t` among the terms).
fn negated_words(keys: &[Key]) -> Vec<u64> {
    let mut out = Vec::new();
    for (n, key) in keys.iter().enumerate() {
        let contraction =
            key.spelling == "t" && n > 0 && keys[n - 1].spelling.ends_with('n') && keys[n - 1].stop;
        if !(contraction || NEGATIONS.binary_search(&key.spelling.as_str()).is_ok()) {
            continue;
        }
        out.extend(
            keys[n + 1..]
                .iter()
                .filter(|k| !k.stop && NEGATIONS.binary_search(&k.spelling.as_str()).is_err())
                .take(NEGATED_SCOPE)
                .map(|k| hash_term(&k.key)),
        );
    }
    sorted(out)
}

/// How many content words after a negation it is taken to negate.
const NEGATED_SCOPE: usize = 3;

fn is_negated(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.contains("n't")
        || lower.contains("n\u{2019}t")
        || CJK_NEGATIONS.iter().any(|n| lower.contains(n))
        || lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| NEGATIONS.binary_search(&w).is_ok())
}

/// Whether a word is checked for a one-letter difference: an English word
/// of four letters or more (shorter words one letter apart are often
/// different words: `main`, `man`).
fn typo_checked(spelling: &str) -> bool {
    spelling.chars().count() >= 4 && spelling.chars().all(|c| c.is_ascii_alphabetic())
}

/// Whether two records may be near-duplicates at `threshold`, from their
/// words and values alone: no pair [`near_duplicates`] accepts fails this.
pub(crate) fn may_be_near(a: &Screen, b: &Screen, threshold: f64) -> bool {
    if a.words.is_empty() || b.words.is_empty() || values_replaced(a, b) {
        return false;
    }
    let (exact, small, large) = sizes(a, b);
    // One-letter differences can only add to the shared words: even
    // matching all of them must be enough.
    let spare = (small - exact).min(large - exact);
    passes(exact + spare, small, large, threshold, a, b)
}

/// Words shared, and the word counts of the smaller and the larger record.
fn sizes(a: &Screen, b: &Screen) -> (usize, usize, usize) {
    let exact = shared(&a.words, &b.words);
    let (x, y) = (a.words.len(), b.words.len());
    (exact, x.min(y), x.max(y))
}

/// How alike two records are, and whether they are near-duplicates at
/// `threshold`.
pub(crate) fn near_duplicates(a: &Likeness, b: &Likeness, threshold: f64) -> Option<f64> {
    if !may_be_near(&a.screen, &b.screen, threshold) {
        return None;
    }
    let (exact, small, large) = sizes(&a.screen, &b.screen);
    let (sa, sb) = (&a.screen, &b.screen);
    let typos = one_letter_apart(a, b);
    // The same values alone ("Use Node 18", "使用 Node 18") are not the
    // same fact: some word must be shared too.
    if shared(&sa.plain, &sb.plain) + typos == 0 {
        return None;
    }
    let together = exact + typos;
    let jaccard = together as f64 / (small + large - together) as f64;
    let contained = together as f64 / small as f64;
    if !passes(together, small, large, threshold, sa, sb) {
        return None;
    }
    if a.negated != b.negated && jaccard < NEGATION_OVERRIDE && contained < 1.0 {
        return None;
    }
    // Both negate, but not the same thing: "never merge main into a
    // feature branch" and "merge main … instead of rebasing".
    if !a.negated_words.is_empty()
        && !b.negated_words.is_empty()
        && shared(&a.negated_words, &b.negated_words) == 0
    {
        return None;
    }
    if about_other_things(a, b) {
        return None;
    }
    if !a.pairs.is_empty() || !b.pairs.is_empty() {
        let together = shared(&a.pairs, &b.pairs);
        let union = a.pairs.len() + b.pairs.len() - together;
        if union == 0 || (together as f64 / union as f64) < LONG_PAIRS {
            return None;
        }
    }
    Some(jaccard)
}

/// The similarity rule with `together` words shared.
fn passes(
    together: usize,
    small: usize,
    large: usize,
    threshold: f64,
    a: &Screen,
    b: &Screen,
) -> bool {
    let jaccard = together as f64 / (small + large - together).max(1) as f64;
    let contains = small >= MIN_CONTAINED && together as f64 / small as f64 >= CONTAINED;
    // A value only one of them holds is a detail the other lacks: allowed
    // when the other's words are inside it.
    if extra_value(a, b) || extra_value(b, a) {
        return jaccard >= threshold && contains;
    }
    jaccard >= threshold || contains
}

/// Both hold a value the other does not have, as a value or a word.
fn values_replaced(a: &Screen, b: &Screen) -> bool {
    extra_value(a, b) && extra_value(b, a)
}

/// `a` holds a value `b` does not have, as a value or a word.
fn extra_value(a: &Screen, b: &Screen) -> bool {
    a.values
        .iter()
        .any(|v| b.words.binary_search(v).is_err() && b.values.binary_search(v).is_err())
}

/// How many of two sorted lists' hashes are in both.
/// Whether every content word and value of `inner` is in `outer`: `outer`
/// already says all `inner` says.
pub(crate) fn holds(outer: &Likeness, inner: &Likeness) -> bool {
    let (o, i) = (&outer.screen, &inner.screen);
    shared(&i.words, &o.words) == i.words.len() && shared(&i.values, &o.values) == i.values.len()
}

fn shared(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Words of `a` not in `b` that are one letter (added, removed, changed
/// or swapped) from a word of `b` not in `a`, each used once.
fn one_letter_apart(a: &Likeness, b: &Likeness) -> usize {
    let only = |x: &Likeness, y: &Likeness| -> Vec<String> {
        x.spellings
            .iter()
            .filter(|(h, _)| y.screen.words.binary_search(h).is_err())
            .map(|(_, s)| s.clone())
            .collect()
    };
    let (from_a, mut from_b) = (only(a, b), only(b, a));
    let mut n = 0;
    for word in from_a {
        if let Some(k) = from_b.iter().position(|other| one_edit(&word, other)) {
            from_b.swap_remove(k);
            n += 1;
        }
    }
    n
}

/// Damerau–Levenshtein distance exactly one.
pub(crate) fn one_edit(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b || a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[prefix..], &b[prefix..]);
    if ra.len() == rb.len() {
        ra[1..] == rb[1..]
            || (ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
    } else if ra.len() > rb.len() {
        ra[1..] == *rb
    } else {
        rb[1..] == *ra
    }
}

/// The same sentence about other things: the bodies with one word
/// replaced, or the descriptions of records whose bodies are compared as
/// one template filled in for another subject ("Alice owns the payments
/// module" / "Bob owns the search module" above one body saying who
/// reviews changes; see [`replaced`]).
fn about_other_things(a: &Likeness, b: &Likeness) -> bool {
    let body_a = |h: u64| a.spelling(h);
    let body_b = |h: u64| b.spelling(h);
    let in_body_a = |h: u64| a.screen.words.binary_search(&h).is_ok();
    let in_body_b = |h: u64| b.screen.words.binary_search(&h).is_ok();
    if replaced::one_place(
        &Side {
            terms: &a.sequence,
            spelling: &body_a,
            holds: &in_body_a,
        },
        &Side {
            terms: &b.sequence,
            spelling: &body_b,
            holds: &in_body_b,
        },
    ) {
        return true;
    }
    let title_a = |h: u64| spelled(&a.title_spellings, h);
    let title_b = |h: u64| spelled(&b.title_spellings, h);
    let holds_a = |h: u64| a.holds(h);
    let holds_b = |h: u64| b.holds(h);
    replaced::other_things(
        &Side {
            terms: &a.title,
            spelling: &title_a,
            holds: &holds_a,
        },
        &Side {
            terms: &b.title,
            spelling: &title_b,
            holds: &holds_b,
        },
    ) >= TITLE_PLACES
}

/// Places where a description's words stand for others from which two
/// records are about other subjects. One is often a restatement's other
/// word for the same thing ("Monorepo layout" / "Repository layout"); a
/// subject named inside a sentence is a value, and values replaced already
/// make two records different.
const TITLE_PLACES: usize = 2;

fn spelled(spellings: &[(u64, String)], word: u64) -> Option<&str> {
    spellings
        .iter()
        .find(|(h, _)| *h == word)
        .map(|(_, s)| s.as_str())
}
