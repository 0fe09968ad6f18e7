//! `memctl edit ID`: `$EDITOR` on a copy; validated, offered back when
//! invalid, saved atomically only when whole (SPEC §9).

use std::fs;
use std::process::Command;

use anyhow::Context;
use jiff::Timestamp;
use mdstore::lock::{self, StoreLock};
use mdstore::{atomic, catalog, edit};

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
        for problem in &problems {
            let line = problem.line.map(|l| format!(":{l}")).unwrap_or_default();
            eprintln!("{}{line}: {}", path.display(), problem.message);
        }
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

    let _lock = StoreLock::acquire(store.root(), lock::timeout_from_env())
        .map_err(|e| Failure::new(Exit::Conflict, format!("{e}; nothing was saved")))?;
    let now_on_disk = fs::read(&path).ok();
    if now_on_disk.as_deref() != Some(original.as_slice()) {
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
    // Whole seconds, like every timestamp `remember` writes (SPEC §2's example).
    let now =
        Timestamp::from_second(Timestamp::now().as_second()).unwrap_or_else(|_| Timestamp::now());
    let text = edit::finish(&edited, record.meta.revision.unwrap_or(1), now);
    mdstore::write::clean_temp_files(store);
    atomic::write_file(&path, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    let view = index_hook::view_for_write(store);
    let catalog = catalog::write(store, &view.summaries).context("cannot regenerate MEMORY.md")?;
    super::admin::note_preserved(ui, &catalog);
    index_hook::after_write(store, std::slice::from_ref(&record.rel_path));
    ui.note(&format!("Saved {}.", record.id));
    Ok(Exit::Ok)
}
