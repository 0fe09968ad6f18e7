//! The tables of docs/CONTEXT.md's "Real folders" sections: for each
//! labelled set, what `search --limit 5` and `context` brought for each
//! prompt, broken down by language, kind and length, context next to search.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::context::{Figures, Kind, Prompt};
use crate::sets::Role;

/// What the two commands brought for one prompt.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub prompt: Prompt,
    /// `search --limit 5`'s ids, best first.
    pub search: Vec<String>,
    /// `context`'s ids, best first.
    pub context: Vec<String>,
}

/// A set's outcomes.
#[derive(Clone, Debug)]
pub struct Measured {
    pub name: String,
    pub role: Role,
    pub outcomes: Vec<Outcome>,
}

/// The figures of search and of context over the same prompts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pair {
    pub search: Figures,
    pub context: Figures,
}

impl Pair {
    pub fn of<'a>(outcomes: impl IntoIterator<Item = &'a Outcome> + Clone) -> Pair {
        Pair {
            search: Figures::of(
                outcomes
                    .clone()
                    .into_iter()
                    .map(|o| (&o.prompt, o.search.as_slice())),
            ),
            context: Figures::of(
                outcomes
                    .into_iter()
                    .map(|o| (&o.prompt, o.context.as_slice())),
            ),
        }
    }
}

/// The slices of a set's prompts a table shows: all, each language (when
/// there are several), each kind, long and short.
pub fn slices(outcomes: &[Outcome]) -> Vec<(String, Vec<&Outcome>)> {
    let mut slices = vec![("all".to_string(), outcomes.iter().collect())];
    let mut by_lang: BTreeMap<&str, Vec<&Outcome>> = BTreeMap::new();
    for outcome in outcomes {
        by_lang
            .entry(&outcome.prompt.lang)
            .or_default()
            .push(outcome);
    }
    if by_lang.len() > 1 {
        slices.extend(
            by_lang
                .into_iter()
                .map(|(lang, some)| (lang.to_string(), some)),
        );
    }
    for kind in Kind::ALL {
        let some: Vec<&Outcome> = outcomes
            .iter()
            .filter(|o| o.prompt.kind == Some(kind))
            .collect();
        if !some.is_empty() {
            slices.push((kind.as_str().to_string(), some));
        }
    }
    let (long, short): (Vec<&Outcome>, Vec<&Outcome>) =
        outcomes.iter().partition(|o| o.prompt.long);
    if !long.is_empty() {
        slices.push(("long".to_string(), long));
        slices.push(("short".to_string(), short));
    }
    slices
}

/// The prompts of the real and own sets pooled by language.
fn by_language(measured: &[Measured]) -> Vec<(String, Vec<&Outcome>)> {
    let mut by_lang: BTreeMap<&str, Vec<&Outcome>> = BTreeMap::new();
    for set in measured.iter().filter(|s| s.role != Role::Dev) {
        for outcome in &set.outcomes {
            by_lang
                .entry(&outcome.prompt.lang)
                .or_default()
                .push(outcome);
        }
    }
    by_lang
        .into_iter()
        .map(|(lang, some)| (format!("{lang}, real and own sets"), some))
        .collect()
}

/// Both tables (prompts with a relevant record; prompts without one), a
/// row for each slice of each set, then the languages pooled.
pub fn tables(measured: &[Measured]) -> String {
    let mut rows: Vec<(String, Pair)> = Vec::new();
    for set in measured {
        for (slice, some) in slices(&set.outcomes) {
            let label = format!("{} ({}), {slice}", set.name, set.role.as_str());
            rows.push((label, Pair::of(some.iter().copied())));
        }
    }
    for (label, some) in by_language(measured) {
        rows.push((label, Pair::of(some.iter().copied())));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Prompts with a relevant record (hit@5: one of them among the records shown; \
         shown: records per prompt):\n"
    );
    let _ = writeln!(
        out,
        "| set, slice | prompts | search hit@5 | context hit@5 | context − search | search shown | context shown |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    for (label, pair) in rows.iter().filter(|(_, p)| p.search.with > 0) {
        let (s, c) = (&pair.search, &pair.context);
        let _ = writeln!(
            out,
            "| {label} | {} | {:.3} | {:.3} | {:+.3} | {:.2} | {:.2} |",
            s.with,
            s.hit_at_5,
            c.hit_at_5,
            c.hit_at_5 - s.hit_at_5,
            s.shown_per_prompt,
            c.shown_per_prompt
        );
    }
    let _ = writeln!(
        out,
        "\nPrompts without one (quiet: the share that brought nothing; shown: records per prompt):\n"
    );
    let _ = writeln!(
        out,
        "| set, slice | prompts | search quiet | context quiet | search shown | context shown |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
    for (label, pair) in rows.iter().filter(|(_, p)| p.search.without > 0) {
        let (s, c) = (&pair.search, &pair.context);
        let _ = writeln!(
            out,
            "| {label} | {} | {:.3} | {:.3} | {:.2} | {:.2} |",
            s.without, s.quiet, c.quiet, s.shown_per_negative, c.shown_per_negative
        );
    }
    out
}

/// Every prompt context gets wrong (a relevant record not shown, or a
/// negative that brought something), one line each.
pub fn misses(set: &Measured) -> String {
    let mut out = String::new();
    for (at, outcome) in set.outcomes.iter().enumerate() {
        let prompt = &outcome.prompt;
        let hit = outcome
            .context
            .iter()
            .any(|id| prompt.relevant.contains(id));
        let miss = if prompt.relevant.is_empty() {
            !outcome.context.is_empty()
        } else {
            !hit
        };
        if miss {
            // Its end, where the question after a paste is; Debug escapes
            // control and format characters (ESC, bidi overrides).
            let tail: String = prompt
                .text
                .chars()
                .rev()
                .take(70)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let _ = writeln!(
                out,
                "- {} prompt {at} …{:?} wants {:?}; context {:?}; search {:?}",
                set.name, tail, prompt.relevant, outcome.context, outcome.search
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(
        relevant: &[&str],
        kind: Kind,
        lang: &str,
        search: &[&str],
        context: &[&str],
    ) -> Outcome {
        let strings = |ids: &[&str]| ids.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Outcome {
            prompt: Prompt {
                text: format!("{relevant:?} {search:?}"),
                relevant: strings(relevant),
                lang: lang.into(),
                kind: Some(kind),
                long: lang == "ja",
                dev: false,
            },
            search: strings(search),
            context: strings(context),
        }
    }

    #[test]
    fn figures_count_hits_quiet_negatives_and_records_shown_for_each_command() {
        let outcomes = [
            outcome(&["a"], Kind::Direct, "en", &["b", "a"], &["a"]),
            outcome(&["a", "c"], Kind::Paraphrase, "ja", &["c"], &[]),
            outcome(&[], Kind::Negative, "en", &["x", "y", "z"], &[]),
            outcome(&[], Kind::Negative, "ja", &["x"], &["x"]),
        ];
        let pair = Pair::of(&outcomes);
        assert_eq!((pair.search.with, pair.search.without), (2, 2));
        assert_eq!(pair.search.hit_at_5, 1.0);
        assert_eq!(pair.context.hit_at_5, 0.5);
        assert_eq!(pair.search.quiet, 0.0);
        assert_eq!(pair.context.quiet, 0.5);
        assert_eq!(pair.search.shown_per_prompt, 1.5);
        assert_eq!(pair.search.shown_per_negative, 2.0);
        assert_eq!(pair.context.shown_per_negative, 0.5);
        let labels: Vec<String> = slices(&outcomes)
            .into_iter()
            .map(|(l, s)| format!("{l}:{}", s.len()))
            .collect();
        assert_eq!(
            labels,
            [
                "all:4",
                "en:2",
                "ja:2",
                "direct:1",
                "paraphrase:1",
                "negative:2",
                "long:2",
                "short:2"
            ]
        );
    }

    #[test]
    fn misses_list_what_context_got_wrong_with_control_characters_escaped() {
        let mut wrong = outcome(&["a"], Kind::Direct, "en", &["a"], &["b"]);
        wrong.prompt.text = "deploy\u{1b}[31m `now`\u{202e}".into();
        let set = Measured {
            name: "real/t".into(),
            role: Role::Real,
            outcomes: vec![
                outcome(&["a"], Kind::Direct, "en", &["a"], &["a"]),
                wrong,
                outcome(&[], Kind::Negative, "en", &["x"], &["x"]),
            ],
        };
        let text = misses(&set);
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.contains("real/t prompt 1"), "{text}");
        assert!(text.contains("real/t prompt 2"), "{text}");
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text}"
        );
    }
}
