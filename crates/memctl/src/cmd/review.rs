//! `memctl review`: the candidates found after sessions (`extract
//! --pending`, the SessionEnd job) wait in the cache folder
//! (`mdagent::pending`); each is shown with its classification and diff,
//! as `remember` shows a plan, and accepted, edited or discarded. An
//! accepted one goes through `remember`'s transaction with every guard, as
//! `inferred`: the store may have changed since it was found, so it is
//! classified again now.

use mdagent::Config;
use mdagent::pending::{self, Entry};
use mdagent::remember::{Parsed, Unreadable, label_candidate};
use mdagent::stores::{self, Scope, WriteTarget};
use mdstore::Source;
use mdstore::write::candidate_from_json;

use crate::cli::ReviewArgs;
use crate::cmd::remember::{self, Batch};
use crate::failure::{Exit, Failure};
use crate::ui::{self, Ui};

/// What was answered for one candidate on a terminal.
enum Choice {
    Accept,
    Discard,
    Edit,
    Quit,
}

pub fn run(config: &Config, ui: &Ui, args: ReviewArgs) -> anyhow::Result<Exit> {
    let scope = stores::default_scope(config);
    let target = stores::write_target(config, scope)?;
    super::extract::warn_of_store_settings(ui, Some(&target));
    let root = match &target {
        WriteTarget::Existing(scoped) => scoped.store.root().to_path_buf(),
        WriteTarget::Missing { dir, .. } => dir.clone(),
    };
    let entries = pending::load(&root)?;
    if entries.is_empty() {
        ui.note("No candidates wait for review.");
        if args.json {
            ui::print_json(&serde_json::json!([]))?;
        }
        return Ok(Exit::Ok);
    }
    if args.yes || args.json {
        return review_all(config, ui, &args, scope, &root, &entries);
    }
    if !ui.interactive {
        return Err(Failure::new(
            Exit::NotConfirmed,
            format!(
                "{} wait, and there is no terminal to review them on",
                ui::count(entries.len(), "candidate", "candidates")
            ),
        )
        .with_hint("run `memctl review` in a terminal, `memctl review --json` to see them, or `memctl review --yes` to accept them all")
        .into());
    }
    for entry in &entries {
        if !review_one(config, ui, &args, scope, &root, entry)? {
            break;
        }
    }
    let left = pending::load(&root)?.len();
    if left > 0 {
        ui.note(&format!(
            "{} still wait; run `memctl review` again.",
            ui::count(left, "candidate", "candidates")
        ));
    }
    Ok(Exit::Ok)
}

/// `--json` (each candidate's classification, nothing decided) or
/// `--yes` (every candidate accepted through every guard).
fn review_all(
    config: &Config,
    ui: &Ui,
    args: &ReviewArgs,
    scope: Scope,
    root: &std::path::Path,
    entries: &[Entry],
) -> anyhow::Result<Exit> {
    let parsed = entries
        .iter()
        .enumerate()
        .map(|(n, e)| parse(n, e))
        .collect();
    let (exit, statuses) = remember::run_batch(config, ui, &batch(args, scope, !args.yes), parsed)?;
    if args.yes {
        let done: Vec<String> = entries
            .iter()
            .zip(&statuses)
            .filter(|(_, status)| is_settled(status))
            .map(|(entry, _)| entry.key.clone())
            .collect();
        pending::remove(root, &done)?;
    }
    Ok(exit)
}

/// One candidate on a terminal: shown, then accepted, discarded, edited
/// (and shown again) or left for later. `false` when the person quits.
fn review_one(
    config: &Config,
    ui: &Ui,
    args: &ReviewArgs,
    scope: Scope,
    root: &std::path::Path,
    entry: &Entry,
) -> anyhow::Result<bool> {
    let mut current = entry.clone();
    loop {
        let (_, statuses) = remember::run_batch(
            config,
            ui,
            &batch(args, scope, true),
            vec![parse(0, &current)],
        )?;
        if statuses.first() != Some(&"dry-run") {
            // Refused, or already stored: nothing to accept; said above.
            pending::remove(root, std::slice::from_ref(&entry.key))?;
            return Ok(true);
        }
        match ask(&current)? {
            Choice::Accept => {
                let (_, statuses) = remember::run_batch(
                    config,
                    ui,
                    &batch(args, scope, false),
                    vec![parse(0, &current)],
                )?;
                if statuses.first().is_some_and(|s| is_settled(s)) {
                    pending::remove(root, std::slice::from_ref(&entry.key))?;
                }
                return Ok(true);
            }
            Choice::Discard => {
                pending::remove(root, std::slice::from_ref(&entry.key))?;
                return Ok(true);
            }
            Choice::Edit => {
                if let Some(edited) = edit(ui, &current)? {
                    current.candidate = edited;
                }
            }
            Choice::Quit => return Ok(false),
        }
    }
}

fn ask(entry: &Entry) -> anyhow::Result<Choice> {
    let choices = [
        "accept: save it",
        "skip: discard it",
        "edit it",
        "quit: keep it and the rest for later",
    ];
    let picked = dialoguer::Select::new()
        .with_prompt(format!("From {}", ui::shown(&entry.from)))
        .items(choices)
        .default(0)
        .interact()?;
    Ok(match picked {
        0 => Choice::Accept,
        1 => Choice::Discard,
        2 => Choice::Edit,
        _ => Choice::Quit,
    })
}

/// The candidate as JSON in the person's editor; the edited JSON when it
/// is still a candidate, else `None` (why is said, the original kept).
fn edit(ui: &Ui, entry: &Entry) -> anyhow::Result<Option<serde_json::Value>> {
    let scratch = tempfile::Builder::new()
        .prefix("memctl-review-")
        .suffix(".json")
        .tempfile()?;
    std::fs::write(
        scratch.path(),
        serde_json::to_string_pretty(&entry.candidate)?,
    )?;
    let (editor, status) = super::edit::run_editor(scratch.path())?;
    if !status.success() {
        ui.warn(&format!(
            "the editor {editor:?} exited with {status}; the candidate is unchanged"
        ));
        return Ok(None);
    }
    let text = std::fs::read_to_string(scratch.path())?;
    let edited = serde_json::from_str::<serde_json::Value>(&text)
        .map_err(|e| e.to_string())
        .and_then(|value| {
            candidate_from_json(&value)
                .map(|_| value)
                .map_err(|e| e.to_string())
        });
    match edited {
        Ok(value) => Ok(Some(value)),
        Err(why) => {
            ui.warn(&format!(
                "the edited candidate cannot be read: {why}; it is unchanged"
            ));
            Ok(None)
        }
    }
}

fn batch(args: &ReviewArgs, scope: Scope, dry_run: bool) -> Batch {
    Batch {
        scope: Some(scope),
        yes: !dry_run,
        dry_run,
        commit: args.commit,
        json: args.json,
        ..Batch::from_json("the pending candidates".to_string())
    }
}

/// A waiting candidate read again as `remember --from-json` reads one; it
/// is `inferred` whatever the file says (a model proposed it).
fn parse(n: usize, entry: &Entry) -> Parsed {
    let name = mdstore::write::json_name(&entry.candidate)
        .unwrap_or_default()
        .to_string();
    let mut candidate = candidate_from_json(&entry.candidate).map_err(|e| Unreadable {
        message: format!("{}: {e}", label_candidate(n, Some(&name))),
        name: name.clone(),
        dropped: false,
    })?;
    candidate.source = Some(Source::Inferred);
    Ok(candidate)
}

/// Saved, already stored, refused or set aside: nothing more to decide.
/// A conflict or a failed write leaves it waiting.
fn is_settled(status: &str) -> bool {
    matches!(status, "saved" | "noop" | "refused" | "dropped")
}
