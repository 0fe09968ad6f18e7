//! `memctl check`: lint every record of the stores; exit 1 on problems
//! (fit for a pre-commit hook; `mdagent::maintain::check`).

use mdagent::Config;
use mdagent::maintain::check::{self, Severity};
use mdagent::stores::Scope;

use crate::cli::{CheckArgs, SearchScope};
use crate::failure::Exit;
use crate::ui::{self, Style, Ui, count};

pub fn run(config: &Config, ui: &Ui, args: CheckArgs) -> anyhow::Result<Exit> {
    let scope = match args.scope {
        Some(SearchScope::Workspace) => Some(Scope::Workspace),
        Some(SearchScope::Global) => Some(Scope::Global),
        Some(SearchScope::All) | None => None,
    };
    let checked = check::run(config, scope)?;
    let records: usize = checked.iter().map(|c| c.records).sum();
    let problems: usize = checked.iter().map(|c| c.findings.len()).sum();
    let labelled: usize = checked.iter().map(|c| c.labelled).sum();
    let mut out = String::new();
    let mut json = Vec::new();
    for (store, finding) in checked
        .iter()
        .flat_map(|c| c.findings.iter().map(move |f| (c, f)))
    {
        let path = store.scoped.store.root().join(&finding.rel_path);
        let (severity, style) = match finding.severity {
            Severity::Error => ("error", Style::Red),
            Severity::Warning => ("warning", Style::Yellow),
        };
        json.push(serde_json::json!({
            "path": path, "line": finding.line, "severity": severity,
            "message": finding.message, "scope": store.scoped.scope.as_str(),
        }));
        let line = finding.line.map(|l| format!(":{l}")).unwrap_or_default();
        // A finding quotes the file's own text, which may hold escapes.
        out += &format!(
            "{}{line}: {}: {}\n",
            ui::shown_path(&path),
            ui.paint(style, severity),
            ui::shown(&finding.message)
        );
    }
    let exit = if problems > 0 {
        Exit::NothingOrProblems
    } else {
        Exit::Ok
    };
    if args.json {
        let report = serde_json::json!({
            "records": records, "problems": problems, "findings": json,
            "names_other_than_file_names": labelled,
        });
        ui::print_json(&report)?;
        return Ok(exit);
    }
    ui::print(&out)?;
    if labelled > 0 {
        ui.note(&format!(
            "{} {} a `name` other than the file name (a title or a label of its own, as Claude Code writes): the file name is the id, so this is not a problem",
            ui.paint(Style::Cyan, "note:"),
            count(labelled, "record has", "records have")
        ));
    }
    if checked.iter().any(check::StoreCheck::catalog_problem) {
        ui.note(&format!(
            "{} any write regenerates MEMORY.md, and so does `memctl init` now (with the same --store or --global); a MEMORY.md that memctl did not write is kept first",
            ui.paint(Style::Cyan, "hint:")
        ));
    }
    // `-q`: the problems, or nothing.
    ui.note(&format!(
        "{} checked, {}",
        count(records, "record", "records"),
        count(problems, "problem", "problems")
    ));
    Ok(exit)
}
