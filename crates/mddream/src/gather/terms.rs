//! The text gathering compares. Facts are the lines a reader sees, read
//! as Markdown and folded by `mdstore::markdown` (the one definition of a
//! fact: struck, commented and hidden text is no fact); terms are the
//! search index's own (`mdwords`: NFKC, English stems, the bigrams of
//! CJK words)
//! of that live text, with value tokens marked: numbers, versions, dates,
//! paths, identifiers and names (a capitalised word inside a sentence, a
//! word in backticks). Masking values makes "Node 18" and "Node 22" the
//! same sentence, which is what a correction is.

use std::ops::Range;

use mdstore::markdown;
use mdwords::{Segment, cjk_words, index_text, is_cjk, normalize, segments};

use crate::gather::in_parallel;
use crate::gather::near::{Bands, band_keys_all, signed_features};
use crate::gather::similar::{Likeness, Screen};
use crate::records::DreamRecord;

/// A record's description and the live text of its body (struck,
/// commented and hidden text left out), the text every gatherer compares.
pub(crate) fn record_text(record: &DreamRecord) -> String {
    let meta = &record.record.meta;
    format!(
        "{}\n{}",
        meta.description.as_deref().unwrap_or(""),
        markdown::live_text(&record.record.body)
    )
}

/// A one-line text (a description) as a fact.
pub(crate) fn text_fact(text: &str) -> String {
    let facts: Vec<String> = markdown::facts(text).into_iter().map(|(_, f)| f).collect();
    facts.join(" ")
}

/// The exact-duplicate key: the description's and the body's facts. `None`
/// for a record with no text at all.
pub(crate) fn exact_key(record: &DreamRecord) -> Option<String> {
    let meta = &record.record.meta;
    let mut key = text_fact(meta.description.as_deref().unwrap_or(""));
    let mut any = !key.is_empty();
    for (_, fact) in markdown::facts(&record.record.body) {
        key.push('\n');
        key.push_str(&fact);
        any = true;
    }
    any.then_some(key)
}

/// One index term of a record's text, with where it is in the (NFKC)
/// text and, for a value, which value it belongs to.
#[derive(Clone, Debug)]
pub(crate) struct Term {
    pub(crate) term: String,
    pub(crate) span: Range<usize>,
    /// The value chunk (a run of text without spaces or CJK) this term is
    /// part of, when that chunk is a value.
    pub(crate) value: Option<usize>,
}

/// A text's terms, and the text they point into.
pub(crate) struct Terms {
    pub(crate) text: String,
    pub(crate) terms: Vec<Term>,
}

impl Terms {
    pub(crate) fn of(text: &str) -> Terms {
        let text = normalize(text).into_owned();
        let chunks = value_chunks(&text);
        let mut terms = Vec::new();
        let mut chunk = 0;
        for (range, kind) in segments(&text) {
            match kind {
                Segment::Word => {
                    while chunk < chunks.len() && chunks[chunk].0.end <= range.start {
                        chunk += 1;
                    }
                    let value = chunks
                        .get(chunk)
                        .filter(|(c, is_value)| *is_value && c.start <= range.start)
                        .map(|_| chunk);
                    let term = index_text(&text[range.clone()]);
                    terms.push(Term {
                        term,
                        span: range,
                        value,
                    });
                }
                Segment::Cjk => push_bigrams(&text, range, &mut terms),
            }
        }
        Terms { text, terms }
    }

    /// The terms with every value replaced by one mark per value chunk: the
    /// sentence the values sit in.
    pub(crate) fn masked(&self) -> Vec<&str> {
        let mut out = Vec::with_capacity(self.terms.len());
        let mut last_value = None;
        for term in &self.terms {
            match term.value {
                Some(chunk) if last_value == Some(chunk) => {}
                Some(chunk) => {
                    out.push(VALUE_MARK);
                    last_value = Some(chunk);
                }
                None => {
                    out.push(term.term.as_str());
                    last_value = None;
                }
            }
        }
        out
    }

    /// The values, as written, in order.
    #[cfg(test)]
    pub(crate) fn values(&self) -> Vec<&str> {
        let mut out: Vec<(usize, Range<usize>)> = Vec::new();
        for term in &self.terms {
            let Some(chunk) = term.value else { continue };
            match out.last_mut() {
                Some((last, span)) if *last == chunk => span.end = term.span.end,
                _ => out.push((chunk, term.span.clone())),
            }
        }
        out.into_iter().map(|(_, span)| &self.text[span]).collect()
    }
}

/// What a masked value looks like among the terms (no term holds a space).
pub(crate) const VALUE_MARK: &str = "# #";

/// The terms of a CJK run: the bigrams of each of its words as the index
/// has them (a word of one character is itself), particles left out.
fn push_bigrams(text: &str, range: Range<usize>, terms: &mut Vec<Term>) {
    let mut words = Vec::new();
    cjk_words(&text[range.clone()], &mut words);
    for word in words {
        let word = range.start + word.start..range.start + word.end;
        let starts: Vec<usize> = text[word.clone()]
            .char_indices()
            .map(|(i, _)| word.start + i)
            .chain([word.end])
            .collect();
        if starts.len() == 2 {
            terms.push(Term {
                term: text[word.clone()].to_string(),
                span: word,
                value: None,
            });
            continue;
        }
        for pair in starts.windows(3) {
            let span = pair[0]..pair[2];
            terms.push(Term {
                term: text[span.clone()].to_string(),
                span,
                value: None,
            });
        }
    }
}

/// The runs of text between spaces and CJK characters, and whether each is
/// a value: it holds a digit, a path or identifier separator inside it, is
/// a number written as a word, or is a name (upper case inside the word, or
/// a capital that does not start a sentence). A code span (`` `cargo test
/// --workspace` ``) is one value, spaces and all, so that two commands are
/// two values rather than one value and some words.
fn value_chunks(text: &str) -> Vec<(Range<usize>, bool)> {
    let spans = code_spans(text);
    let mut spans = spans.iter().peekable();
    let mut chunks = Vec::new();
    let mut sentence_start = true;
    let mut start = None;
    let mut chars = text.char_indices().chain([(text.len(), ' ')]);
    while let Some((i, c)) = chars.next() {
        while spans.next_if(|span| span.end <= i).is_some() {}
        if start.is_none()
            && let Some(span) = spans.next_if(|span| span.start == i)
        {
            chunks.push((span.clone(), true));
            sentence_start = false;
            // Skip to the span's end; the character there is read next.
            for (j, _) in chars.by_ref() {
                if j + 1 >= span.end {
                    break;
                }
            }
            continue;
        }
        let breaks = c.is_whitespace() || is_cjk(c);
        match (start, breaks) {
            (None, false) => start = Some(i),
            (Some(s), true) => {
                let chunk = &text[s..i];
                chunks.push((s..i, is_value(chunk, sentence_start)));
                // A bullet or a dash between words does not end a sentence.
                if chunk.chars().any(char::is_alphanumeric) {
                    sentence_start = chunk.ends_with(['.', '!', '?', ':', ';']);
                }
                start = None;
            }
            _ => {}
        }
        if c == '\n' || matches!(c, '。' | '！' | '？') {
            sentence_start = true;
        } else if is_cjk(c) {
            // A word of Chinese, Japanese or Korean before a capital makes it
            // a name ("주 데이터베이스는 Postgres이다").
            sentence_start = false;
        }
    }
    chunks
}

/// The byte ranges of inline code spans: a backtick to the next one on the
/// same line, both included.
fn code_spans(text: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut open: Option<usize> = None;
    for (i, c) in text.char_indices() {
        match (c, open) {
            ('`', None) => open = Some(i),
            ('`', Some(start)) => {
                spans.push(start..i + 1);
                open = None;
            }
            ('\n', Some(_)) => open = None,
            _ => {}
        }
    }
    spans
}

/// English numbers written as words: "retried three times" and "retried
/// five times" differ in a value as "3" and "5" do. Not "one", which is as
/// often "a" ("within one week") or a pronoun. Sorted.
const NUMBER_WORDS: &[&str] = &[
    "eight",
    "eighteen",
    "eighty",
    "eleven",
    "fifteen",
    "fifty",
    "five",
    "forty",
    "four",
    "fourteen",
    "hundred",
    "million",
    "nine",
    "nineteen",
    "ninety",
    "seven",
    "seventeen",
    "seventy",
    "six",
    "sixteen",
    "sixty",
    "ten",
    "thirteen",
    "thirty",
    "thousand",
    "three",
    "twelve",
    "twenty",
    "two",
    "zero",
];

fn is_value(chunk: &str, sentence_start: bool) -> bool {
    if chunk.starts_with('`') {
        return true;
    }
    let core = chunk.trim_matches(|c: char| !c.is_alphanumeric());
    if core.chars().any(|c| c.is_ascii_digit())
        || core.contains(['/', '\\', '.', '@', ':', '_', '='])
    {
        return true;
    }
    if NUMBER_WORDS
        .binary_search(&core.to_ascii_lowercase().as_str())
        .is_ok()
    {
        return true;
    }
    let mut chars = core.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let rest: Vec<char> = chars.collect();
    if rest.is_empty() {
        return false;
    }
    rest.iter().any(|c| c.is_uppercase()) || (first.is_uppercase() && !sentence_start)
}

/// What near-duplicates and corrections need of each record, computed once
/// and kept for every record while gathering: small, since 100,000 of them
/// are held at once (issue 29). A record's words and values for the first
/// look at a pair ([`Screen`]) are made again for the few records in a
/// candidate pair instead (see [`crate::gather::near::find`]).
pub(crate) struct Prepared {
    /// A hash of the masked terms: records with the same one differ at most
    /// in their values.
    pub(crate) masked_key: u64,
    /// Terms that are not values.
    pub(crate) words: usize,
    /// Whether the record has any value.
    pub(crate) has_values: bool,
}

/// [`Prepared`] for every record, and its buckets in the bands of the
/// near-duplicate search, spread over the machine's cores.
pub(crate) fn prepare_all(records: &[DreamRecord]) -> (Vec<Prepared>, Vec<Bands>) {
    let (prepared, features): (Vec<Prepared>, Vec<Vec<u64>>) =
        in_parallel(records, prepare).into_iter().unzip();
    (prepared, band_keys_all(features))
}

/// A record's [`Prepared`] and the features its near-duplicate signature
/// is made of.
fn prepare(record: &DreamRecord) -> (Prepared, Vec<u64>) {
    let description_text = record.record.meta.description.as_deref().unwrap_or("");
    let description = Terms::of(description_text);
    let body = Terms::of(&markdown::live_text(&record.record.body));
    // The masked terms of the description and then the body: what
    // [`record_text`]'s terms mask to, without building that text.
    let masked: Vec<&str> = description
        .masked()
        .into_iter()
        .chain(body.masked())
        .collect();
    let words = masked.iter().filter(|t| **t != VALUE_MARK).count();
    let masked_key = masked
        .iter()
        .fold(0x9e37_79b9_7f4a_7c15, |acc, t| mix(acc ^ hash_term(t)));
    let likeness = Likeness::from_terms(record, &description, &body);
    let prepared = Prepared {
        masked_key,
        words,
        has_values: words < masked.len(),
    };
    (prepared, signed_features(likeness.features()))
}

/// A record's [`Screen`]: what [`prepare`] saw of it, made again.
pub(crate) fn screen_of(record: &DreamRecord) -> Screen {
    Likeness::of(record).into_screen()
}

/// FNV-1a: stable across runs and platforms, so plans are reproducible.
pub(crate) fn hash_term(term: &str) -> u64 {
    term.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The splitmix64 finaliser: spreads every input bit over the output.
pub(crate) fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(description: &str, body: &str) -> DreamRecord {
        let text = format!("---\nname: r\ndescription: {description}\ntype: user\n---\n{body}");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("r.md"), text).unwrap();
        let store = mdstore::Store::open(dir.path()).unwrap();
        DreamRecord {
            scope: crate::plan::Scope::Workspace,
            record: store.read_record("r.md".as_ref()).unwrap(),
        }
    }

    /// `gather::terms` deleted `~~`, so a struck-through fact read as the
    /// fact itself: two records, one striking what the other says, were
    /// exact duplicates.
    #[test]
    fn a_struck_fact_was_read_as_the_fact_itself() {
        let said = record("Package manager", "- we use npm\n");
        let struck = record("Package manager", "- ~~we use npm~~\n- we use pnpm\n");
        assert_ne!(exact_key(&said), exact_key(&struck));
        assert_eq!(
            exact_key(&struck).as_deref(),
            Some("package manager\nwe use pnpm")
        );
        let commented = record("Package manager", "<!-- we use npm -->\n");
        assert_eq!(exact_key(&commented).as_deref(), Some("package manager"));
        assert!(!record_text(&struck).contains("use npm"));
    }

    #[test]
    fn facts_lose_markup_case_and_spacing() {
        let a = record(
            "d",
            "  - Use **pnpm**,   NEVER `npm`. \n1. [x] _done_\n## ＰＮＰＭ only\n",
        );
        assert_eq!(
            exact_key(&a).as_deref(),
            Some("d\nuse pnpm, never npm\ndone\npnpm only")
        );
    }

    #[test]
    fn values_are_numbers_paths_identifiers_and_names_inside_a_sentence() {
        let terms = Terms::of(
            "We use Node 18 and Postgres.\nConfig in /etc/app.toml, `pnpm` too. Tests pass.",
        );
        assert_eq!(
            terms.values(),
            vec!["Node", "18", "Postgres", "etc/app.toml", "pnpm"]
        );
        assert_eq!(
            terms.masked(),
            vec![
                "we", "use", VALUE_MARK, VALUE_MARK, "and", VALUE_MARK, "config", "in", VALUE_MARK,
                VALUE_MARK, "too", "test", "pass"
            ]
        );
    }

    #[test]
    fn cjk_text_is_bigrams_and_its_numbers_are_values() {
        let terms = Terms::of("部署冻结到3月1日");
        assert_eq!(terms.values(), vec!["3", "1"]);
        assert_eq!(
            terms.masked(),
            vec![
                "部署", "署冻", "冻结", "结到", VALUE_MARK, "月", VALUE_MARK, "日"
            ]
        );
    }

    #[test]
    fn a_code_span_is_one_value_and_number_words_are_values() {
        let terms = Terms::of("Run `cargo test --workspace` three times.");
        assert_eq!(terms.values(), vec!["cargo test --workspace", "three"]);
        assert_eq!(terms.masked(), vec!["run", VALUE_MARK, VALUE_MARK, "time"]);
        assert_eq!(
            Terms::of("pushする前に`cargo test --test it`で実行").values(),
            vec!["cargo test --test it"]
        );
    }

    #[test]
    fn a_capital_after_chinese_japanese_or_korean_words_is_a_name() {
        assert_eq!(
            Terms::of("주 데이터베이스는 Postgres이다.").values(),
            vec!["Postgres"]
        );
    }

    #[test]
    fn korean_and_japanese_terms_are_words_without_their_particles() {
        // "배포는 금요일에" and "배포를 금요일에" say the same thing.
        assert_eq!(
            Terms::of("배포는 금요일에").masked(),
            Terms::of("배포를 금요일에").masked()
        );
        assert_eq!(
            Terms::of("배포는 금요일에").masked(),
            vec!["배포", "금요", "요일"]
        );
        assert_eq!(
            Terms::of("デプロイの手順").masked(),
            vec!["デプ", "プロ", "ロイ", "手順"]
        );
    }

    #[test]
    fn a_capital_after_a_bullet_or_dash_still_starts_a_sentence() {
        assert!(Terms::of("- Always rebase").values().is_empty());
        assert_eq!(Terms::of("Ask — Alice decides").values(), vec!["Alice"]);
    }
}
