//! `memctl list`: every record's header, aligned, or as JSON.

use mdagent::Config;
use mdagent::records::{self, summary_json};
use mdagent::stores::{self, ScopedStore};
use mdstore::{RecordType, Summary};

use crate::cli::ListArgs;
use crate::failure::{Exit, Failure};
use crate::ui::{self, Style, Ui};

pub fn run(config: &Config, ui: &Ui, args: ListArgs) -> anyhow::Result<Exit> {
    let stores = stores::read_stores(config)?;
    // As search and check: no store at all is bad usage (SPEC §10), not an
    // empty list a script would take for an empty store.
    if stores.is_empty() {
        return Err(Failure::bad_input("no store to list here").with_hint(
            "run `memctl init` in your project's root, pass --store DIR, or create the global store with `memctl init --global`",
        ).into());
    }
    let wanted: Option<RecordType> = args.record_type.map(Into::into);
    let mut rows: Vec<(&ScopedStore, Summary)> = Vec::new();
    for scoped in &stores {
        let (summaries, skipped) = records::list(&scoped.store, wanted);
        for skipped in &skipped {
            ui.warn(&format!(
                "{}: {}",
                scoped.store.root().join(&skipped.rel_path).display(),
                skipped.reason
            ));
        }
        rows.extend(summaries.into_iter().map(|s| (scoped, s)));
    }
    if args.json {
        let items: Vec<_> = rows
            .iter()
            .map(|(scoped, s)| summary_json(scoped, s))
            .collect();
        ui::print_json(&items)?;
        return Ok(Exit::Ok);
    }
    ui::print(&list_lines(ui, &rows, stores.len() > 1))?;
    ui.note(&match rows.len() {
        1 => "1 record".to_string(),
        n => format!("{n} records"),
    });
    Ok(Exit::Ok)
}

/// The minimum room a description keeps on a narrow terminal.
const MIN_DESCRIPTION_COLUMNS: usize = 20;

/// One line a record, `[scope] type id description`, in aligned columns
/// (display width, so a Korean id lines up) and within the output width:
/// a long description is cut with `…` (`--json` keeps it whole).
fn list_lines(ui: &Ui, rows: &[(&ScopedStore, Summary)], label_scopes: bool) -> String {
    let ids: Vec<_> = rows.iter().map(|(_, s)| ui::shown(&s.id)).collect();
    let id_columns = ids.iter().map(|id| ui::width(id)).max().unwrap_or(0);
    let mut out = String::new();
    for ((scoped, s), id) in rows.iter().zip(&ids) {
        let mut line = String::new();
        if label_scopes {
            line += &ui::pad(scoped.scope.as_str(), 10);
        }
        line += &ui::pad(s.record_type().map_or("-", RecordType::as_str), 11);
        let room = ui
            .width
            .saturating_sub(ui::width(&line) + id_columns + 2)
            .max(MIN_DESCRIPTION_COLUMNS);
        let padding = " ".repeat(id_columns - ui::width(id) + 2);
        let description = ui::shown(s.description());
        line += &format!(
            "{}{padding}{}",
            ui.paint(Style::Bold, id),
            ui::fit(&description, room)
        );
        out += line.trim_end();
        out.push('\n');
    }
    out
}
