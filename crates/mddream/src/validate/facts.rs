//! The fact rule (SPEC §7): a merge or update keeps every fact of every
//! record it reads (a non-empty body line, normalised) unless the plan drops
//! it by name, with why.

use crate::plan::DroppedFact;
use crate::records::DreamRecord;

use super::{Rejection, Rule, shown};

/// A body line as a fact: list markers, heading and quote marks and
/// emphasis stripped, whitespace collapsed, case folded. Rewrapping a list
/// or bolding a word does not lose a fact; changing a word does.
pub fn normalize_fact(line: &str) -> String {
    let mut text = line.trim();
    text = text.trim_start_matches(['#', '>']).trim_start();
    text = strip_list_marker(text);
    let words: Vec<String> = text.split_whitespace().filter_map(unemphasized).collect();
    let fact = words.join(" ").to_lowercase();
    // A sentence's full stop is not part of its fact: "X." is kept by "X
    // (see Y)."
    fact.trim_end_matches(['.', ',', ';', ':', '!', '?'])
        .to_string()
}

/// A word without its emphasis markers (`**pnpm**,` is `pnpm,`), or `None`
/// for a word that was only markers. Inner underscores (`MAX_RETRIES`) stay.
fn unemphasized(word: &str) -> Option<String> {
    let core_end = word
        .trim_end_matches(['.', ',', ';', ':', '!', '?', ')'])
        .len();
    let (core, punctuation) = word.split_at(core_end);
    let core = core.trim_matches(['*', '_']).replace("**", "");
    let word = format!("{core}{punctuation}");
    (!word.is_empty()).then_some(word)
}

fn strip_list_marker(text: &str) -> &str {
    for marker in ["- [ ] ", "- [x] ", "- ", "* ", "+ "] {
        if let Some(rest) = text.strip_prefix(marker) {
            return rest.trim_start();
        }
    }
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    if digits > 0
        && let Some(rest) = text[digits..]
            .strip_prefix(". ")
            .or_else(|| text[digits..].strip_prefix(") "))
    {
        return rest.trim_start();
    }
    text
}

/// The facts of a body, with their 1-based line numbers.
fn facts_of(body: &str) -> impl Iterator<Item = (usize, String, &str)> {
    body.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, normalize_fact(line), line))
        .filter(|(_, fact, _)| !fact.is_empty())
}

/// Checks that `new_body` keeps every fact of `sources` that `drops` does
/// not name, and that every drop names a fact of a record read, with why.
pub(super) fn check_kept(
    index: usize,
    sources: &[&DreamRecord],
    new_body: &str,
    drops: &[DroppedFact],
) -> Result<(), Rejection> {
    let kept: Vec<String> = facts_of(new_body).map(|(_, fact, _)| fact).collect();
    for drop in drops {
        check_drop(index, sources, drop)?;
    }
    for source in sources {
        let key = mdstore::id::id_key(&source.record.id);
        for (line, fact, raw) in facts_of(&source.record.body) {
            let dropped = drops
                .iter()
                .any(|d| mdstore::id::id_key(&d.id) == key && normalize_fact(&d.fact) == fact);
            if dropped || kept.iter().any(|k| k.contains(&fact)) {
                continue;
            }
            return Err(Rejection::new(
                Rule::SilentDrop,
                Some(index),
                format!(
                    "line {line} of {} ({}) is not in the new body; keep it, or list it under \"drops\" with why",
                    shown(&source.record.id),
                    shown(raw.trim())
                ),
            ));
        }
    }
    Ok(())
}

fn check_drop(index: usize, sources: &[&DreamRecord], drop: &DroppedFact) -> Result<(), Rejection> {
    let key = mdstore::id::id_key(&drop.id);
    let Some(source) = sources
        .iter()
        .find(|s| mdstore::id::id_key(&s.record.id) == key)
    else {
        return Err(Rejection::new(
            Rule::CitesSources,
            Some(index),
            format!(
                "a drop names {}, which this operation does not read",
                shown(&drop.id)
            ),
        ));
    };
    let fact = normalize_fact(&drop.fact);
    if fact.is_empty() || !facts_of(&source.record.body).any(|(_, f, _)| f == fact) {
        return Err(Rejection::new(
            Rule::CitesSources,
            Some(index),
            format!(
                "a drop names {} as a fact of {}, which holds no such line",
                shown(&drop.fact),
                shown(&drop.id)
            ),
        ));
    }
    if drop.why.trim().is_empty() {
        return Err(Rejection::new(
            Rule::SilentDrop,
            Some(index),
            format!(
                "the drop of {} from {} gives no why",
                shown(&drop.fact),
                shown(&drop.id)
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::normalize_fact;

    #[test]
    fn markdown_and_case_do_not_make_a_different_fact() {
        for line in [
            "- We use **pnpm**, not npm",
            "  * we use pnpm,   not NPM ",
            "1. We use _pnpm_, not npm",
            "## We use pnpm, not npm",
            "- [x] we use pnpm, not npm",
        ] {
            assert_eq!(normalize_fact(line), "we use pnpm, not npm", "{line}");
        }
    }

    #[test]
    fn snake_case_words_keep_their_underscores() {
        assert_eq!(normalize_fact("set MAX_RETRIES"), "set max_retries");
    }

    #[test]
    fn blank_and_marker_only_lines_are_no_facts() {
        assert_eq!(normalize_fact("   "), "");
        assert_eq!(normalize_fact("**"), "");
    }
}
