//! What `remember` shows: each plan before confirmation, each outcome after.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mdagent::remember::{SECRET_HINT, refusal_message};
use mdagent::stores::Scope;
use mdstore::write::{Operation, Plan, Refusal};
use serde_json::json;

use super::{Item, Outcome};
use crate::failure::Exit;
use crate::ui::{self, Style, Ui};

/// A refusal as the CLI reports it: the exit code (SPEC §10: a tombstone,
/// a more trusted record and a revision mismatch are conflicts), the
/// message, and what the person can do.
pub fn refused(refusal: &Refusal, id: &str) -> Outcome {
    let (exit, hint) = match refusal {
        Refusal::Secret(_) => (Exit::BadInput, SECRET_HINT.to_string()),
        Refusal::Temporary(_) => (
            Exit::BadInput,
            "say it without the temporary part (only an interactive remember, without --yes or --from-json, saves it after a warning)".to_string(),
        ),
        Refusal::Tombstone(_) => (Exit::Conflict, "pass --force to remember it again".to_string()),
        Refusal::LowerTrust { .. } => (
            Exit::Conflict,
            "pass --force if the user really means to replace it, or --source user".to_string(),
        ),
        Refusal::RevisionMismatch { .. } => (
            Exit::Conflict,
            format!("read it again with `memctl show {id}` and retry"),
        ),
    };
    Outcome::Refused {
        exit,
        message: refusal_message(refusal, id),
        hint: Some(hint),
    }
}

/// Shows `item`'s plan (when `plan_wanted`) and, always, its warnings.
pub fn show_plan(ui: &Ui, item: &Item, root: &Path, plan_wanted: bool) {
    let Some(plan) = &item.plan else { return };
    if plan_wanted {
        let _ = ui::print(&item.hide_name(&plan_text(ui, item, plan, root)));
    }
    for warning in item.shown_warnings() {
        ui.warn(&warning);
    }
}

/// The plan as a person reads it: the operation, then the new text or the diff.
fn plan_text(ui: &Ui, item: &Item, plan: &Plan, root: &Path) -> String {
    let path = root.join(&plan.rel_path);
    let label = |op: &str, style| ui.paint(style, op);
    let mut out = String::new();
    match &plan.operation {
        Operation::Add => {
            out += &format!(
                "{} {} ({} store: {})\n",
                label("ADD", Style::Green),
                plan.id,
                item.scope.as_str(),
                path.display()
            );
            out += plan.new_text.as_deref().unwrap_or_default();
        }
        Operation::Update { from_revision } => {
            out += &format!(
                "{} {} revision {} → {} ({} store: {})\n",
                label("UPDATE", Style::Yellow),
                plan.id,
                from_revision,
                from_revision.saturating_add(1),
                item.scope.as_str(),
                path.display()
            );
            out += &ui::diff(
                ui,
                plan.old_text.as_deref().unwrap_or_default(),
                plan.new_text.as_deref().unwrap_or_default(),
                &format!("{} (revision {from_revision})", plan.id),
                &format!("{} (revision {})", plan.id, from_revision.saturating_add(1)),
            );
        }
        Operation::Noop { existing } => {
            let whom = if *existing == plan.id {
                "this record".to_string()
            } else {
                existing.clone()
            };
            out += &format!(
                "{} {}: the same content is already stored as {whom}; nothing to write\n",
                label("NOOP", Style::Dim),
                plan.id
            );
        }
        Operation::Refused(_) => {
            out += &format!("{} {}\n", label("REFUSED", Style::Red), plan.id);
        }
    }
    out
}

/// The exit code of a batch: that of the first candidate that did not go
/// well, else an internal error when `MEMORY.md` could not be written.
pub fn exit_of(items: &[Item], catalog_failures: &[String]) -> Exit {
    items
        .iter()
        .filter_map(|i| i.outcome.as_ref())
        .map(Outcome::exit)
        .find(|e| *e != Exit::Ok)
        .unwrap_or(if catalog_failures.is_empty() {
            Exit::Ok
        } else {
            Exit::Internal
        })
}

/// Each candidate's row, as `--json` prints them.
pub fn json_rows(items: &[Item], roots: &BTreeMap<Scope, PathBuf>) -> Vec<serde_json::Value> {
    items.iter().map(|item| json_row(item, roots)).collect()
}

pub fn report(
    ui: &Ui,
    items: &[Item],
    roots: &BTreeMap<Scope, PathBuf>,
    batch: &super::Batch,
    catalog_failures: &[String],
) -> anyhow::Result<Exit> {
    let json = batch.json;
    let exit = exit_of(items, catalog_failures);
    let print_catalog_failures = || {
        for failure in catalog_failures {
            ui.error(failure,
                Some(
                    "the records are saved and searchable; the next memctl write to this store regenerates MEMORY.md",
                ),
            );
        }
    };
    if json {
        let rows: Vec<serde_json::Value> = items.iter().map(|item| json_row(item, roots)).collect();
        ui::print_json(&rows)?;
        print_catalog_failures();
        return Ok(exit);
    }
    for item in items {
        let id = item.hide_name(
            item.plan
                .as_ref()
                .map_or(item.candidate.name.as_str(), |p| p.id.as_str()),
        );
        let hide = |text: &str| item.hide_name(text);
        let hint = |hint: &Option<String>| hint.as_deref().map(hide);
        match item.outcome.as_ref() {
            Some(Outcome::Saved { revision }) => {
                ui.note(&format!(
                    "Saved {id} (revision {revision}) in the {} store.",
                    item.scope.as_str()
                ));
            }
            Some(Outcome::Refused {
                message, hint: h, ..
            }) => {
                ui.error(&hide(message), hint(h).as_deref());
            }
            Some(Outcome::Conflict(message)) => {
                ui.error(&hide(message), Some("run the command again"));
            }
            Some(Outcome::Failed(message)) => ui.error(&hide(message), None),
            Some(Outcome::NotConfirmed) => {}
            Some(Outcome::DryRun) if !batch.plan_only => {
                ui.note(&format!("Dry run: {id} was not written."));
            }
            Some(Outcome::DryRun) => {}
            Some(Outcome::Dropped(reason)) => ui.note(&hide(reason)),
            Some(Outcome::Noop { .. }) | None => {}
        }
    }
    print_catalog_failures();
    if items
        .iter()
        .any(|i| matches!(i.outcome, Some(Outcome::NotConfirmed)))
    {
        ui.not_confirmed(
            "not saved",
            "pass --yes to save without asking, or --dry-run to only see the plan",
        );
    }
    Ok(exit)
}

/// One candidate's outcome as `--json` reports it.
fn json_row(item: &Item, roots: &BTreeMap<Scope, PathBuf>) -> serde_json::Value {
    let plan = item.plan.as_ref();
    let mut row = json!({
        "name": item.candidate.name,
        "id": plan.map(|p| p.id.clone()),
        "scope": item.scope.as_str(),
        "path": match item.outcome.as_ref() {
            Some(Outcome::Noop { rel_path, .. }) => roots.get(&item.scope).map(|r| r.join(rel_path)),
            _ => plan.and_then(|p| Some(roots.get(&item.scope)?.join(&p.rel_path))),
        },
        "warnings": item.shown_warnings(),
    });
    let extra = match item.outcome.as_ref() {
        Some(Outcome::Saved { revision }) => {
            json!({"revision": revision, "operation": operation_name(plan)})
        }
        Some(Outcome::Noop { existing, .. }) => json!({"existing": existing}),
        Some(
            Outcome::Refused { message, .. }
            | Outcome::Conflict(message)
            | Outcome::Failed(message)
            | Outcome::Dropped(message),
        ) => json!({"reason": message}),
        Some(Outcome::NotConfirmed | Outcome::DryRun) | None => planned(plan),
    };
    row["status"] = json!(status_name(item));
    row["exit_code"] = json!(item.outcome.as_ref().map_or(0, |o| o.exit() as u8));
    if let (Some(row), Some(extra)) = (row.as_object_mut(), extra.as_object()) {
        row.extend(extra.clone());
    }
    if item.name_note().is_some() {
        hide_strings(&mut row, &|text| item.hide_name(text));
    }
    row
}

/// What a plan not yet written would do: its operation and, to judge it
/// by, the record it would write (`text`) or the change to the one there
/// (`diff`, unified, without colour).
fn planned(plan: Option<&Plan>) -> serde_json::Value {
    let mut row = json!({"operation": operation_name(plan)});
    let Some(plan) = plan else {
        return row;
    };
    match plan.operation {
        Operation::Add => row["text"] = json!(plan.new_text),
        Operation::Update { from_revision } => {
            let old = plan.old_text.as_deref().unwrap_or_default();
            let new = plan.new_text.as_deref().unwrap_or_default();
            row["diff"] = json!(
                similar::TextDiff::from_lines(old, new)
                    .unified_diff()
                    .header(
                        &format!("{} (revision {from_revision})", plan.id),
                        &format!("{} (revision {})", plan.id, from_revision.saturating_add(1)),
                    )
                    .to_string()
            );
            row["record"] = json!(plan.id);
        }
        Operation::Noop { .. } | Operation::Refused(_) => {}
    }
    row
}

/// Every string in `value` passed through `hide`.
fn hide_strings(value: &mut serde_json::Value, hide: &dyn Fn(&str) -> String) {
    match value {
        serde_json::Value::String(text) => *text = hide(text),
        serde_json::Value::Array(values) => values.iter_mut().for_each(|v| hide_strings(v, hide)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|v| hide_strings(v, hide)),
        _ => {}
    }
}

/// A candidate's outcome in one word, as `--json` reports it.
pub fn status_name(item: &Item) -> &'static str {
    match item.outcome.as_ref() {
        Some(Outcome::Saved { .. }) => "saved",
        Some(Outcome::Noop { .. }) => "noop",
        Some(Outcome::Refused { .. }) => "refused",
        Some(Outcome::Conflict(_)) => "conflict",
        Some(Outcome::Failed(_)) => "failed",
        Some(Outcome::NotConfirmed) => "not-confirmed",
        Some(Outcome::Dropped(_)) => "dropped",
        Some(Outcome::DryRun) | None => "dry-run",
    }
}

fn operation_name(plan: Option<&Plan>) -> &'static str {
    match plan.map(|p| &p.operation) {
        Some(Operation::Add) => "add",
        Some(Operation::Update { .. }) => "update",
        Some(Operation::Noop { .. }) => "noop",
        Some(Operation::Refused(_)) | None => "refused",
    }
}
