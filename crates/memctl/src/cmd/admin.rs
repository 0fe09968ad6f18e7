//! `memctl init`, `check`, `status` and `completions`.

use anyhow::Context;
use clap::CommandFactory;
use mdstore::lock::{self, StoreLock};
use mdstore::view::StoreView;
use mdstore::{Severity, Store, catalog};

use crate::cli::{Cli, CompletionsArgs, GlobalArgs, InitArgs};
use crate::failure::{Exit, Failure};
use crate::index_hook;
use crate::stores::{self, Scope, WORKSPACE_DIR};
use crate::ui::{self, Style, Ui};

pub fn init(global: &GlobalArgs, ui: &Ui, _args: InitArgs) -> anyhow::Result<Exit> {
    let dir = if global.global {
        stores::global_dir()?
    } else if let Some((dir, _)) = stores::named_workspace_dir(global) {
        dir
    } else {
        std::env::current_dir()
            .context("cannot read the current folder")?
            .join(WORKSPACE_DIR)
    };
    let existed = dir.is_dir();
    let store = Store::create(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let _lock = StoreLock::acquire(store.root(), lock::timeout_from_env())?;
    let view = StoreView::load(&store);
    catalog::write(&store, &view.summaries).context("cannot write MEMORY.md")?;
    let what = if global.global { "global" } else { "workspace" };
    if existed {
        ui.note(&format!(
            "The {what} store {} already exists ({} records).",
            store.root().display(),
            view.summaries.len()
        ));
    } else {
        ui.note(&format!(
            "Created the {what} store {}.",
            store.root().display()
        ));
    }
    Ok(Exit::Ok)
}

pub fn check(global: &GlobalArgs, ui: &Ui) -> anyhow::Result<Exit> {
    let stores = stores::read_stores(global)?;
    if stores.is_empty() {
        return Err(Failure::bad_input("no store to check here")
            .with_hint("run it inside a project with a `.memory/` folder, or pass --store DIR")
            .into());
    }
    let mut problems = 0;
    let mut records = 0;
    let mut out = String::new();
    for scoped in &stores {
        let report = mdstore::check::check(&scoped.store);
        records += report.records;
        problems += report.findings.len();
        for finding in &report.findings {
            let path = scoped.store.root().join(&finding.rel_path);
            let line = finding.line.map(|l| format!(":{l}")).unwrap_or_default();
            let severity = match finding.severity {
                Severity::Error => ui.paint(Style::Red, "error"),
                Severity::Warning => ui.paint(Style::Yellow, "warning"),
            };
            out += &format!(
                "{}{line}: {severity}: {}\n",
                path.display(),
                finding.message
            );
        }
    }
    ui::print(&out)?;
    let summary = format!("{records} records checked, {problems} problems");
    if problems > 0 {
        eprintln!("{summary}");
        Ok(Exit::NothingOrProblems)
    } else {
        ui.note(&summary);
        Ok(Exit::Ok)
    }
}

pub fn status(global: &GlobalArgs, _ui: &Ui) -> anyhow::Result<Exit> {
    let mut out = String::new();
    let workspace = if global.global {
        None
    } else {
        stores::workspace_dir(global)?
    };
    match workspace {
        Some(dir) if dir.is_dir() => out += &store_status(Scope::Workspace, &Store::open(&dir)?)?,
        Some(dir) => out += &format!("workspace store: {} (missing)\n", dir.display()),
        None if !global.global => {
            out += "workspace store: none (run `memctl init` in your project's root)\n"
        }
        None => {}
    }
    let global_dir = stores::global_dir()?;
    if global_dir.is_dir() {
        out += &store_status(Scope::Global, &Store::open(&global_dir)?)?;
    } else {
        out += &format!("global store: {} (not created yet)\n", global_dir.display());
    }
    ui::print(&out)?;
    Ok(Exit::Ok)
}

/// `1 file`, `2 files`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn store_status(scope: Scope, store: &Store) -> anyhow::Result<String> {
    let view = StoreView::load(store);
    let catalog = catalog::render(&view.summaries, catalog::Budget::default());
    let mut out = format!(
        "{} store: {}\n  records: {}{}\n  MEMORY.md: {} of {} lines, {} of {} bytes ({:.0}% of the budget){}\n",
        scope.as_str(),
        store.root().display(),
        view.summaries.len(),
        if view.skipped.is_empty() {
            String::new()
        } else {
            format!(
                " ({} skipped; see `memctl check`)",
                count(view.skipped.len(), "file", "files")
            )
        },
        catalog.lines,
        catalog.budget.max_lines,
        catalog.bytes,
        catalog.budget.max_bytes,
        catalog.budget_share().min(1.0) * 100.0,
        if catalog.omitted > 0 {
            format!("; {} left out", count(catalog.omitted, "record", "records"))
        } else {
            String::new()
        },
    );
    out += &index_hook::status_lines(store);
    Ok(out)
}

pub fn completions(args: CompletionsArgs) -> anyhow::Result<Exit> {
    let mut command = Cli::command();
    let mut buffer = Vec::new();
    clap_complete::generate(args.shell, &mut command, "memctl", &mut buffer);
    ui::print(&String::from_utf8_lossy(&buffer))?;
    Ok(Exit::Ok)
}
