//! `memctl show ID`: one record's file as it is, or as JSON; both sides of
//! one a merge left conflict markers in.

use mdagent::Config;
use mdagent::records::{self, record_json};
use mdagent::stores;
use mdstore::{SkipReason, Skipped, conflict};
use serde_json::json;

use crate::cli::ShowArgs;
use crate::failure::{Exit, Failure};
use crate::ui::{self, Style, Ui};
use mdagent::Kind;

pub fn run(config: &Config, ui: &Ui, args: ShowArgs) -> anyhow::Result<Exit> {
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
        .map_err(|e| Failure::new(Kind::Internal, format!("{}: {e}", path.display())))?;
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
            .map_err(|e| Failure::new(Kind::Internal, format!("{}: {e}", path.display())))?;
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
