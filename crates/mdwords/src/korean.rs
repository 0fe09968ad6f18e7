//! Korean particles and endings, taken off an eojeol by a measured list
//! rather than a morphological dictionary (docs/SEARCH-LANGUAGES.md).
//!
//! Korean writes a word with its particles and endings attached
//! (`배포는`, `스크립트를`, `실행하나요`); the word is what a search means.
//! The longest listed ending is taken off when what is left is long enough:
//! a one-syllable ending needs a stem of two syllables (`회의` keeps its
//! `의`, `추가` its `가`), a longer one a stem of one (`집에서` → `집`).
//! Particles that change with the syllable before them (`은`/`는`, `이`/`가`,
//! `을`/`를`, `과`/`와`, `으로`/`로`) are taken off only after the syllable
//! they go with, so `경로` keeps its `로` (`로` follows a vowel or ㄹ).
//! A stem that ends in the plural `들` or the honorific `님` loses it too
//! (`파일들을` → `파일`, `민준님과` → `민준`).

/// What the syllable before an ending must end in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum After {
    Any,
    /// No final consonant (`는`, `가`, `를`, `와`).
    Vowel,
    /// A final consonant (`은`, `이`, `을`, `과`).
    Consonant,
    /// No final consonant, or ㄹ (`로`).
    VowelOrRieul,
    /// A final consonant other than ㄹ (`으로`).
    ConsonantNotRieul,
}

use After::{Any, Consonant, ConsonantNotRieul, Vowel, VowelOrRieul};

/// Particles, the copula, and the endings of 하다, 되다 and 시키다 verbs
/// made from a noun (`배포하다`, `설정되다`), plus the commonest endings of
/// other verbs. Sorted by text (searched by binary search).
const ENDINGS: &[(&str, After)] = &[
    ("가", Vowel),
    ("과", Consonant),
    ("까지", Any),
    ("까지는", Any),
    ("까지도", Any),
    ("께서", Any),
    ("나", Vowel),
    ("나요", Any),
    ("는", Vowel),
    ("는데", Any),
    ("는지", Any),
    ("도", Any),
    ("도록", Any),
    ("돼", Any),
    ("돼서", Any),
    ("돼야", Any),
    ("돼요", Any),
    ("됐", Any),
    ("됐나요", Any),
    ("됐다", Any),
    ("됐습니다", Any),
    ("됐어요", Any),
    ("되게", Any),
    ("되고", Any),
    ("되기", Any),
    ("되나요", Any),
    ("되는", Any),
    ("되는데", Any),
    ("되는지", Any),
    ("되다", Any),
    ("되도록", Any),
    ("되며", Any),
    ("되면", Any),
    ("되어", Any),
    ("되어야", Any),
    ("되었다", Any),
    ("되었습니다", Any),
    ("되었어요", Any),
    ("되지", Any),
    ("되지만", Any),
    ("된", Any),
    ("된다", Any),
    ("될", Any),
    ("될까요", Any),
    ("됨", Any),
    ("됩니다", Any),
    ("든", Vowel),
    ("라고", Vowel),
    ("라는", Vowel),
    ("라도", Vowel),
    ("란", Vowel),
    ("랑", Vowel),
    ("려고", Any),
    ("려면", Any),
    ("로", VowelOrRieul),
    ("로는", VowelOrRieul),
    ("로도", VowelOrRieul),
    ("로부터", VowelOrRieul),
    ("로서", VowelOrRieul),
    ("로써", VowelOrRieul),
    ("를", Vowel),
    ("마다", Any),
    ("만", Any),
    ("만큼", Any),
    ("면서", Any),
    ("밖에", Any),
    ("보다", Any),
    ("보다는", Any),
    ("부터", Any),
    ("부터는", Any),
    ("세요", Any),
    ("습니다", Any),
    ("시켜", Any),
    ("시켜요", Any),
    ("시키는", Any),
    ("시키다", Any),
    ("시킵니다", Any),
    ("아서", Any),
    ("아요", Any),
    ("았다", Any),
    ("았습니다", Any),
    ("았어요", Any),
    ("어서", Any),
    ("어야", Any),
    ("어요", Any),
    ("었다", Any),
    ("었습니다", Any),
    ("었어요", Any),
    ("에", Any),
    ("에게", Any),
    ("에게는", Any),
    ("에게도", Any),
    ("에는", Any),
    ("에도", Any),
    ("에만", Any),
    ("에서", Any),
    ("에서는", Any),
    ("에서도", Any),
    ("에서만", Any),
    ("에서의", Any),
    ("예요", Vowel),
    ("와", Vowel),
    ("와는", Vowel),
    ("으로", ConsonantNotRieul),
    ("으로는", ConsonantNotRieul),
    ("으로도", ConsonantNotRieul),
    ("으로부터", ConsonantNotRieul),
    ("으로서", ConsonantNotRieul),
    ("으로써", ConsonantNotRieul),
    ("은", Consonant),
    ("을", Consonant),
    ("의", Any),
    ("이", Consonant),
    ("이고", Consonant),
    ("이나", Consonant),
    ("이다", Consonant),
    ("이든", Consonant),
    ("이라고", Consonant),
    ("이라는", Consonant),
    ("이라도", Consonant),
    ("이란", Consonant),
    ("이랑", Consonant),
    ("이며", Consonant),
    ("이면", Consonant),
    ("이에요", Consonant),
    ("이지만", Consonant),
    ("인가요", Any),
    ("인데", Any),
    ("인지", Any),
    ("입니다", Any),
    ("조차", Any),
    ("처럼", Any),
    ("하게", Any),
    ("하고", Any),
    ("하기", Any),
    ("하나요", Any),
    ("하는", Any),
    ("하는데", Any),
    ("하는지", Any),
    ("하다", Any),
    ("하도록", Any),
    ("하려고", Any),
    ("하려면", Any),
    ("하며", Any),
    ("하면", Any),
    ("하면서", Any),
    ("하세요", Any),
    ("하여", Any),
    ("하지", Any),
    ("하지만", Any),
    ("한", Any),
    ("한다", Any),
    ("한다면", Any),
    ("한테", Any),
    ("할", Any),
    ("할까요", Any),
    ("할지", Any),
    ("함", Any),
    ("합니까", Any),
    ("합니다", Any),
    ("해", Any),
    ("해도", Any),
    ("해서", Any),
    ("해야", Any),
    ("해요", Any),
    ("해주세요", Any),
    ("했나요", Any),
    ("했는데", Any),
    ("했다", Any),
    ("했던", Any),
    ("했습니다", Any),
    ("했어요", Any),
    ("했을", Any),
];

/// The plural marker and the honorific, which may stand between a noun and
/// its particle.
const NOUN_SUFFIXES: [char; 2] = ['들', '님'];

/// Whether a Hangul syllable has no final consonant, and whether that
/// consonant is ㄹ; `None` for anything else than a precomposed syllable.
fn finals(c: char) -> Option<(bool, bool)> {
    let index = u32::from(c).checked_sub(0xac00).filter(|&i| i < 11_172)?;
    let jongseong = index % 28;
    Some((jongseong == 0, jongseong == 8))
}

fn fits(after: After, before: char) -> bool {
    let Some((vowel, rieul)) = finals(before) else {
        return after == Any;
    };
    match after {
        Any => true,
        Vowel => vowel,
        Consonant => !vowel,
        VowelOrRieul => vowel || rieul,
        ConsonantNotRieul => !vowel && !rieul,
    }
}

/// The eojeol `word` (Hangul) without its particle or ending: a prefix of
/// it, empty when the whole of it is one (`를`, `해요`).
pub(crate) fn stem(word: &str) -> &str {
    let stem = strip_ending(word);
    match stem.strip_suffix(NOUN_SUFFIXES) {
        Some(noun) if noun.chars().count() >= 2 => noun,
        _ => stem,
    }
}

/// The syllables of the longest entry of [`ENDINGS`].
const LONGEST_ENDING_CHARS: usize = 5;

fn strip_ending(word: &str) -> &str {
    // Longest ending first: the earliest place an ending can start.
    let syllables = word.chars().count();
    let skip = syllables.saturating_sub(LONGEST_ENDING_CHARS);
    for (at, _) in word.char_indices().skip(skip) {
        let ending = &word[at..];
        let Ok(found) = ENDINGS.binary_search_by(|(text, _)| text.cmp(&ending)) else {
            continue;
        };
        let stem = &word[..at];
        let Some(last) = stem.chars().next_back() else {
            return stem;
        };
        let min_stem = if ending.chars().nth(1).is_some() {
            1
        } else {
            2
        };
        if stem.chars().count() >= min_stem && fits(ENDINGS[found].1, last) {
            return stem;
        }
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn endings_are_sorted_for_binary_search() {
        assert!(
            ENDINGS.windows(2).all(|w| w[0].0 < w[1].0),
            "{:?}",
            ENDINGS.windows(2).find(|w| w[0].0 >= w[1].0)
        );
    }

    #[test]
    fn the_longest_ending_is_known() {
        let longest = ENDINGS.iter().map(|(e, _)| e.chars().count()).max();
        assert_eq!(longest, Some(LONGEST_ENDING_CHARS));
    }

    #[test]
    fn particles_come_off_nouns() {
        for (word, expected) in [
            ("배포는", "배포"),
            ("배포를", "배포"),
            ("배포가", "배포"),
            ("스크립트를", "스크립트"),
            ("설정이", "설정"),
            ("방법으로", "방법"),
            ("파일로", "파일"),
            ("서버에서는", "서버"),
            ("집에서", "집"),
            ("파일들을", "파일"),
            ("사용자들", "사용자"),
            ("김민준님과", "김민준"),
        ] {
            assert_eq!(stem(word), expected, "{word}");
        }
    }

    #[test]
    fn endings_come_off_verbs_made_from_nouns() {
        for (word, expected) in [
            ("실행하나요", "실행"),
            ("배포할", "배포"),
            ("설정된", "설정"),
            ("처리됐어요", "처리"),
            ("사용합니다", "사용"),
            ("확인해주세요", "확인"),
            ("있습니다", "있"),
        ] {
            assert_eq!(stem(word), expected, "{word}");
        }
    }

    #[test]
    fn words_that_end_like_a_particle_keep_it() {
        // A one-syllable ending needs two syllables before it; an
        // alternating particle needs the syllable it goes with.
        for word in [
            "회의", "추가", "제한", "경로", "결과", "평가", "아들", "사이",
        ] {
            assert_eq!(stem(word), word, "{word}");
        }
    }

    #[test]
    fn an_eojeol_that_is_only_grammar_has_no_stem() {
        for word in ["를", "에서", "해요", "합니다", "로"] {
            assert_eq!(stem(word), "", "{word}");
        }
    }

    #[test]
    fn jamo_and_other_text_are_left_alone() {
        assert_eq!(stem("ㅋㅋ"), "ㅋㅋ");
        assert_eq!(stem("테스트"), "테스트");
    }
}
