//! What `remember` shows: each plan before confirmation, each outcome after.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mdagent::remember::{SECRET_HINT, refusal_message};
use mdagent::stores::Scope;
use mdstore::write::{Operation, Plan, Refusal};
use serde_json::json;

use mdagent::remember::{Done, Item, Outcome};

use crate::failure::{Exit, exit_of};
use crate::ui::{self, Style, Ui};

/// What the person can do about a refusal (SPEC §10: a tombstone, a more
/// trusted record and a revision mismatch are conflicts, which
/// `mdagent::explain::refusal_kind` says).
fn refusal_hint(refusal: &Refusal, id: &str) -> String {
    match refusal {
        Refusal::Secret(_) => SECRET_HINT.to_string(),
        Refusal::Temporary(_) => "say it without the temporary part (only an interactive remember, without --yes or --from-json, saves it after a warning)".to_string(),
        Refusal::Tombstone(_) => "pass --force to remember it again".to_string(),
        Refusal::LowerTrust { .. } => {
            "pass --force if the user really means to replace it, or --source user".to_string()
        }
        Refusal::RevisionMismatch { .. } => {
            format!("read it again with `memctl show {id}` and retry")
        }
    }
}

/// Why a candidate was not written, as the CLI says it (before hiding a
/// secret name): the message and what to do, or `None` when it went well.
fn failure_text(item: &Item) -> Option<(String, Option<String>)> {
    let id = item.id();
    match item.outcome.as_ref()? {
        Outcome::Refused(refusal) => Some((
            refusal_message(refusal, id),
            Some(refusal_hint(refusal, id)),
        )),
        Outcome::BadInput(message) => Some((message.clone(), None)),
        Outcome::Conflict => Some((
            format!(
                "{id} changed while this write was being confirmed; nothing was written for it"
            ),
            Some("run the command again".to_string()),
        )),
        Outcome::Failed(message) => Some((message.clone(), None)),
        _ => None,
    }
}

/// SPEC §10's code for one candidate's outcome.
fn outcome_exit(outcome: &Outcome) -> Exit {
    outcome.kind().map_or(Exit::Ok, exit_of)
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

/// Each candidate's row, as `--json` prints them.
pub fn json_rows(done: &Done) -> Vec<serde_json::Value> {
    done.items
        .iter()
        .map(|item| json_row(item, &done.roots))
        .collect()
}

pub fn report(ui: &Ui, done: &Done, batch: &super::Batch) -> anyhow::Result<()> {
    let print_catalog_failures = || {
        for failure in &done.catalog_failures {
            ui.error(failure,
                Some(
                    "the records are saved and searchable; the next memctl write to this store regenerates MEMORY.md",
                ),
            );
        }
    };
    if batch.json {
        ui::print_json(&json_rows(done))?;
        print_catalog_failures();
        return Ok(());
    }
    for item in &done.items {
        let id = item.hide_name(item.id());
        if let Some((message, hint)) = failure_text(item) {
            let hint = hint.map(|h| item.hide_name(&h));
            ui.error(&item.hide_name(&message), hint.as_deref());
            continue;
        }
        match item.outcome.as_ref() {
            Some(Outcome::Saved { revision }) => {
                ui.note(&format!(
                    "Saved {id} (revision {revision}) in the {} store.",
                    item.scope.as_str()
                ));
            }
            Some(Outcome::DryRun) if !batch.plan_only => {
                ui.note(&format!("Dry run: {id} was not written."));
            }
            Some(Outcome::Dropped(reason)) => ui.note(&item.hide_name(reason)),
            _ => {}
        }
    }
    print_catalog_failures();
    if done
        .items
        .iter()
        .any(|i| matches!(i.outcome, Some(Outcome::NotConfirmed)))
    {
        ui.not_confirmed(
            "not saved",
            "pass --yes to save without asking, or --dry-run to only see the plan",
        );
    }
    Ok(())
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
        Some(Outcome::Dropped(message)) => json!({"reason": message}),
        Some(
            Outcome::Refused(_) | Outcome::BadInput(_) | Outcome::Conflict | Outcome::Failed(_),
        ) => json!({"reason": failure_text(item).map(|(message, _)| message)}),
        Some(Outcome::NotConfirmed | Outcome::DryRun) | None => planned(plan),
    };
    row["status"] = json!(item.status_name());
    row["exit_code"] = json!(item.outcome.as_ref().map_or(0, |o| outcome_exit(o) as u8));
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

fn operation_name(plan: Option<&Plan>) -> &'static str {
    match plan.map(|p| &p.operation) {
        Some(Operation::Add) => "add",
        Some(Operation::Update { .. }) => "update",
        Some(Operation::Noop { .. }) => "noop",
        Some(Operation::Refused(_)) | None => "refused",
    }
}
