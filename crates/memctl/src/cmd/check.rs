//! `memctl check`: lint every record of the stores; exit 1 on problems
//! (fit for a pre-commit hook).

use mdagent::Config;
use mdagent::stores::{self, Scope};
use mdstore::Severity;
use mdstore::store::CATALOG_FILE;

use crate::cli::{CheckArgs, SearchScope};
use crate::failure::{Exit, Failure};
use crate::ui::{self, Style, Ui, count};

pub fn run(config: &Config, ui: &Ui, args: CheckArgs) -> anyhow::Result<Exit> {
    let mut stores = stores::read_stores(config)?;
    // A project's hook checks the project's store, not its author's global one.
    match args.scope {
        Some(SearchScope::Workspace) => stores.retain(|s| s.scope == Scope::Workspace),
        Some(SearchScope::Global) => stores.retain(|s| s.scope == Scope::Global),
        Some(SearchScope::All) | None => {}
    }
    if stores.is_empty() {
        return Err(Failure::bad_input("no store to check here")
            .with_hint("run it inside a project with a `.memory/` folder, or pass --store DIR")
            .into());
    }
    let mut problems = 0;
    let mut records = 0;
    let mut out = String::new();
    let mut catalog_problems = false;
    let mut labelled = 0;
    let mut json = Vec::new();
    for scoped in &stores {
        let mut report = mdstore::check::check(&scoped.store);
        report
            .findings
            .extend(settings_problem(scoped.store.root()));
        records += report.records;
        labelled += report.labelled.len();
        problems += report.findings.len();
        for finding in &report.findings {
            catalog_problems |= finding.rel_path.as_os_str() == CATALOG_FILE;
            let path = scoped.store.root().join(&finding.rel_path);
            let line = finding.line.map(|l| format!(":{l}")).unwrap_or_default();
            let severity = match finding.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            json.push(serde_json::json!({
                "path": path, "line": finding.line, "severity": severity,
                "message": finding.message, "scope": scoped.scope.as_str(),
            }));
            let style = match finding.severity {
                Severity::Error => Style::Red,
                Severity::Warning => Style::Yellow,
            };
            let severity = ui.paint(style, severity);
            // A finding quotes the file's own text, which may hold escapes.
            out += &format!(
                "{}{line}: {severity}: {}\n",
                ui::shown_path(&path),
                ui::shown(&finding.message)
            );
        }
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
    if catalog_problems {
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

/// What is wrong with the store's `.memctl.toml`, if anything: every write
/// and hook would otherwise report it one warning at a time (issue 25).
fn settings_problem(store_root: &std::path::Path) -> Option<mdstore::check::Finding> {
    let file = mdagent::config::store_file::read(store_root);
    Some(mdstore::check::Finding {
        rel_path: mdagent::config::store_file::SETTINGS_FILE.into(),
        line: None,
        severity: Severity::Error,
        message: file.problem()?,
    })
}
