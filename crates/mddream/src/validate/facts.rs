//! The fact rule (SPEC §7): a merge or update keeps every fact of every
//! record it reads unless the plan drops it by name, with why. A fact is a
//! line of the body as a reader sees it (`mdstore::markdown`: the one
//! reading and the one definition of a fact); struck, commented or hidden
//! text keeps no fact, and is none.

use mdstore::markdown;

use crate::plan::DroppedFact;
use crate::records::DreamRecord;

use super::{Rejection, Rule, shown};

/// The facts of a body, with their 1-based line numbers and raw lines.
fn facts_of(body: &str) -> Vec<(usize, String, &str)> {
    markdown::read(body)
        .iter()
        .map(|line| (line.number, line.fact(), &body[line.span.clone()]))
        .filter(|(_, fact, _)| !fact.is_empty())
        .collect()
}

/// A fact a plan names (a drop's), read as the line it quotes.
fn named_fact(text: &str) -> String {
    let facts: Vec<String> = markdown::facts(text).into_iter().map(|(_, f)| f).collect();
    facts.join(" ")
}

/// Checks that `new_body` keeps every fact of `sources` that `drops` does
/// not name, and that every drop names a fact of a record read, with why.
pub(super) fn check_kept(
    index: usize,
    sources: &[&DreamRecord],
    new_body: &str,
    drops: &[DroppedFact],
) -> Result<(), Rejection> {
    let kept: Vec<String> = facts_of(new_body)
        .into_iter()
        .map(|(_, fact, _)| fact)
        .collect();
    for drop in drops {
        check_drop(index, sources, drop)?;
    }
    for source in sources {
        let key = mdstore::id::id_key(&source.record.id);
        for (line, fact, raw) in facts_of(&source.record.body) {
            let dropped = drops
                .iter()
                .any(|d| mdstore::id::id_key(&d.id) == key && named_fact(&d.fact) == fact);
            if dropped || kept.iter().any(|k| k.contains(&fact)) {
                continue;
            }
            return Err(Rejection::new(
                Rule::SilentDrop,
                Some(index),
                format!(
                    "line {line} of {} ({}) is not in the new body as text a reader sees; keep it, or list it under \"drops\" with why",
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
    let fact = named_fact(&drop.fact);
    if fact.is_empty()
        || !facts_of(&source.record.body)
            .iter()
            .any(|(_, f, _)| *f == fact)
    {
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
    use super::{facts_of, named_fact};

    #[test]
    fn markdown_and_case_do_not_make_a_different_fact() {
        for line in [
            "- We use **pnpm**, not npm",
            "  * we use pnpm,   not NPM ",
            "1. We use _pnpm_, not npm",
            "## We use pnpm, not npm",
            "- [x] we use pnpm, not npm",
            "We use `pnpm`, not npm.",
        ] {
            assert_eq!(named_fact(line), "we use pnpm, not npm", "{line}");
        }
    }

    #[test]
    fn snake_case_words_keep_their_underscores() {
        assert_eq!(named_fact("set MAX_RETRIES"), "set max_retries");
    }

    #[test]
    fn blank_markup_and_hidden_lines_are_no_facts() {
        let body = "   \n```\n```\n~~old~~\n<!-- note -->\n---\n";
        assert_eq!(facts_of(body), Vec::new());
    }
}
