//! `memctl list` and `memctl show`.

use mdstore::id::id_key;
use mdstore::store::id_from_rel_path;
use mdstore::view::StoreView;
use mdstore::{Record, RecordType, SkipReason, Skipped, Store, Summary, WalkItem, conflict};
use serde_json::json;

use crate::cli::{GlobalArgs, ListArgs, ShowArgs};
use crate::failure::{Exit, Failure};
use crate::stores::{self, ScopedStore};
use crate::ui::{self, Style, Ui};

pub fn list(global: &GlobalArgs, ui: &Ui, args: ListArgs) -> anyhow::Result<Exit> {
    let stores = stores::read_stores(global)?;
    let wanted: Option<RecordType> = args.record_type.map(Into::into);
    let mut rows: Vec<(&ScopedStore, Summary)> = Vec::new();
    for scoped in &stores {
        let view = StoreView::load(&scoped.store);
        for skipped in &view.skipped {
            ui.warn(&format!(
                "{}: {}",
                scoped.store.root().join(&skipped.rel_path).display(),
                skipped.reason
            ));
        }
        let mut summaries = view.summaries;
        summaries.sort_by(|a, b| a.id.cmp(&b.id));
        rows.extend(
            summaries
                .into_iter()
                .filter(|s| wanted.is_none() || s.record_type() == wanted)
                .map(|s| (scoped, s)),
        );
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

/// One record's header as `list --json` and the MCP server's `list` give it.
pub(crate) fn summary_json(scoped: &ScopedStore, s: &Summary) -> serde_json::Value {
    json!({
        "id": s.id,
        "name": s.meta.name,
        "type": s.record_type().map(RecordType::as_str),
        "scope": scoped.scope.as_str(),
        "path": scoped.store.root().join(&s.rel_path),
        "description": s.description(),
        "updated": s.meta.updated.map(|t| t.to_string()),
        "revision": s.meta.revision.unwrap_or(1),
        "source": s.source().as_str(),
        "tags": s.meta.tags,
    })
}

/// Why a file named like a record is not shown.
const NOT_A_RECORD_HINT: &str = "a file or link by that name is there, but only UTF-8 text files of at most 256 KiB inside the store are records; `memctl check` lists every file that is not one";

fn not_a_record_hint(reason: &SkipReason) -> &'static str {
    match reason {
        SkipReason::Conflicted(_) => {
            "edit the file to keep what each side should, remove the markers, then `git add` it"
        }
        _ => NOT_A_RECORD_HINT,
    }
}

/// The most characters of an argument echoed in an error message.
const MESSAGE_NAME_CHARS: usize = 40;

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

/// Finds a record by id in the stores a read covers, workspace first.
pub fn find_record(global: &GlobalArgs, id: &str) -> anyhow::Result<(ScopedStore, Record)> {
    let stores = stores::read_stores(global)?;
    for scoped in &stores {
        if let Some(entry) = scoped.store.find(id) {
            let record = scoped.store.read_record(&entry.rel_path).map_err(|s| {
                Failure::bad_input(format!(
                    "{}: {}",
                    ui::shown_path(&scoped.store.root().join(&s.rel_path)),
                    s.reason
                ))
                .with_hint(not_a_record_hint(&s.reason))
            })?;
            return Ok((scoped.clone(), record));
        }
    }
    if let Some((scoped, skipped)) = stores
        .iter()
        .find_map(|scoped| skipped_record(&scoped.store, id).map(|skipped| (scoped, skipped)))
    {
        return Err(Failure::bad_input(format!(
            "{}: {}",
            ui::shown_path(&scoped.store.root().join(&skipped.rel_path)),
            skipped.reason
        ))
        .with_hint(not_a_record_hint(&skipped.reason))
        .into());
    }
    Err(Failure::bad_input(format!(
        "no record \"{}\"",
        mdstore::escape::for_message(id, MESSAGE_NAME_CHARS)
    ))
    .with_hint("`memctl list` shows the ids; `memctl search` finds them by content")
    .into())
}

/// The file that would be record `id` but is skipped (too large, a symlink
/// leading outside the store…), so that `show` says why rather than "no
/// record".
fn skipped_record(store: &Store, id: &str) -> Option<Skipped> {
    let key = id_key(id);
    store.walk().find_map(|item| match item {
        WalkItem::Skipped(skipped) if id_key(&id_from_rel_path(&skipped.rel_path)) == key => {
            Some(skipped)
        }
        _ => None,
    })
}

/// A whole record as `show --json` and the MCP server's `show` give it.
pub(crate) fn record_json(scoped: &ScopedStore, record: &Record) -> serde_json::Value {
    let meta = &record.meta;
    json!({
        "id": record.id,
        "name": meta.name,
        "type": meta.record_type.map(RecordType::as_str),
        "scope": scoped.scope.as_str(),
        "path": scoped.store.root().join(&record.rel_path),
        "description": meta.description,
        "body": record.body,
        "created": meta.created.map(|t| t.to_string()),
        "updated": meta.updated.map(|t| t.to_string()),
        "revision": meta.revision.unwrap_or(1),
        "source": record.source().as_str(),
        "expires": meta.expires,
        "tags": meta.tags,
        "merged_from": meta.merged_from,
        "problems": record.problems.iter().map(|p| json!({"line": p.line, "message": p.message})).collect::<Vec<_>>(),
    })
}

pub fn show(global: &GlobalArgs, ui: &Ui, args: ShowArgs) -> anyhow::Result<Exit> {
    if let Some(exit) = show_conflicted(global, ui, &args)? {
        return Ok(exit);
    }
    let (scoped, record) = find_record(global, &args.id)?;
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
fn show_conflicted(global: &GlobalArgs, ui: &Ui, args: &ShowArgs) -> anyhow::Result<Option<Exit>> {
    for scoped in stores::read_stores(global)? {
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
