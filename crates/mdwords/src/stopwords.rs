//! Stop words: words that carry no topic, dropped from free query text so
//! that a natural-language question ranks by its content words.
//!
//! Only the query side uses these lists; the index keeps every word so that
//! phrases still match.

/// English function words, question words and auxiliaries, plus the pieces
/// that contractions split into (`don't` → `don`, `t`). Sorted: searched by
/// binary search. Lower case.
const ENGLISH: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "aren",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "couldn",
    "d",
    "did",
    "didn",
    "do",
    "does",
    "doesn",
    "doing",
    "don",
    "down",
    "during",
    "each",
    "else",
    "ever",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadn",
    "has",
    "hasn",
    "have",
    "haven",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "isn",
    "it",
    "its",
    "itself",
    "just",
    "ll",
    "m",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "o",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "re",
    "s",
    "same",
    "shall",
    "shan",
    "she",
    "should",
    "shouldn",
    "so",
    "some",
    "such",
    "t",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "us",
    "ve",
    "very",
    "was",
    "wasn",
    "we",
    "were",
    "weren",
    "what",
    "whatever",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "won",
    "would",
    "wouldn",
    "y",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// Chinese, Japanese and Korean function and question words (Korean ones as
/// their stems: `있` for `있어요`, see `crate::cjk_words`). A query word or
/// bigram equal to one of these is dropped. Sorted.
const CJK_WORDS: &[&str] = &[
    "あの",
    "あれ",
    "いつ",
    "この",
    "これ",
    "その",
    "それ",
    "だれ",
    "どう",
    "どこ",
    "どの",
    "どれ",
    "どんな",
    "なぜ",
    "なに",
    "一下",
    "一个",
    "一些",
    "为什么",
    "为何",
    "什么",
    "他们",
    "以及",
    "但是",
    "何か",
    "你们",
    "关于",
    "可以",
    "哪个",
    "哪些",
    "哪儿",
    "哪里",
    "因为",
    "她们",
    "如何",
    "如果",
    "它们",
    "对于",
    "已经",
    "怎么",
    "怎么样",
    "怎样",
    "我々",
    "我们",
    "或者",
    "所以",
    "所有",
    "时候",
    "是不是",
    "是否",
    "有没有",
    "还是",
    "这个",
    "这些",
    "这样",
    "这里",
    "那个",
    "那些",
    "那样",
    "那里",
    "같은",
    "같이",
    "거",
    "거기",
    "것",
    "경우",
    "관한",
    "그",
    "그거",
    "그것",
    "그냥",
    "그래서",
    "그러면",
    "그런",
    "그런데",
    "그렇게",
    "그리고",
    "나",
    "내",
    "너",
    "누가",
    "누구",
    "다",
    "다시",
    "대한",
    "대해",
    "더",
    "되",
    "등",
    "때",
    "때문",
    "또",
    "또는",
    "먼저",
    "몇",
    "모두",
    "무슨",
    "무엇",
    "뭐",
    "뭔가",
    "뭘",
    "및",
    "봐요",
    "수",
    "아직",
    "알려주",
    "어느",
    "어디",
    "어디서",
    "어떤",
    "어떻게",
    "언제",
    "얼마나",
    "없",
    "여기",
    "왜",
    "우리",
    "위해",
    "이",
    "이거",
    "이것",
    "이런",
    "이렇게",
    "있",
    "잘",
    "저",
    "저거",
    "저것",
    "저기",
    "저런",
    "저렇게",
    "저희",
    "정말",
    "제",
    "좀",
    "주",
    "중",
    "지금",
    "통해",
    "하",
    "하지만",
    "항상",
    "해주",
    "혹시",
];

/// Single characters that mark grammar rather than topic: Chinese particles
/// and pronouns, Japanese particles. A query bigram containing one is the
/// seam between two words (`的部` in `我们的部署`), not a word, and is dropped.
const CJK_CHARS: &[char] = &[
    'か', 'が', 'で', 'と', 'に', 'ね', 'の', 'は', 'へ', 'も', 'や', 'よ', 'を', '么', '了', '他',
    '们', '何', '你', '吗', '吧', '呀', '呢', '哪', '啊', '啥', '嘛', '她', '它', '我', '是', '的',
    '谁', '这', '那',
];

/// Whether a lower-case word is an English stop word.
pub fn is_english(word: &str) -> bool {
    ENGLISH.binary_search(&word).is_ok()
}

/// Whether a CJK word (`crate::cjk_words`) is a listed function word.
pub fn is_cjk_word(word: &str) -> bool {
    CJK_WORDS.binary_search(&word).is_ok()
}

/// Whether a run of CJK characters (usually a bigram) carries no topic: a
/// listed function word, a seam containing a particle, or all hiragana
/// (Japanese inflection and particles).
pub fn is_cjk_stop_word(run: &str) -> bool {
    if is_cjk_word(run) {
        return true;
    }
    run.chars().any(|c| CJK_CHARS.binary_search(&c).is_ok())
        || run.chars().all(|c| ('\u{3041}'..='\u{309f}').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_for_binary_search() {
        assert!(ENGLISH.windows(2).all(|w| w[0] < w[1]));
        assert!(CJK_WORDS.windows(2).all(|w| w[0] < w[1]), "{CJK_WORDS:?}");
        assert!(CJK_CHARS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn english_question_words_are_stop_words_and_topics_are_not() {
        for word in ["what", "did", "we", "about", "the", "how", "s", "don"] {
            assert!(is_english(word), "{word}");
        }
        for word in ["decide", "deploy", "freeze", "pytest", "test"] {
            assert!(!is_english(word), "{word}");
        }
    }

    #[test]
    fn cjk_function_words_and_seams_are_stop_words() {
        for run in [
            "我们", "什么", "怎么", "的部", "结是", "定的", "どう", "まし", "の凍", "무엇",
        ] {
            assert!(is_cjk_stop_word(run), "{run}");
        }
        for run in ["部署", "冻结", "测试", "決ま", "テス", "테스"] {
            assert!(!is_cjk_stop_word(run), "{run}");
        }
    }
}
