//! Fitting the context in a budget of characters. Catalogue lines past the
//! budget are left out and counted. Records that fit whole are shown whole;
//! a record that does not is shown cut (its description and the start of
//! its body, with a note saying how to read the rest) in the room the
//! others leave, or left out when not even its description fits: on the
//! real folders of docs/CONTEXT.md, leaving long records out whole lost
//! records that `search` ranks first.

use super::{Catalogue, Context, Recalled};

/// `context` cut to `budget` characters as `measure` counts them: the
/// records that fit whole are kept whole (a later, shorter one may still
/// fit); then each one left out, best first, is shown cut at its place if
/// its description and the note still fit. Catalogue lines past the budget
/// are left out with one line saying how many; a catalogue of which not
/// even that line fits is left out.
pub fn fit(mut context: Context, budget: usize, measure: &dyn Fn(&Context) -> usize) -> Context {
    let records = std::mem::take(&mut context.records);
    let catalogues = std::mem::take(&mut context.catalogues);
    for catalogue in catalogues {
        fit_catalogue(&mut context, catalogue, budget, measure);
    }
    let mut kept_ranks = Vec::new();
    let mut left_out = Vec::new();
    for (rank, record) in records.into_iter().enumerate() {
        context.records.push(record);
        if measure(&context) > budget {
            left_out.extend(context.records.pop().map(|r| (rank, r)));
        } else {
            kept_ranks.push(rank);
        }
    }
    for (rank, record) in left_out {
        let at = kept_ranks.partition_point(|&kept| kept < rank);
        if let Some(cut) = cut_to_fit(&mut context, at, &record, budget, measure) {
            context.records.insert(at, cut);
            kept_ranks.insert(at, rank);
        }
    }
    context
}

/// As many of `catalogue`'s lines as fit, with a line counting the rest.
fn fit_catalogue(
    context: &mut Context,
    catalogue: Catalogue,
    budget: usize,
    measure: &dyn Fn(&Context) -> usize,
) {
    let lines: Vec<&str> = catalogue.text.lines().collect();
    let cut = |kept: usize| Catalogue {
        scope: catalogue.scope,
        text: cut_catalogue(&lines, kept),
    };
    // The output grows with the lines kept, so the most that fit is found
    // by halving: measuring line by line is quadratic in a long MEMORY.md.
    let fits = |context: &mut Context, kept: usize| {
        context.catalogues.push(cut(kept));
        let fits = measure(context) <= budget;
        context.catalogues.pop();
        fits
    };
    if let Some(kept) = most_that_fit(0, lines.len(), |kept| fits(context, kept)) {
        context.catalogues.push(cut(kept));
    }
}

/// `record` cut to the most of its text that fits at position `at` of the
/// context's records, never shorter than its description (its first
/// line), with a note on how to read it whole; `None` if that does not fit.
fn cut_to_fit(
    context: &mut Context,
    at: usize,
    record: &Recalled,
    budget: usize,
    measure: &dyn Fn(&Context) -> usize,
) -> Option<Recalled> {
    let content = &record.content;
    let total = content.chars().count();
    let description = content.lines().next().map_or(0, |l| l.chars().count());
    let cut = |kept: usize| {
        let end = content.char_indices().nth(kept).map_or(content.len(), |(i, _)| i);
        Recalled {
            content: format!(
                "{}\n{}",
                content[..end].trim_end(),
                cut_note(total - kept, &record.id)
            ),
            ..record.clone()
        }
    };
    let fits = |context: &mut Context, kept: usize| {
        context.records.insert(at, cut(kept));
        let fits = measure(context) <= budget;
        context.records.remove(at);
        fits
    };
    // A record that fit whole would not be here, so at most all but one
    // character is kept.
    let most = total.saturating_sub(1).max(description);
    most_that_fit(description, most, |kept| fits(context, kept)).map(cut)
}

/// The note ending a record cut to fit the budget.
fn cut_note(left_out: usize, id: &str) -> String {
    format!(
        "[… {left_out} more characters of this record left out to keep within the budget: `memctl show {id}` prints it whole]"
    )
}

/// The largest `n` in `low..=high` for which `fits(n)`, found by halving
/// (the output grows with `n`); `None` if not even `low` fits.
fn most_that_fit(
    mut low: usize,
    mut high: usize,
    mut fits: impl FnMut(usize) -> bool,
) -> Option<usize> {
    if !fits(low) {
        return None;
    }
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        if fits(mid) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    Some(low)
}

fn cut_catalogue(lines: &[&str], kept: usize) -> String {
    let mut text = String::new();
    for line in &lines[..kept] {
        text += line;
        text += "\n";
    }
    if kept < lines.len() {
        text += &omitted(lines.len() - kept);
    }
    text
}

fn omitted(lines: usize) -> String {
    format!(
        "… {lines} more lines of MEMORY.md left out to keep within the budget (`memctl list` shows every record)\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::render::tests::record;
    use crate::context::render::{POLICY, readable};

    #[test]
    fn a_record_whose_description_does_not_fit_is_left_out_whole() {
        let context = Context {
            policy: POLICY,
            catalogues: vec![],
            records: vec![record("big", &"x".repeat(500)), record("small", "short")],
            warnings: vec![],
        };
        let fitted = fit(context, POLICY.len() + 300, &|c| {
            readable(c).chars().count()
        });
        let ids: Vec<&str> = fitted.records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["small"]);
    }

    #[test]
    fn a_long_record_is_shown_cut_at_its_rank_in_what_the_others_leave() {
        let long_body = "日本語の本文。".repeat(400);
        let context = Context {
            policy: POLICY,
            catalogues: vec![],
            records: vec![
                record("long", &format!("The long one\n\n{long_body}")),
                record("small", "short"),
            ],
            warnings: vec![],
        };
        let budget = POLICY.len() + 1_000;
        let measure = |c: &Context| readable(c).chars().count();
        let fitted = fit(context, budget, &measure);
        let ids: Vec<&str> = fitted.records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["long", "small"], "the cut record keeps its rank");
        assert!(measure(&fitted) <= budget);
        let cut = &fitted.records[0].content;
        assert!(cut.starts_with("The long one\n\n日本語の本文。"), "{cut}");
        assert!(cut.ends_with("`memctl show long` prints it whole]"), "{cut}");
        assert!(
            measure(&fitted) > budget - 40,
            "the cut fills the room left: {}",
            measure(&fitted)
        );
    }

    #[test]
    fn a_cut_record_never_loses_its_description() {
        let context = Context {
            policy: POLICY,
            catalogues: vec![],
            records: vec![record(
                "long",
                &format!("{}\n\n{}", "d".repeat(300), "body ".repeat(200)),
            )],
            warnings: vec![],
        };
        let measure = |c: &Context| readable(c).chars().count();
        let fitted = fit(context.clone(), POLICY.len() + 350, &measure);
        assert!(fitted.records.is_empty(), "description and note do not fit");
        let fitted = fit(context, POLICY.len() + 900, &measure);
        let cut = &fitted.records[0].content;
        assert!(cut.starts_with(&format!("{}\n\nbody", "d".repeat(300))), "{cut}");
        assert!(cut.contains("more characters of this record left out"), "{cut}");
    }

    #[test]
    fn catalogue_lines_past_the_budget_are_counted_not_cut() {
        let text: String = (0..100)
            .map(|n| format!("- [r{n}](r{n}.md) — about {n}\n"))
            .collect();
        let context = Context {
            policy: POLICY,
            catalogues: vec![Catalogue {
                scope: "workspace",
                text,
            }],
            records: vec![],
            warnings: vec![],
        };
        let budget = POLICY.len() + 1_000;
        let fitted = fit(context, budget, &|c| readable(c).chars().count());
        let shown = readable(&fitted);
        assert!(shown.chars().count() <= budget, "{}", shown.len());
        assert!(
            shown.contains("more lines of MEMORY.md left out"),
            "{shown}"
        );
        assert!(shown.contains("\n- [r0](r0.md) — about 0\n"));
    }
}
