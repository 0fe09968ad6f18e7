//! One sentence about other things: two word sequences that are the same
//! but where, in one place or more, content words of one stand for other
//! content words of the other. "The default branch is master" / "… is
//! main" is the same sentence about another value; "Alice owns the
//! payments module" / "Bob owns the search module" is one template filled
//! in for another subject. Neither pair is a duplicate, however many of
//! their words they share.
//!
//! The sequences are aligned by their longest common subsequence; each
//! stretch between two matched words is a place. A place where only
//! function words differ ("the", "each") says nothing; one where a word is
//! added or dropped is a restatement, not a replacement, and so is a place
//! whose two words are one letter apart (a typo).

use std::ops::Range;

use super::similar::one_edit;

/// What a term of a sequence is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A stop word or a quantifier ("every", "each").
    Function,
    /// A word or value written in letters other than CJK.
    Word,
    /// A pair of Chinese, Japanese or Korean characters.
    Cjk,
}

/// Longer sequences than this are not aligned (the work grows with the
/// product of the lengths); records that long are compared by word pairs.
pub(crate) const MAX_TERMS: usize = 256;

/// One side of the comparison: its terms in order (by hash), how each
/// English content word is spelled, and whether the record holds a word
/// anywhere (its description or its body).
pub(crate) struct Side<'a> {
    pub(crate) terms: &'a [(u64, Kind)],
    pub(crate) spelling: &'a dyn Fn(u64) -> Option<&'a str>,
    pub(crate) holds: &'a dyn Fn(u64) -> bool,
}

/// In how many places `a` and `b`, one sentence, have content words
/// replaced (at most two words a side in each place, words in Latin
/// letters that the other record does not hold anywhere); 0 when they are
/// not one sentence so (a word added or dropped, too many words changed).
/// Chinese, Japanese and Korean are left out: their terms are character
/// pairs, which a changed inflection alters.
pub(crate) fn other_things(a: &Side<'_>, b: &Side<'_>) -> usize {
    if a.terms.is_empty()
        || b.terms.is_empty()
        || a.terms.len() > MAX_TERMS
        || b.terms.len() > MAX_TERMS
    {
        return 0;
    }
    let mut places = 0;
    for (x, y) in gaps(a.terms, b.terms) {
        let (cx, cy) = (content(&a.terms[x]), content(&b.terms[y]));
        if cx.is_empty() && cy.is_empty() {
            continue;
        }
        let replaced = |words: &[(u64, Kind)], other: &Side<'_>| {
            (1..=2).contains(&words.len())
                && words
                    .iter()
                    .all(|(h, k)| *k == Kind::Word && !(other.holds)(*h))
        };
        if !(replaced(&cx, b) && replaced(&cy, a)) {
            return 0;
        }
        if let ([(p, _)], [(q, _)]) = (&cx[..], &cy[..])
            && let (Some(p), Some(q)) = ((a.spelling)(*p), (b.spelling)(*q))
            && one_edit(p, q)
        {
            // A typo: the same word.
            continue;
        }
        places += 1;
    }
    places
}

/// The two word sequences are the same but for one place where a content
/// word (or two) of one stands for other content words of the other, and
/// not by a one-letter difference: the sentences' common beginning and end
/// taken whole, so that the rest of the sentence is word for word the same.
pub(crate) fn one_place(a: &Side<'_>, b: &Side<'_>) -> bool {
    let (x, y) = (a.terms, b.terms);
    if x.is_empty() || y.is_empty() {
        return false;
    }
    let prefix = x.iter().zip(y).take_while(|(p, q)| p.0 == q.0).count();
    let suffix = x[prefix..]
        .iter()
        .rev()
        .zip(y[prefix..].iter().rev())
        .take_while(|(p, q)| p.0 == q.0)
        .count();
    // The content words of a middle, when all of them are missing from the
    // other record and are words written in Latin letters.
    let middle = |s: &[(u64, Kind)], other: &Side<'_>| -> Option<Vec<u64>> {
        let content: Vec<&(u64, Kind)> = s.iter().filter(|(_, k)| *k != Kind::Function).collect();
        let replaced = content
            .iter()
            .all(|(h, k)| *k == Kind::Word && !(other.holds)(*h));
        (replaced && (1..=2).contains(&content.len()))
            .then(|| content.iter().map(|(h, _)| *h).collect())
    };
    let (Some(ma), Some(mb)) = (
        middle(&x[prefix..x.len() - suffix], b),
        middle(&y[prefix..y.len() - suffix], a),
    ) else {
        return false;
    };
    if let ([p], [q]) = (&ma[..], &mb[..])
        && let (Some(p), Some(q)) = ((a.spelling)(*p), (b.spelling)(*q))
    {
        return !one_edit(p, q);
    }
    true
}

fn content(terms: &[(u64, Kind)]) -> Vec<(u64, Kind)> {
    terms
        .iter()
        .filter(|(_, k)| *k != Kind::Function)
        .copied()
        .collect()
}

/// The stretches of `x` and `y` between the words their longest common
/// subsequence matches (either side may be empty), in order.
fn gaps(x: &[(u64, Kind)], y: &[(u64, Kind)]) -> Vec<(Range<usize>, Range<usize>)> {
    let (n, m) = (x.len(), y.len());
    // lcs[i][j]: the longest common subsequence of x[i..] and y[j..].
    let mut lcs = vec![0u16; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[at(i, j)] = if x[i].0 == y[j].0 {
                lcs[at(i + 1, j + 1)] + 1
            } else {
                lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
            };
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    let (mut gap_x, mut gap_y) = (0, 0);
    while i < n && j < m {
        if x[i].0 == y[j].0 {
            if gap_x < i || gap_y < j {
                out.push((gap_x..i, gap_y..j));
            }
            i += 1;
            j += 1;
            (gap_x, gap_y) = (i, j);
        } else if lcs[at(i + 1, j)] >= lcs[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }
    if gap_x < n || gap_y < m {
        out.push((gap_x..n, gap_y..m));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<(u64, Kind)> {
        text.split(' ')
            .map(|w| {
                let kind = if ["the", "is", "a", "each", "every"].contains(&w) {
                    Kind::Function
                } else {
                    Kind::Word
                };
                (crate::gather::terms::hash_term(w), kind)
            })
            .collect()
    }

    fn judge(a: &str, b: &str) -> usize {
        let (x, y) = (terms(a), terms(b));
        let holds = |words: &[(u64, Kind)]| {
            let words: Vec<u64> = words.iter().map(|(h, _)| *h).collect();
            move |h: u64| words.contains(&h)
        };
        let (hx, hy) = (holds(&x), holds(&y));
        let spell_a: Vec<(u64, &str)> = a
            .split(' ')
            .map(|w| (crate::gather::terms::hash_term(w), w))
            .collect();
        let spell_b: Vec<(u64, &str)> = b
            .split(' ')
            .map(|w| (crate::gather::terms::hash_term(w), w))
            .collect();
        let sa = |h: u64| spell_a.iter().find(|(k, _)| *k == h).map(|(_, s)| *s);
        let sb = |h: u64| spell_b.iter().find(|(k, _)| *k == h).map(|(_, s)| *s);
        other_things(
            &Side {
                terms: &x,
                spelling: &sa,
                holds: &hx,
            },
            &Side {
                terms: &y,
                spelling: &sb,
                holds: &hy,
            },
        )
    }

    #[test]
    fn the_same_template_about_other_subjects_is_about_other_things() {
        assert_eq!(
            judge(
                "alice owns the payments module",
                "bob owns the search module"
            ),
            2
        );
        assert_eq!(
            judge("the default branch is master", "the default branch is main"),
            1
        );
        assert_eq!(
            judge("record one about omega", "record four about sigma"),
            2
        );
    }

    #[test]
    fn restatements_typos_and_function_words_are_not() {
        assert_eq!(
            judge(
                "alice owns the payments module",
                "alice owns the payments module"
            ),
            0
        );
        assert_eq!(judge("commit message", "commit message style"), 0);
        assert_eq!(judge("review each change", "review every change"), 0);
        assert_eq!(judge("always pushing early", "always pushng early"), 0);
        assert_eq!(
            judge(
                "alice owns the payments module",
                "alice owns the payments module now"
            ),
            0
        );
        // A replaced word the other record holds elsewhere: reordered.
        assert_eq!(
            judge("deploy staging then prod", "deploy prod then staging"),
            0
        );
    }
}
