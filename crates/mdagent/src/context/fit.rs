//! Fitting the context in a budget of characters: what does not fit is
//! left out whole, never cut.

use super::{Catalogue, Context};

/// `context` cut to `budget` characters as `measure` counts them: the
/// records that do not fit are left out whole (a later, shorter one may
/// still fit), and so are catalogue lines, with one line saying how many
/// were left out; a catalogue of which not even that line fits is left out.
pub fn fit(mut context: Context, budget: usize, measure: &dyn Fn(&Context) -> usize) -> Context {
    let records = std::mem::take(&mut context.records);
    let catalogues = std::mem::take(&mut context.catalogues);
    for catalogue in catalogues {
        let lines: Vec<&str> = catalogue.text.lines().collect();
        let cut = |kept: usize| Catalogue {
            scope: catalogue.scope,
            text: cut_catalogue(&lines, kept),
        };
        // The output grows with the lines kept, so the most that fit is
        // found by halving: measuring line by line is quadratic in a long
        // MEMORY.md.
        let fits = |context: &mut Context, kept: usize| {
            context.catalogues.push(cut(kept));
            let fits = measure(context) <= budget;
            context.catalogues.pop();
            fits
        };
        let (mut low, mut high) = (0, lines.len());
        while low < high {
            let mid = low + (high - low).div_ceil(2);
            if fits(&mut context, mid) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        if fits(&mut context, low) {
            context.catalogues.push(cut(low));
        }
    }
    for record in records {
        context.records.push(record);
        if measure(&context) > budget {
            context.records.pop();
        }
    }
    context
}

/// The first `kept` lines, then a line saying how many were left out.
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
    fn a_record_that_does_not_fit_is_left_out_whole() {
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
