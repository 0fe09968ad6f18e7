//! `memctl edit ID`: `$EDITOR` on a copy; validated, offered back when
//! invalid, saved atomically only when whole (SPEC §9).

use std::fs;
use std::path::Path;
use std::process::Command;

use anyhow::Context;
use mdagent::Config;
use mdagent::edit::{self, EditError, EditSaved};

use crate::cli::EditArgs;
use crate::failure::{Exit, Failure};
use crate::ui::{self, Ui};

pub fn run(config: &Config, ui: &Ui, args: EditArgs) -> anyhow::Result<Exit> {
    let (scoped, record) = mdagent::records::find(config, &args.id)?;
    editor_or_terminal(config)?;
    let store = &scoped.store;
    let path = store.root().join(&record.rel_path);
    let original = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    // The copy may hold what the person is typing (a secret they will be
    // told to remove): readable by them alone, also when it is kept.
    let mut builder = tempfile::Builder::new();
    builder.prefix("memctl-edit-");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700));
    let workdir = builder
        .tempdir()
        .context("cannot create a temporary folder for the edit")?;
    let leaf = record.id.rsplit('/').next().unwrap_or(&record.id);
    let scratch = workdir.path().join(format!("{leaf}.md"));
    fs::write(&scratch, &original)
        .with_context(|| format!("cannot write {}", scratch.display()))?;
    let session = Session {
        id: &record.id,
        path: &path,
        scratch: &scratch,
        original: &original,
    };
    let edited = match session.edit_until_valid(config, ui)? {
        Ok(text) => text,
        Err(exit) => return Ok(exit),
    };

    let lock_timeout = config.lock_timeout()?;
    let EditSaved {
        recovered,
        saved,
        committed,
    } = edit::save(
        config,
        store,
        &record.rel_path,
        &original,
        &edited,
        lock_timeout,
    )?;
    ui.warn_repaired(store.root(), &recovered);
    let revision = saved.as_ref().map_or(0, |r| *r);
    if let Ok(Some(catalog)) = &committed.catalog {
        ui.note_catalog(catalog);
    }
    match saved {
        Ok(_) => {}
        Err(e @ EditError::Changed(_)) => {
            let kept = workdir.keep();
            return Err(Failure::new(
                mdagent::explain::edit_kind(&e),
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
            return Err(session.invalid().into());
        }
        Err(e) => return Err(e.into()),
    }
    ui.note(&format!("Saved {} (revision {revision}).", record.id));
    committed.catalog.context(
        "the edit is saved, but MEMORY.md could not be updated; the next memctl write regenerates it",
    )?;
    mdagent::git::commit::after_write(
        config,
        ui,
        store.root(),
        args.commit,
        &mdagent::git::commit::message("edit", std::slice::from_ref(&record.id)),
        &committed.changed,
    );
    Ok(Exit::Ok)
}

/// One record being edited on a scratch copy.
struct Session<'a> {
    id: &'a str,
    path: &'a Path,
    scratch: &'a Path,
    original: &'a [u8],
}

/// With no editor set and no terminal, `vi` would draw its screen into a
/// pipe and fail: refused before anything starts, as `remember` refuses to
/// ask without a terminal (SPEC §9: exit 2).
pub fn editor_or_terminal(config: &Config) -> Result<(), Failure> {
    use std::io::IsTerminal;
    if config.editor().is_some()
        || (std::io::stdin().is_terminal() && std::io::stdout().is_terminal())
    {
        return Ok(());
    }
    Err(Failure::bad_input(
        "no editor: $VISUAL and $EDITOR are not set, and there is no terminal to run vi in; nothing was changed",
    )
    .with_hint("set EDITOR to a command that edits the file named after it (a script may use EDITOR='sed -i s/old/new/'), or run this in a terminal"))
}

/// Runs `$VISUAL`, else `$EDITOR`, else `vi` on `file` (through `sh`, as
/// git does, so that an editor set as `code --wait` works); returns the
/// editor's name and how it exited.
pub fn run_editor(
    config: &Config,
    file: &Path,
) -> anyhow::Result<(String, std::process::ExitStatus)> {
    let editor = config.editor().unwrap_or("vi").to_string();
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(file)
        .status()
        .with_context(|| format!("cannot run the editor {editor:?}"))?;
    Ok((editor, status))
}

impl Session<'_> {
    /// Runs the editor until the copy is a valid record (`Ok(text)`), or the
    /// person gives up or changes nothing (`Err(exit)`).
    fn edit_until_valid(&self, config: &Config, ui: &Ui) -> anyhow::Result<Result<String, Exit>> {
        loop {
            let (editor, status) = run_editor(config, self.scratch)?;
            if !status.success() {
                ui.error(
                    &format!("the editor {editor:?} exited with {status}; nothing was saved"),
                    None,
                );
                return Ok(Err(Exit::NotConfirmed));
            }
            let bytes = fs::read(self.scratch)
                .with_context(|| format!("cannot read {}", self.scratch.display()))?;
            if bytes == self.original {
                ui.note(&format!("No changes to {}.", self.id));
                return Ok(Err(Exit::Ok));
            }
            let problems = match edit::validate(self.id, self.original, bytes) {
                Ok(text) => return Ok(Ok(text)),
                Err(problems) => problems,
            };
            print_problems(self.path, &problems);
            if !ui.interactive {
                return Err(self.invalid().into());
            }
            if !ui.confirm("The edit is invalid. Edit it again? (no discards it)")? {
                ui.error("the edit was discarded; nothing was saved", None);
                return Ok(Err(Exit::NotConfirmed));
            }
        }
    }

    fn invalid(&self) -> Failure {
        Failure::bad_input(format!(
            "the edit of {} is invalid; nothing was saved",
            self.id
        ))
        .with_hint("fix the problems above and run `memctl edit` again")
    }
}

fn print_problems(path: &Path, problems: &[edit::Problem]) {
    for problem in problems {
        let line = problem.line.map(|l| format!(":{l}")).unwrap_or_default();
        eprintln!(
            "{}{line}: {}",
            ui::shown_path(path),
            ui::shown(&problem.message)
        );
    }
}
