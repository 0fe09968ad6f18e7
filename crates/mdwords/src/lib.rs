//! memctl's words: text preparation shared by indexing, querying, snippets,
//! relevance and dream. Folding, stemming, CJK segmentation and the stop
//! word lists ([`stopwords`]) live here, in a crate of their own so that a
//! reader of words (dream, extraction) needs no SQLite.
//!
//! Our own code, not the FTS5 tokenizer, turns text into index terms, so that
//! the query side, the index side and the snippet marks agree exactly:
//! - text is NFKC-normalised (full-width Latin, half-width kana, ligatures);
//! - a word (a run of letters, digits and marks outside CJK) becomes its
//!   lower-case Snowball English stem (`testing` → `test`);
//! - a run of Chinese, Japanese or Korean characters is cut into its words
//!   ([`cjk_words`]: at changes of script, Japanese particles and Korean
//!   endings left out), and each word becomes its overlapping bigrams
//!   followed by its last character (`测试一律` → `测试 试一 一律 律`,
//!   `배포는` → `배포 포`), so that any substring of a word of two or more
//!   characters is a phrase of bigrams and any single character is the
//!   prefix of some term.
//!
//! The FTS5 tokenizer then only splits on spaces, folds case and removes
//! diacritics. docs/SEARCH-LANGUAGES.md has the measurements behind this.
#![forbid(unsafe_code)]

mod cjk;
mod korean;
pub mod stopwords;

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

/// Bumped whenever [`index_text`] changes (or mdindex's FTS5 tokenizer,
/// `mdindex::fts::TOKENIZER`), so that an index built the old way is rebuilt.
pub const TEXT_VERSION: u32 = 4;

static ENGLISH: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// Prepares one column's text for the FTS5 index.
pub fn index_text(text: &str) -> String {
    prepare(text, &Preparation::INDEX)
}

/// Whether words become their stems. The index and the query always stem;
/// the retrieval evaluation also measures leaving that to FTS5's `porter`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stemming {
    English,
    None,
}

/// Appends the byte ranges of the words of a CJK run (within the run) to a
/// list, in order.
pub type CjkWords = fn(&str, &mut Vec<Range<usize>>);

/// How text becomes index terms: the index and the query always use
/// [`Preparation::INDEX`]; the retrieval evaluation measures others.
#[derive(Clone, Copy, Debug)]
pub struct Preparation {
    pub stemming: Stemming,
    pub cjk_words: CjkWords,
}

impl Preparation {
    /// What the index and the query do.
    pub const INDEX: Preparation = Preparation {
        stemming: Stemming::English,
        cjk_words,
    };
    /// Before words (TEXT_VERSION 2): a CJK run is one word.
    pub const WHOLE_RUNS: Preparation = Preparation {
        stemming: Stemming::English,
        cjk_words: cjk::whole_run,
    };
}

/// The words of a run of CJK characters, as byte ranges within it (see the
/// module documentation); grammar is left out, so there may be none.
pub fn cjk_words(run: &str, words: &mut Vec<Range<usize>>) {
    cjk::words(run, words);
}

/// [`index_text`] under another [`Preparation`].
pub fn prepare(text: &str, preparation: &Preparation) -> String {
    let text = normalize(text);
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut lower = String::new();
    let mut words = Vec::new();
    for (range, kind) in segments(&text) {
        let piece = &text[range];
        match kind {
            Segment::Word if is_marks_alone(piece) => {}
            Segment::Word => {
                separate(&mut out);
                push_word(&mut out, &mut lower, piece, preparation.stemming);
            }
            Segment::Cjk => {
                words.clear();
                (preparation.cjk_words)(piece, &mut words);
                for word in &words {
                    separate(&mut out);
                    push_cjk(&mut out, &piece[word.clone()], true);
                }
            }
        }
    }
    out
}

/// A word of diacritics alone (NFKC makes `¯` a space and a combining
/// macron; an Arabic mark may follow kana) is no term of the index or the
/// query. FTS5 removes Latin diacritics but keeps others as tokens, so
/// without this one rule for both, a quoted phrase held a term in the index
/// that the query left out.
pub fn is_marks_alone(word: &str) -> bool {
    fold(word).is_empty()
}

fn separate(out: &mut String) {
    if !out.is_empty() {
        out.push(' ');
    }
}

/// NFKC, skipped when a quick check says the text already is (most text:
/// composing it again costs more than the rest of [`index_text`]).
pub fn normalize(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkc().collect())
    }
}

/// Appends the index term of one word: lower case, stemmed.
fn push_word(out: &mut String, lower: &mut String, word: &str, stemming: Stemming) {
    lower.clear();
    push_lower(lower, word);
    match stemming {
        Stemming::English => push_stem(out, lower),
        Stemming::None => out.push_str(lower),
    }
}

/// Words seen before, with their stems: text repeats its words, and a
/// lookup costs a fraction of stemming (the index's insert speed is
/// measured against bare FTS5).
const STEM_CACHE_WORDS: usize = 50_000;

thread_local! {
    static STEMS: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
}

fn push_stem(out: &mut String, lower: &str) {
    STEMS.with_borrow_mut(|stems| {
        if let Some(stem) = stems.get(lower) {
            out.push_str(stem);
            return;
        }
        let stem = stem(lower);
        out.push_str(&stem);
        if stems.len() >= STEM_CACHE_WORDS {
            stems.clear();
        }
        stems.insert(lower.to_string(), stem.into_owned());
    });
}

fn push_lower(out: &mut String, word: &str) {
    if word.is_ascii() {
        let start = out.len();
        out.push_str(word);
        out[start..].make_ascii_lowercase();
    } else {
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
}

/// A word in lower case, as the index has it before stemming.
pub fn lower(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    push_lower(&mut out, word);
    out
}

/// The stem of a lower-case word.
pub fn stem(lower: &str) -> Cow<'_, str> {
    ENGLISH.stem(lower)
}

/// A lower-case word as its index term under `stemming`.
pub fn stem_with(lower: &str, stemming: Stemming) -> Cow<'_, str> {
    match stemming {
        Stemming::English => stem(lower),
        Stemming::None => Cow::Borrowed(lower),
    }
}

/// A word folded the way the index folds it before stemming: lower case,
/// diacritics removed. Used where our code compares words itself (stop
/// words, snippet marks).
pub fn fold(word: &str) -> String {
    if word.is_ascii() {
        return word.to_ascii_lowercase();
    }
    word.nfd()
        .filter(|&c| !is_combining_mark(c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Appends the terms of a CJK run: its overlapping bigrams, then (when
/// `last_char` is set, or the run is one character) its last character.
pub fn push_cjk(out: &mut String, run: &str, last_char: bool) {
    let starts: Vec<usize> = run.char_indices().map(|(i, _)| i).collect();
    for pair in starts.windows(3) {
        out.push_str(&run[pair[0]..pair[2]]);
        out.push(' ');
    }
    if let [.., second_last, last] = starts[..] {
        out.push_str(&run[second_last..]);
        if last_char {
            out.push(' ');
            out.push_str(&run[last..]);
        }
    } else {
        out.push_str(run);
    }
}

/// What a segment of text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment {
    /// A run of letters, digits and marks outside CJK: one index term.
    Word,
    /// A run of CJK characters, indexed as bigrams.
    Cjk,
}

/// The words and CJK runs of `text` with their byte ranges; everything
/// between them (spaces, punctuation, symbols, emoji) is a separator.
pub fn segments(text: &str) -> impl Iterator<Item = (Range<usize>, Segment)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let (start, kind) = loop {
            let (i, c) = chars.next()?;
            if let Some(kind) = classify(c) {
                break (i, kind);
            }
        };
        let mut end = text.len();
        while let Some(&(i, c)) = chars.peek() {
            if classify(c) != Some(kind) {
                end = i;
                break;
            }
            chars.next();
        }
        Some((start..end, kind))
    })
}

/// Whether `c` is part of some index term (a word or a CJK run).
pub fn is_term_char(c: char) -> bool {
    classify(c).is_some()
}

fn classify(c: char) -> Option<Segment> {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric().then_some(Segment::Word);
    }
    if is_cjk(c) {
        Some(Segment::Cjk)
    } else if c.is_alphanumeric() || is_combining_mark(c) || is_private_use(c) {
        Some(Segment::Word)
    } else {
        None
    }
}

/// FTS5's unicode61 keeps private-use characters (category Co) in tokens.
fn is_private_use(c: char) -> bool {
    matches!(c, '\u{e000}'..='\u{f8ff}' | '\u{f0000}'..='\u{10fffd}')
}

/// Whether `c` belongs to a script written without spaces between words
/// (Han, kana) or with syllable blocks that take particles (Hangul).
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{1100}'..='\u{11ff}'     // Hangul Jamo
        | '\u{3005}'..='\u{3007}'   // 々 〆 〇
        | '\u{3041}'..='\u{309f}'   // Hiragana
        | '\u{30a1}'..='\u{30ff}'   // Katakana (ー included)
        | '\u{3130}'..='\u{318f}'   // Hangul compatibility Jamo
        | '\u{31f0}'..='\u{31ff}'   // Katakana phonetic extensions
        | '\u{3400}'..='\u{4dbf}'   // CJK extension A
        | '\u{4e00}'..='\u{9fff}'   // CJK unified ideographs
        | '\u{a960}'..='\u{a97f}'   // Hangul Jamo extended A
        | '\u{ac00}'..='\u{d7af}'   // Hangul syllables
        | '\u{f900}'..='\u{faff}'   // CJK compatibility ideographs
        | '\u{ff66}'..='\u{ff9f}'   // half-width katakana
        | '\u{20000}'..='\u{3134f}' // CJK extensions B to G
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn english_words_are_lower_cased_and_stemmed() {
        assert_eq!(
            index_text("Testing the Tests, tested!"),
            "test the test test"
        );
        assert_eq!(
            index_text("Deployments deploy deploying"),
            "deploy deploy deploy"
        );
    }

    #[test]
    fn punctuation_and_emoji_separate_words() {
        assert_eq!(
            index_text("node.js 🎉 SQLITE_ERROR (x)"),
            "node js sqlite error x"
        );
    }

    #[test]
    fn cjk_runs_become_bigrams_and_their_last_character() {
        assert_eq!(
            index_text("测试一律用 pytest"),
            "测试 试一 一律 律用 用 pytest"
        );
        assert_eq!(index_text("用pytest测试"), "用 pytest 测试 试");
        assert_eq!(index_text("テスト"), "テス スト ト");
    }

    /// The terms of the words of a CJK text, as the index has them.
    fn terms(text: &str) -> Vec<String> {
        index_text(text).split(' ').map(str::to_string).collect()
    }

    #[test]
    fn korean_particles_and_endings_leave_the_word() {
        // Before words, `배포는` was `배포 포는 는`: `포는` was a "rare" term
        // of every record saying 배포 with that particle.
        for text in ["배포는", "배포를", "배포할 때"] {
            assert_eq!(terms(text)[..2], ["배포", "포"], "{text}");
        }
        assert_eq!(index_text("배포할 때"), "배포 포 때");
        assert_eq!(index_text("스크립트를"), "스크 크립 립트 트");
        assert_eq!(index_text("실행하나요"), "실행 행");
        assert_eq!(index_text("테스트는 통과"), "테스 스트 트 통과 과");
    }

    #[test]
    fn korean_particles_after_latin_words_are_left_out() {
        assert_eq!(index_text("pytest로 작성한다"), "pytest 작성 성");
        assert_eq!(index_text("CI에서 main에"), "ci main");
    }

    #[test]
    fn japanese_words_are_cut_at_script_changes_without_particles() {
        assert_eq!(index_text("デプロイの手順は"), "デプ プロ ロイ イ 手順 順");
        assert_eq!(
            index_text("ステージングへのデプロイは実行されますか"),
            "ステ テー ージ ジン ング グ デプ プロ ロイ イ 実行 行"
        );
    }

    #[test]
    fn chinese_runs_keep_their_bigrams() {
        assert_eq!(
            index_text("我们的部署冻结"),
            "我们 们的 的部 部署 署冻 冻结 结"
        );
    }

    #[test]
    fn whole_runs_are_the_bigrams_of_before_words() {
        assert_eq!(
            prepare("테스트는 통과", &Preparation::WHOLE_RUNS),
            "테스 스트 트는 는 통과 과"
        );
    }

    #[test]
    fn full_width_and_compatibility_forms_are_normalised() {
        assert_eq!(
            index_text("ＰＹＴＥＳＴ ﬁle ｶﾀｶﾅ"),
            "pytest file カタ タカ カナ ナ"
        );
    }

    #[test]
    fn accents_are_kept_for_the_tokenizer_to_fold() {
        // FTS5's unicode61 removes them; our fold does the same for snippets.
        assert_eq!(index_text("Café"), "café");
        assert_eq!(fold("Café NAÏVE"), "cafe naive");
    }

    #[test]
    fn segments_report_byte_ranges() {
        let text = "pytest测试, ok";
        let found: Vec<_> = segments(text).map(|(r, k)| (&text[r], k)).collect();
        assert_eq!(
            found,
            vec![
                ("pytest", Segment::Word),
                ("测试", Segment::Cjk),
                ("ok", Segment::Word)
            ]
        );
    }

    #[test]
    fn empty_and_separator_only_text_has_no_terms() {
        assert_eq!(index_text(""), "");
        assert_eq!(index_text(" -- !? 🎉\n"), "");
    }
}
