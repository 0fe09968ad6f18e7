//! Fitting the context in a budget of characters. Catalogue lines past the
//! budget are left out and counted. Every record is first given its least
//! (its description and a note saying how to read the rest, or the whole
//! record when that is shorter), best first, while that fits; then each,
//! best first, as much of its text as fits. On the real folders of
//! docs/CONTEXT.md, leaving long records out whole lost records that
//! `search` ranks first, and filling the budget with the first records lost
//! the later ones.

use super::{Catalogue, Context, Recalled};

/// `context` cut to `budget` characters as `measure` counts them: each
/// record at its least while that fits (a later, shorter one may still
/// fit), then each, best first, whole or cut to the most that fits.
/// Catalogue lines past the budget are left out with one line saying how
/// many; a catalogue of which not even that line fits is left out.
pub fn fit(mut context: Context, budget: usize, measure: &dyn Fn(&Context) -> usize) -> Context {
    let records = std::mem::take(&mut context.records);
    let catalogues = std::mem::take(&mut context.catalogues);
    for catalogue in catalogues {
        fit_catalogue(&mut context, catalogue, budget, measure);
    }
    let mut shown = Vec::new();
    for record in records {
        context.records.push(least(&record));
        if measure(&context) > budget {
            context.records.pop();
        } else {
            shown.push(record);
        }
    }
    for (at, record) in shown.into_iter().enumerate() {
        let at_least = std::mem::replace(&mut context.records[at], record);
        if measure(&context) <= budget {
            continue;
        }
        let record = std::mem::replace(&mut context.records[at], at_least);
        let total = record.content.chars().count();
        let fits = |context: &mut Context, kept: usize| {
            context.records[at] = cut(&record, kept);
            measure(context) <= budget
        };
        // Its least fits (it is there); the whole does not.
        let most = total.saturating_sub(1).max(description_chars(&record));
        let kept = most_that_fit(description_chars(&record), most, |kept| {
            fits(&mut context, kept)
        });
        context.records[at] = match kept {
            Some(kept) => cut(&record, kept),
            None => least(&record),
        };
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

/// The least of `record` shown: its description (its first line) and the
/// note, or the whole record when that is no longer.
fn least(record: &Recalled) -> Recalled {
    let cut = cut(record, description_chars(record));
    if cut.content.chars().count() < record.content.chars().count() {
        cut
    } else {
        record.clone()
    }
}

fn description_chars(record: &Recalled) -> usize {
    record
        .content
        .lines()
        .next()
        .map_or(0, |l| l.chars().count())
}

/// `record` with only its first `kept` characters, and the note.
fn cut(record: &Recalled, kept: usize) -> Recalled {
    let content = &record.content;
    let total = content.chars().count();
    let end = content
        .char_indices()
        .nth(kept)
        .map_or(content.len(), |(i, _)| i);
    Recalled {
        content: format!(
            "{}\n{}",
            content[..end].trim_end(),
            cut_note(total.saturating_sub(kept), &record.id)
        ),
        ..record.clone()
    }
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
        assert!(
            cut.ends_with("`memctl show long` prints it whole]"),
            "{cut}"
        );
        assert!(
            measure(&fitted) > budget - 40,
            "the cut fills the room left: {}",
            measure(&fitted)
        );
    }

    #[test]
    fn every_record_keeps_its_description_before_the_first_is_shown_whole() {
        let long = |id: &str| record(id, &format!("About {id}\n\n{}", "text ".repeat(600)));
        let context = Context {
            policy: POLICY,
            catalogues: vec![],
            records: vec![long("first"), long("second"), long("third")],
            warnings: vec![],
        };
        let budget = POLICY.len() + 2_500;
        let measure = |c: &Context| readable(c).chars().count();
        let fitted = fit(context, budget, &measure);
        let ids: Vec<&str> = fitted.records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["first", "second", "third"]);
        assert!(measure(&fitted) <= budget);
        let sizes: Vec<usize> = fitted.records.iter().map(|r| r.content.len()).collect();
        assert!(
            sizes[0] > sizes[2] + 500,
            "the best gets the room: {sizes:?}"
        );
        assert!(fitted.records[2].content.starts_with("About third"));
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
        assert!(
            cut.starts_with(&format!("{}\n\nbody", "d".repeat(300))),
            "{cut}"
        );
        assert!(
            cut.contains("more characters of this record left out"),
            "{cut}"
        );
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
