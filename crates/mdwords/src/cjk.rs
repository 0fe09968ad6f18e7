//! The words of a run of Chinese, Japanese or Korean characters, by rules
//! rather than a dictionary (docs/SEARCH-LANGUAGES.md has the measurements):
//!
//! - a run is first cut where its script changes (Han, hiragana, katakana,
//!   Hangul): Japanese writes its words in kanji and katakana and its
//!   grammar in hiragana (`デプロイの手順は` → `デプロイ` `の` `手順` `は`);
//! - a hiragana piece made only of particles and auxiliaries (`の`, `は`,
//!   `されますか`, `について`) is grammar and left out; another one after
//!   kanji is the okurigana of a verb or adjective and stays with it
//!   (`付けない`);
//! - a Hangul piece (an eojeol, or what follows a Latin word: `pytest로`)
//!   loses its particle or ending (`배포는` → `배포`, `실행하나요` → `실행`),
//!   and is left out when it is nothing else (`로`, `해요`);
//! - Han runs are not cut: Chinese, and Japanese kanji compounds, stay
//!   whole, and their bigrams keep finding the words inside them.

use std::ops::Range;

use super::korean;

/// The scripts a CJK run is cut between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Script {
    Han,
    Hiragana,
    Katakana,
    Hangul,
}

fn script(c: char) -> Script {
    match c {
        '\u{3041}'..='\u{309f}' => Script::Hiragana,
        '\u{30a1}'..='\u{30ff}' | '\u{31f0}'..='\u{31ff}' | '\u{ff66}'..='\u{ff9f}' => {
            Script::Katakana
        }
        '\u{1100}'..='\u{11ff}'
        | '\u{3130}'..='\u{318f}'
        | '\u{a960}'..='\u{a97f}'
        | '\u{ac00}'..='\u{d7af}' => Script::Hangul,
        _ => Script::Han,
    }
}

/// Appends to `words` the byte ranges, within `run` (a run of CJK
/// characters as [`super::segments`] finds them), of its words in order;
/// grammar is left out, so `words` may get nothing.
pub fn words(run: &str, words: &mut Vec<Range<usize>>) {
    let mut start = 0;
    let mut current = None;
    let mut previous = None;
    for (i, c) in run.char_indices().chain([(run.len(), ' ')]) {
        let here = (i < run.len()).then(|| script(c));
        if here == current {
            continue;
        }
        if let Some(kind) = current {
            push_word(run, start..i, kind, previous, words);
        }
        previous = current;
        start = i;
        current = here;
    }
}

/// One run as a single word: the bigrams of the whole run, as the index was
/// before words (kept for the retrieval evaluation's comparison).
pub fn whole_run(run: &str, words: &mut Vec<Range<usize>>) {
    if !run.is_empty() {
        words.push(0..run.len());
    }
}

/// Appends the word of one piece of one script; `previous` is the script
/// of the piece before it in the run.
fn push_word(
    run: &str,
    range: Range<usize>,
    kind: Script,
    previous: Option<Script>,
    words: &mut Vec<Range<usize>>,
) {
    let piece = &run[range.clone()];
    match kind {
        Script::Hiragana if is_japanese_grammar(piece) => {}
        // Okurigana: the kana that end a verb or an adjective written in
        // kanji (`付けない`, `決まりました`) belong to it, so that `付ける`
        // and `付けない` share `付け`.
        Script::Hiragana if previous == Some(Script::Han) => match words.last_mut() {
            Some(word) if word.end == range.start => word.end = range.end,
            _ => words.push(range),
        },
        Script::Hangul => {
            let stem = korean::stem(piece);
            if !stem.is_empty() {
                words.push(range.start..range.start + stem.len());
            }
        }
        _ => words.push(range),
    }
}

/// Japanese particles, the copula, auxiliaries and the forms of する, いる,
/// ある and なる that follow a word: the pieces of hiragana that carry
/// grammar, not topic. Sorted (searched by binary search).
const JAPANESE_GRAMMAR: &[&str] = &[
    "あった",
    "あり",
    "あります",
    "ある",
    "いた",
    "いて",
    "います",
    "いる",
    "か",
    "かな",
    "から",
    "が",
    "けど",
    "けれど",
    "こと",
    "させ",
    "させる",
    "され",
    "される",
    "し",
    "しか",
    "した",
    "して",
    "しない",
    "しました",
    "します",
    "しません",
    "する",
    "ず",
    "せず",
    "た",
    "たら",
    "だ",
    "だけ",
    "だった",
    "だろう",
    "て",
    "で",
    "でし",
    "でした",
    "でしょう",
    "です",
    "では",
    "でも",
    "と",
    "とか",
    "として",
    "とは",
    "な",
    "ない",
    "なかった",
    "なく",
    "など",
    "なら",
    "なり",
    "なります",
    "なる",
    "に",
    "において",
    "について",
    "によって",
    "による",
    "ね",
    "の",
    "ので",
    "のに",
    "は",
    "ば",
    "へ",
    "ほど",
    "まし",
    "ました",
    "ましょう",
    "ます",
    "ませ",
    "ません",
    "まで",
    "も",
    "や",
    "よ",
    "ような",
    "ように",
    "より",
    "られ",
    "られる",
    "れ",
    "れる",
    "を",
];

/// The bytes of the longest entry of [`JAPANESE_GRAMMAR`] (four kana).
const LONGEST_GRAMMAR_BYTES: usize = 12;

/// Whether a piece of hiragana is made only of [`JAPANESE_GRAMMAR`]
/// (`されますか` is `され` `ます` `か`).
fn is_japanese_grammar(piece: &str) -> bool {
    // can_end[i]: the first i bytes split into grammar. Only pieces as long
    // as the longest entry are looked up, so a long run costs linear time.
    let mut can_end = vec![false; piece.len() + 1];
    can_end[0] = true;
    for start in 0..piece.len() {
        if !can_end[start] || !piece.is_char_boundary(start) {
            continue;
        }
        let longest = piece.len().min(start + LONGEST_GRAMMAR_BYTES);
        for end in (start + 1..=longest).filter(|&e| piece.is_char_boundary(e)) {
            if JAPANESE_GRAMMAR.binary_search(&&piece[start..end]).is_ok() {
                can_end[end] = true;
            }
        }
    }
    can_end[piece.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn split(run: &str) -> Vec<&str> {
        let mut ranges = Vec::new();
        words(run, &mut ranges);
        ranges.into_iter().map(|r| &run[r]).collect()
    }

    #[test]
    fn grammar_list_is_sorted_for_binary_search() {
        assert!(
            JAPANESE_GRAMMAR.windows(2).all(|w| w[0] < w[1]),
            "{JAPANESE_GRAMMAR:?}"
        );
    }

    #[test]
    fn the_longest_grammar_entry_is_known() {
        let longest = JAPANESE_GRAMMAR.iter().map(|g| g.len()).max();
        assert_eq!(longest, Some(LONGEST_GRAMMAR_BYTES));
    }

    #[test]
    fn a_long_run_of_kana_is_split_in_linear_time() {
        let run = "のは".repeat(200_000);
        assert_eq!(split(&run), Vec::<&str>::new());
        let run = format!("{}テスト", "あ".repeat(200_000));
        assert_eq!(split(&run).len(), 2);
    }

    #[test]
    fn japanese_is_cut_at_script_changes_and_loses_its_particles() {
        assert_eq!(split("デプロイの手順は"), ["デプロイ", "手順"]);
        assert_eq!(
            split("ステージングへのデプロイ"),
            ["ステージング", "デプロイ"]
        );
        assert_eq!(split("実行されますか"), ["実行"]);
        assert_eq!(split("スキップする方法は"), ["スキップ", "方法"]);
        assert_eq!(split("テストについて"), ["テスト"]);
    }

    #[test]
    fn hiragana_that_is_not_only_grammar_stays_a_word() {
        // Okurigana stay with their kanji; words written in kana are words.
        assert_eq!(split("決まりました"), ["決まりました"]);
        assert_eq!(split("付けない"), ["付けない"]);
        assert_eq!(split("設定を変えて"), ["設定", "変えて"]);
        assert_eq!(split("わかりやすく"), ["わかりやすく"]);
    }

    #[test]
    fn chinese_runs_stay_whole() {
        assert_eq!(split("测试一律用"), ["测试一律用"]);
        assert_eq!(split("我们的部署冻结"), ["我们的部署冻结"]);
    }

    #[test]
    fn korean_loses_particles_and_endings() {
        assert_eq!(split("배포는"), ["배포"]);
        assert_eq!(split("스크립트를"), ["스크립트"]);
        assert_eq!(split("실행하나요"), ["실행"]);
        assert_eq!(split("를"), Vec::<&str>::new());
    }

    #[test]
    fn a_whole_run_is_one_word() {
        let mut ranges = Vec::new();
        whole_run("デプロイの手順は", &mut ranges);
        assert_eq!(ranges.len(), 1);
        assert_eq!(ranges[0], 0.."デプロイの手順は".len());
    }
}
