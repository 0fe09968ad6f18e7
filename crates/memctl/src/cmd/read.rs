//! `memctl list` and `memctl show`.

use mdagent::Config;
use mdagent::records::{self, record_json, summary_json};
use mdagent::stores::{self, ScopedStore};
use mdstore::{RecordType, SkipReason, Skipped, Summary, conflict};
use serde_json::json;

use crate::cli::{ListArgs, ShowArgs};
use crate::failure::{Exit, Failure};
use crate::ui::{self, Style, Ui};

pub fn list(config: &Config, ui: &Ui, args: ListArgs) -> anyhow::Result<Exit> {
    let stores = stores::read_stores(config)?;
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
    if stores.is_empty() {
        ui.note("No store here: run `memctl init` to create one, or use --store DIR.");
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

pub fn show(config: &Config, ui: &Ui, args: ShowArgs) -> anyhow::Result<Exit> {
    if let Some(exit) = show_conflicted(config, ui, &args)? {
        return Ok(exit);
    }
    let (scoped, record) = records::find(config, &args.id)?;
    let path = scoped.store.root().join(&record.rel_path);
    if args.json {
        ui::print_json(&record_json(&scoped, &record))?;
        return Ok(Exit::Ok);
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Failure::new(Exit::Internal, format!("{}: {e}", path.display())))?;
    ui.note(&ui.paint_err(
        Style::Dim,
        &format!(
            "# {} ({} store)",
            ui::shown_path(&path),
            scoped.scope.as_str()
        ),
    ));
    // The file as it is, but never a raw terminal escape (SPEC §2).
    ui::print(&ui::shown_file(&text))?;
    Ok(Exit::Ok)
}

/// `show` of a record a merge left conflict markers in: both versions, so
/// that the person resolving it sees what each side says. `None` when `id`
/// is not such a file.
fn show_conflicted(config: &Config, ui: &Ui, args: &ShowArgs) -> anyhow::Result<Option<Exit>> {
    for scoped in stores::read_stores(config)? {
        let Some(entry) = scoped.store.find(&args.id) else {
            continue;
        };
        let Err(Skipped {
            reason: SkipReason::Conflicted(lines),
            ..
        }) = scoped.store.read_record(&entry.rel_path)
        else {
            return Ok(None);
        };
        let path = scoped.store.root().join(&entry.rel_path);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Failure::new(Exit::Internal, format!("{}: {e}", path.display())))?;
        let Some((ours, theirs)) = conflict::sides(&text) else {
            return Ok(None);
        };
        if args.json {
            ui::print_json(&json!({
                "id": entry.id,
                "scope": scoped.scope.as_str(),
                "path": path,
                "conflict": {
                    "marker_lines": lines,
                    "ours": {"label": ours.label, "text": ours.text},
                    "theirs": {"label": theirs.label, "text": theirs.text},
                },
            }))?;
            return Ok(Some(Exit::Ok));
        }
        ui.warn(&format!(
            "{}: {}",
            ui::shown_path(&path),
            SkipReason::Conflicted(lines)
        ));
        let mut out = String::new();
        for (side, version) in [("ours", &ours), ("theirs", &theirs)] {
            out += &ui.paint(
                Style::Dim,
                &format!("# {side} ({})\n", ui::shown(&version.label)),
            );
            out += &ui::shown_file(&version.text);
            if !version.text.ends_with('\n') {
                out.push('\n');
            }
        }
        ui::print(&out)?;
        return Ok(Some(Exit::Ok));
    }
    Ok(None)
}
