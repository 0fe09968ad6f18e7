//! Snippets: the part of a record that best shows why it matched, with the
//! matches marked.
//!
//! A word of the text is marked when it has the stem of a query word (so
//! `testing` is marked for `tests`) or starts with a query prefix; CJK query
//! text is marked wherever it occurs as a substring, as the index finds it.

use std::collections::HashSet;
use std::ops::Range;

use crate::query::{Query, Unit};
use mdwords::Segment;

const ELLIPSIS: char = '…';

/// A short excerpt and the byte ranges in it that matched the query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snippet {
    pub text: String,
    pub marks: Vec<Range<usize>>,
}

impl Snippet {
    /// The excerpt with each match in `[` `]` (SPEC §5, no terminal).
    pub fn bracketed(&self) -> String {
        let mut out = String::with_capacity(self.text.len() + 2 * self.marks.len());
        let mut at = 0;
        for mark in &self.marks {
            out.push_str(&self.text[at..mark.start]);
            out.push('[');
            out.push_str(&self.text[mark.clone()]);
            out.push(']');
            at = mark.end;
        }
        out.push_str(&self.text[at..]);
        out
    }
}

/// The best excerpt of `text` (at most `max_chars` characters) for `query`.
pub fn make(text: &str, query: &Query, max_chars: usize) -> Snippet {
    let flat = flatten(text);
    let needles = Needles::of(query);
    let marks = needles.find(&flat);
    // Character index → byte offset, with the end as a last entry.
    let bounds: Vec<usize> = flat
        .char_indices()
        .map(|(i, _)| i)
        .chain([flat.len()])
        .collect();
    let chars = bounds.len() - 1;
    if chars <= max_chars {
        return Snippet {
            text: flat,
            marks: marks.into_iter().map(|m| m.range).collect(),
        };
    }
    if max_chars == 0 {
        return Snippet::default();
    }
    let to_char = |byte: usize| bounds.partition_point(|&b| b < byte);
    let budget = max_chars - 1;
    let mut start = best_start(&marks, budget, chars, &to_char);
    let mut end = (start + budget).min(chars);
    if start > 0 && end < chars {
        end -= 1;
    }
    // Prefer not to cut words: move inwards to a space when one is near.
    let slack = (end - start) / 8;
    if start > 0
        && !flat[..bounds[start]].ends_with(' ')
        && let Some(space) = flat[bounds[start]..bounds[start + slack]].find(' ')
    {
        start = to_char(bounds[start] + space) + 1;
    }
    if end < chars
        && !flat[bounds[end]..].starts_with(' ')
        && let Some(space) = flat[bounds[end - slack]..bounds[end]].rfind(' ')
    {
        end = to_char(bounds[end - slack] + space);
    }
    let (from, to) = (bounds[start], bounds[end]);
    let mut out = String::with_capacity(to - from + 6);
    if start > 0 {
        out.push(ELLIPSIS);
    }
    let shift = out.len();
    out.push_str(flat[from..to].trim_end());
    let kept = from + out.len() - shift;
    let marks = marks
        .into_iter()
        .filter(|m| m.range.start >= from && m.range.end <= kept)
        .map(|m| m.range.start - from + shift..m.range.end - from + shift)
        .collect();
    if end < chars {
        out.push(ELLIPSIS);
    }
    Snippet { text: out, marks }
}

/// Whitespace and control characters, newlines included, become single
/// spaces; the ends are trimmed.
fn flatten(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split(|c: char| c.is_whitespace() || c.is_control()) {
        if !word.is_empty() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    }
    out
}

/// The first character of the window of `budget` characters that shows the
/// most distinct query terms, then the most matches; a little context is
/// kept before the first match.
fn best_start(
    marks: &[Mark],
    budget: usize,
    chars: usize,
    to_char: &impl Fn(usize) -> usize,
) -> usize {
    let lead = budget / 5;
    let mut best = (0, 0, 0);
    for (i, first) in marks.iter().enumerate() {
        let start = to_char(first.range.start).saturating_sub(lead);
        let start = start.min(chars.saturating_sub(budget));
        let end = start + budget;
        let inside: Vec<&Mark> = marks[i..]
            .iter()
            .take_while(|m| to_char(m.range.end) <= end)
            .collect();
        let distinct = inside.iter().map(|m| m.term).collect::<HashSet<_>>().len();
        if (distinct, inside.len()) > (best.0, best.1) {
            best = (distinct, inside.len(), start);
        }
    }
    best.2
}

/// One marked range of the flattened text and the query term it shows.
struct Mark {
    range: Range<usize>,
    term: usize,
}

/// What to look for, from the query's free and required terms.
#[derive(Default)]
struct Needles {
    /// Folded stems of query words, with their term number.
    stems: Vec<(String, usize)>,
    /// Folded prefixes (`deploy*`).
    prefixes: Vec<(String, usize)>,
    /// CJK text, found as substrings.
    cjk: Vec<(String, usize)>,
}

impl Needles {
    fn of(query: &Query) -> Needles {
        let mut needles = Needles::default();
        for (term_no, term) in query.marked_terms().enumerate() {
            let last = term.units.len().saturating_sub(1);
            for (i, unit) in term.units.iter().enumerate() {
                match unit {
                    Unit::Word(word) if term.prefix && i == last => {
                        needles.prefixes.push((mdwords::fold(word), term_no));
                    }
                    Unit::Word(word) => {
                        let folded = mdwords::fold(word);
                        needles
                            .stems
                            .push((mdwords::stem(&folded).into_owned(), term_no));
                    }
                    Unit::Cjk(run) => needles.cjk.push((run.clone(), term_no)),
                }
            }
        }
        needles
    }

    /// The sorted, non-overlapping matches in `flat`.
    fn find(&self, flat: &str) -> Vec<Mark> {
        let mut marks: Vec<Mark> = Vec::new();
        for (range, kind) in mdwords::segments(flat) {
            let piece = &flat[range.clone()];
            match kind {
                Segment::Word => {
                    if let Some(term) = self.word_term(piece) {
                        marks.push(Mark { range, term });
                    }
                }
                Segment::Cjk => {
                    for (needle, term) in &self.cjk {
                        for (at, found) in piece.match_indices(needle.as_str()) {
                            let start = range.start + at;
                            marks.push(Mark {
                                range: start..start + found.len(),
                                term: *term,
                            });
                        }
                    }
                }
            }
        }
        marks.sort_by_key(|m| (m.range.start, m.range.end));
        // Overlapping or touching CJK matches (`部署`, `署冻`) become one mark.
        let mut merged: Vec<Mark> = Vec::with_capacity(marks.len());
        for mark in marks {
            match merged.last_mut() {
                Some(prev) if mark.range.start <= prev.range.end => {
                    prev.range.end = prev.range.end.max(mark.range.end);
                }
                _ => merged.push(mark),
            }
        }
        merged
    }

    fn word_term(&self, word: &str) -> Option<usize> {
        if self.stems.is_empty() && self.prefixes.is_empty() {
            return None;
        }
        let folded = mdwords::fold(&mdwords::normalize(word));
        let stem = mdwords::stem(&folded);
        self.stems
            .iter()
            .find(|(s, _)| *s == stem)
            .or_else(|| {
                self.prefixes
                    .iter()
                    .find(|(p, _)| folded.starts_with(p.as_str()))
            })
            .map(|(_, term)| *term)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::parse;
    use pretty_assertions::assert_eq;

    fn bracketed(text: &str, query: &str, max_chars: usize) -> String {
        make(text, &parse(query).unwrap(), max_chars).bracketed()
    }

    #[test]
    fn short_text_is_whole_and_flattened() {
        assert_eq!(
            bracketed("Tests use\npytest,\n\n  never unittest.", "pytest", 100),
            "Tests use [pytest], never unittest."
        );
    }

    #[test]
    fn word_forms_are_marked_through_stems() {
        assert_eq!(
            bracketed("Testing: the tests were tested by a tester", "test", 100),
            "[Testing]: the [tests] were [tested] by a tester"
        );
        assert_eq!(bracketed("Café CRÈME", "cafe creme", 100), "[Café] [CRÈME]");
    }

    #[test]
    fn stop_words_are_not_marked_unless_they_are_the_query() {
        assert_eq!(
            bracketed(
                "what we decided about the freeze",
                "what did we decide about the freeze",
                100
            ),
            "what we [decided] about the [freeze]"
        );
        assert_eq!(bracketed("what is it", "what is", 100), "[what] [is] it");
    }

    #[test]
    fn prefixes_and_phrases_are_marked() {
        assert_eq!(
            bracketed(
                "deployments deploy pipeline",
                "deploym* \"deploy pipelines\"",
                100
            ),
            "[deployments] [deploy] [pipeline]"
        );
    }

    #[test]
    fn cjk_is_marked_as_substrings_and_adjacent_matches_merge() {
        assert_eq!(
            bracketed("测试一律用 pytest", "测试", 100),
            "[测试]一律用 pytest"
        );
        assert_eq!(
            bracketed("部署冻结从十二月开始", "我们的部署冻结是怎么定的？", 100),
            "[部署冻结]从十二月开始"
        );
        assert_eq!(
            bracketed("测试一律用 pytest", "律", 100),
            "测试一[律]用 pytest"
        );
    }

    #[test]
    fn korean_and_japanese_words_are_marked_without_their_particles() {
        assert_eq!(
            bracketed("배포는 금요일에 하지 않는다", "배포를 언제 해요?", 100),
            "[배포]는 금요일에 하지 않는다"
        );
        assert_eq!(
            bracketed("デプロイの手順は README にある", "デプロイ手順", 100),
            "[デプロイ]の[手順]は README にある"
        );
    }

    #[test]
    fn excluded_terms_are_not_marked() {
        assert_eq!(
            bracketed("pytest not unittest", "pytest -unittest", 100),
            "[pytest] not unittest"
        );
    }

    #[test]
    fn long_text_is_cut_around_the_best_window_with_ellipses() {
        let text = format!(
            "{} the deploy freeze starts on December 20 {}",
            "filler words here ".repeat(20),
            "more trailing text ".repeat(20)
        );
        let snippet = make(&text, &parse("deploy freeze").unwrap(), 60);
        assert!(snippet.text.chars().count() <= 60, "{}", snippet.text);
        assert!(snippet.text.starts_with('…') && snippet.text.ends_with('…'));
        assert_eq!(snippet.marks.len(), 2);
        let bracketed = snippet.bracketed();
        assert!(
            bracketed.contains("[deploy] [freeze] starts"),
            "{bracketed}"
        );
    }

    #[test]
    fn the_window_with_more_distinct_terms_wins() {
        let text = format!(
            "pytest pytest pytest pytest {} pytest fixtures {}",
            "x ".repeat(60),
            "y ".repeat(60)
        );
        let snippet = make(&text, &parse("pytest fixtures").unwrap(), 30);
        assert!(
            snippet.bracketed().contains("[pytest] [fixtures]"),
            "{}",
            snippet.bracketed()
        );
    }

    #[test]
    fn without_matches_the_start_is_shown() {
        let snippet = make(&"word ".repeat(50), &parse("absent").unwrap(), 20);
        assert!(snippet.text.starts_with("word") && snippet.text.ends_with('…'));
        assert!(snippet.text.chars().count() <= 20);
        assert!(snippet.marks.is_empty());
    }

    #[test]
    fn cuts_never_split_a_character() {
        let text = "测试一律用 pytest ".repeat(40);
        for max in 0..40 {
            let snippet = make(&text, &parse("pytest").unwrap(), max);
            assert!(
                snippet.text.chars().count() <= max,
                "{max}: {}",
                snippet.text
            );
            // From 20 characters on, a snippet has room for a whole match.
            assert!(max < 20 || !snippet.marks.is_empty(), "{max}: no mark");
            for mark in &snippet.marks {
                assert_eq!(&snippet.text[mark.clone()], "pytest");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_and_query_give_a_well_formed_snippet(
            text in "\\PC{0,200}|[a-z 测试\n]{0,200}",
            query in "\\PC{0,20}|[a-z 测试*+\"-]{0,20}",
            max in 0usize..80,
        ) {
            let snippet = make(&text, &parse(&query).unwrap_or_default(), max);
            proptest::prop_assert!(snippet.text.chars().count() <= max);
            let mut at = 0;
            for mark in &snippet.marks {
                proptest::prop_assert!(at <= mark.start && mark.start < mark.end);
                proptest::prop_assert!(snippet.text.get(mark.clone()).is_some());
                at = mark.end;
            }
        }
    }
}
