//! `memctl edit ID`: `$EDITOR` on a copy; validated, offered back when
//! invalid, saved atomically only when whole (SPEC §9).

use std::fs;
use std::process::Command;

use anyhow::Context;
use jiff::Timestamp;
use mdstore::edit;
use mdstore::txn::EditError;

use crate::cli::{EditArgs, GlobalArgs};
use crate::cmd::read::find_record;
use crate::cmd::remember::print_error;
use crate::failure::{Exit, Failure};
use crate::index_hook;
use crate::ui::Ui;

pub fn run(global: &GlobalArgs, ui: &Ui, args: EditArgs) -> anyhow::Result<Exit> {
    let (scoped, record) = find_record(global, &args.id)?;
    let store = &scoped.store;
    let path = store.root().join(&record.rel_path);
    let original = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let workdir = tempfile::Builder::new()
        .prefix("memctl-edit-")
        .tempdir()
        .context("cannot create a temporary folder for the edit")?;
    let leaf = record.id.rsplit('/').next().unwrap_or(&record.id);
    let scratch = workdir.path().join(format!("{leaf}.md"));
    fs::write(&scratch, &original)
        .with_context(|| format!("cannot write {}", scratch.display()))?;
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_string());

    let edited = loop {
        let status = Command::new("sh")
            .arg("-c")
            .arg(format!("{editor} \"$1\""))
            .arg("sh")
            .arg(&scratch)
            .status()
            .with_context(|| format!("cannot run the editor {editor:?}"))?;
        if !status.success() {
            print_error(
                ui,
                &format!("the editor {editor:?} exited with {status}; nothing was saved"),
                None,
            );
            return Ok(Exit::NotConfirmed);
        }
        let bytes =
            fs::read(&scratch).with_context(|| format!("cannot read {}", scratch.display()))?;
        if bytes == original {
            ui.note(&format!("No changes to {}.", record.id));
            return Ok(Exit::Ok);
        }
        let problems = match String::from_utf8(bytes) {
            Ok(text) => {
                let problems = edit::validate(&record.id, &text);
                if problems.is_empty() {
                    break text;
                }
                problems
            }
            Err(e) => vec![mdstore::Problem::error(
                None,
                format!("not valid UTF-8: {e}"),
            )],
        };
        print_problems(&path, &problems);
        if !ui.interactive {
            return Err(Failure::bad_input(format!(
                "the edit of {} is invalid; nothing was saved",
                record.id
            ))
            .with_hint("fix the problems above and run `memctl edit` again")
            .into());
        }
        if !ui.confirm("The edit is invalid. Edit it again? (no discards it)")? {
            print_error(ui, "the edit was discarded; nothing was saved", None);
            return Ok(Exit::NotConfirmed);
        }
    };

    // Whole seconds, like every timestamp `remember` writes (SPEC §2's example).
    let now =
        Timestamp::from_second(Timestamp::now().as_second()).unwrap_or_else(|_| Timestamp::now());
    let mut txn = index_hook::begin(store)?;
    let saved = txn.save_edit(&record.rel_path, &original, &edited, now);
    let committed = txn.commit(&mut index_hook::IndexSink(store));
    match saved {
        Ok(()) => {}
        Err(EditError::Changed(_)) => {
            let kept = workdir.keep();
            return Err(Failure::new(
                Exit::Conflict,
                format!(
                    "{} changed on disk while you were editing it; nothing was saved",
                    path.display()
                ),
            )
            .with_hint(format!(
                "your edit is kept at {}",
                kept.join(format!("{leaf}.md")).display()
            ))
            .into());
        }
        Err(EditError::Invalid(_, problems)) => {
            print_problems(&path, &problems);
            return Err(Failure::bad_input(format!(
                "the edit of {} is invalid; nothing was saved",
                record.id
            ))
            .into());
        }
        Err(e) => return Err(e.into()),
    }
    ui.note(&format!("Saved {}.", record.id));
    committed.catalog.context(
        "the edit is saved, but MEMORY.md could not be updated; the next memctl write regenerates it",
    )?;
    Ok(Exit::Ok)
}

fn print_problems(path: &std::path::Path, problems: &[mdstore::Problem]) {
    for problem in problems {
        let line = problem.line.map(|l| format!(":{l}")).unwrap_or_default();
        eprintln!("{}{line}: {}", path.display(), problem.message);
    }
}
