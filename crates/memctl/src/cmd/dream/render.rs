//! What `dream` shows: the readable plan a person confirms (for each
//! operation what goes, what stays and why, with diffs), and the report of
//! what was done. Text from records and from a model is escaped.

use std::collections::BTreeMap;
use std::fmt::Write;

use mdagent::dream::Applied;
use mdagent::dream::DreamRecord;
use mdagent::dream::plan::{DroppedFact, NewRecord, Operation, Origin, Plan, RecordRef, Scope};
use mdstore::redact::{self, Keep};
use serde_json::json;

use crate::cli::DreamArgs;
use crate::ui::{self, Style, Ui};
use mdagent::dream::Oriented;

type Lookup<'a> = BTreeMap<(Scope, &'a str), &'a DreamRecord>;

fn lookup(records: &[DreamRecord]) -> Lookup<'_> {
    records
        .iter()
        .map(|r| ((r.scope, r.record.id.as_str()), r))
        .collect()
}

/// `scope:id`, escaped.
fn label(r: &RecordRef) -> String {
    format!("{}:{}", r.scope.as_str(), ui::shown(&r.id))
}

/// A record as the diffs show it: its name, type and description, then its body.
fn record_text(record: &DreamRecord) -> String {
    let meta = &record.record.meta;
    format!(
        "name: {}\ntype: {}\ndescription: {}\n\n{}",
        meta.name.as_deref().unwrap_or(&record.record.id),
        meta.record_type.map_or("", |t| t.as_str()),
        meta.description.as_deref().unwrap_or_default(),
        with_newline(&record.record.body)
    )
}

fn new_record_text(new: &NewRecord) -> String {
    format!(
        "name: {}\ntype: {}\ndescription: {}\n\n{}",
        new.name,
        new.record_type,
        new.description,
        with_newline(&new.body)
    )
}

fn with_newline(text: &str) -> String {
    let text = text.trim_start_matches('\n');
    if text.is_empty() || text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

/// One line about a record: `scope:id (revision N, source S): description`.
fn about(r: &RecordRef, records: &Lookup<'_>) -> String {
    match records.get(&(r.scope, r.id.as_str())) {
        Some(record) => format!(
            "{} (revision {}, source {}): {}",
            label(r),
            r.revision,
            record.record.source(),
            ui::shown(
                record
                    .record
                    .meta
                    .description
                    .as_deref()
                    .unwrap_or_default()
            )
        ),
        None => format!("{} (revision {}, not in the store)", label(r), r.revision),
    }
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("     {l}\n")).collect()
}

/// The readable plan.
pub fn plan(ui: &Ui, plan: &Plan, oriented: &Oriented) -> String {
    let records = lookup(&oriented.records);
    let mut out = String::new();
    let origin = match plan.origin {
        Origin::Rules => "the rules",
        Origin::Model => "the model command",
    };
    let _ = writeln!(
        out,
        "{} record{} read; plan from {origin}: {} operation{}",
        oriented.records.len(),
        if oriented.records.len() == 1 { "" } else { "s" },
        plan.operations.len(),
        if plan.operations.len() == 1 { "" } else { "s" }
    );
    for (n, op) in plan.operations.iter().enumerate() {
        out += &operation(ui, n, op, &records);
    }
    if !plan.left_alone.is_empty() {
        out += &ui.paint(Style::Bold, "Found and left alone:");
        out += "\n";
        for alone in &plan.left_alone {
            let names: Vec<String> = alone.records.iter().map(label).collect();
            let _ = writeln!(
                out,
                "  - {} ({}): {}",
                names.join(", "),
                finding(alone.finding),
                ui::shown(&alone.reason)
            );
        }
    }
    if !oriented.broken.is_empty() {
        out += &ui.paint(Style::Bold, "Not read (left alone as they are):");
        out += "\n";
        for broken in &oriented.broken {
            let _ = writeln!(
                out,
                "  - {}:{}: {}",
                broken.scope.as_str(),
                ui::shown_path(&broken.rel_path),
                ui::shown(&broken.reason)
            );
        }
    }
    if plan.operations.is_empty() {
        out += "Nothing to change.\n";
    }
    out
}

fn finding(finding: mdagent::dream::plan::Finding) -> String {
    serde_json::to_value(finding)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn operation(ui: &Ui, n: usize, op: &Operation, records: &Lookup<'_>) -> String {
    let (word, style) = match op {
        Operation::Merge { .. } => ("MERGE", Style::Yellow),
        Operation::Update { .. } => ("UPDATE", Style::Yellow),
        Operation::Retire { .. } => ("RETIRE", Style::Red),
    };
    let mut out = format!(
        "{}. {} ({})\n   why: {}\n",
        n + 1,
        ui.paint(style, word),
        finding(op.finding()),
        ui::shown(op.reason())
    );
    match op {
        Operation::Merge {
            reads, into, drops, ..
        } => {
            out += &merge(ui, reads, into, records);
            out += &dropped(drops);
        }
        Operation::Update {
            reads,
            record,
            drops,
            ..
        } => {
            out += &update(ui, reads, record, records);
            out += &dropped(drops);
        }
        Operation::Retire {
            reads,
            superseded_by,
            ..
        } => out += &retire(ui, reads, superseded_by.as_ref(), records),
    }
    out
}

fn merge(ui: &Ui, reads: &[RecordRef], into: &NewRecord, records: &Lookup<'_>) -> String {
    let mut out = String::new();
    let scope = reads.first().map_or(Scope::Workspace, |r| r.scope);
    let merged = format!("{}:{}", scope.as_str(), ui::shown(&into.name));
    let kept = reads.iter().find(|r| same_id(&r.id, &into.name));
    for r in reads.iter().filter(|r| Some(*r) != kept) {
        let _ = writeln!(out, "   goes:  {}", about(r, records));
    }
    let _ = match kept {
        Some(r) => writeln!(
            out,
            "   stays: {}, rewritten as the merged record",
            label(r)
        ),
        None => writeln!(
            out,
            "   stays: {merged} (new), merged from the records above"
        ),
    };
    let new_text = new_record_text(into);
    for r in reads {
        if let Some(record) = records.get(&(r.scope, r.id.as_str())) {
            let to = format!("{merged} (merged)");
            out += &indent(&ui::diff(
                ui,
                &record_text(record),
                &new_text,
                &label(r),
                &to,
            ));
        }
    }
    out
}

fn update(ui: &Ui, reads: &RecordRef, new: &NewRecord, records: &Lookup<'_>) -> String {
    let mut out = format!(
        "   stays: {}, rewritten (revision {} → {})\n",
        about(reads, records),
        reads.revision,
        reads.revision.saturating_add(1)
    );
    if let Some(record) = records.get(&(reads.scope, reads.id.as_str())) {
        let to = format!("{} (updated)", label(reads));
        out += &indent(&ui::diff(
            ui,
            &record_text(record),
            &new_record_text(new),
            &label(reads),
            &to,
        ));
    }
    out
}

fn retire(ui: &Ui, reads: &RecordRef, by: Option<&RecordRef>, records: &Lookup<'_>) -> String {
    let mut out = format!(
        "   goes:  {} (a tombstone keeps it from coming back)\n",
        about(reads, records)
    );
    if let Some(by) = by {
        let _ = writeln!(out, "   stays: {}", about(by, records));
    }
    let Some(old) = records.get(&(reads.scope, reads.id.as_str())) else {
        return out;
    };
    // Against its successor when it has one, else the record as it goes.
    let (new, to) = match by {
        Some(by) => match records.get(&(by.scope, by.id.as_str())) {
            Some(new) => (record_text(new), label(by)),
            None => return out,
        },
        None => (String::new(), "(retired)".to_string()),
    };
    out += &indent(&ui::diff(ui, &record_text(old), &new, &label(reads), &to));
    out
}

fn same_id(id: &str, name: &str) -> bool {
    mdstore::id::normalize_name(name)
        .is_ok_and(|n| mdstore::id::id_key(&n) == mdstore::id::id_key(id))
}

fn dropped(drops: &[DroppedFact]) -> String {
    drops
        .iter()
        .map(|d| {
            format!(
                "   drops: {:?} from {}: {}\n",
                ui::shown(&d.fact),
                ui::shown(&d.id),
                ui::shown(&d.why)
            )
        })
        .collect()
}

/// The report at the end: what was merged, retired and updated, and what
/// was found but left alone.
pub fn report(
    args: &DreamArgs,
    plan: &Plan,
    applied: Option<&Applied>,
    oriented: &Oriented,
) -> anyhow::Result<()> {
    let nothing = Applied {
        merged: Vec::new(),
        updated: Vec::new(),
        retired: Vec::new(),
    };
    let planned = applied.is_some();
    let applied = applied.unwrap_or(&nothing);
    if args.json {
        let broken: Vec<serde_json::Value> = oriented
            .broken
            .iter()
            .map(|b| json!({"scope": b.scope, "path": b.rel_path, "reason": b.reason}))
            .collect();
        let merged: Vec<serde_json::Value> = applied
            .merged
            .iter()
            .map(|(from, into)| json!({"from": from, "into": into}))
            .collect();
        return print_json(&json!({
            "plan": plan,
            "merged": merged,
            "updated": applied.updated,
            "retired": applied.retired,
            "left_alone": plan.left_alone,
            "broken": broken,
        }));
    }
    let mut out = String::new();
    for (from, into) in &applied.merged {
        let from: Vec<String> = from.iter().map(label).collect();
        let _ = writeln!(
            out,
            "Merged {} into {} (revision {}).",
            from.join(", "),
            label(into),
            into.revision
        );
    }
    for r in &applied.updated {
        let _ = writeln!(out, "Updated {} (revision {}).", label(r), r.revision);
    }
    for r in &applied.retired {
        let _ = writeln!(
            out,
            "Retired {}; a tombstone keeps it from coming back.",
            label(r)
        );
    }
    let found = plan.left_alone.len() + oriented.broken.len();
    if planned
        && applied.merged.is_empty()
        && applied.updated.is_empty()
        && applied.retired.is_empty()
    {
        out += "Nothing was changed.\n";
    }
    if found > 0 {
        let _ = writeln!(out, "Found and left alone: {found} (listed above).");
    }
    ui::print(&redact::lines(&out, Keep::Indent))?;
    Ok(())
}

/// Prints `value` as JSON, secrets hidden.
pub fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    let mut value = serde_json::to_value(value)?;
    redact::json_strings(&mut value);
    ui::print_json(&value)
}
