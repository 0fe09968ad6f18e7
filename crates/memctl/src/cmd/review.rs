//! `memctl review`: the candidates found after sessions (`extract
//! --pending`, the SessionEnd job) wait in the cache folder
//! (`mdagent::lifecycle::pending`); each is shown with what it would do to the store
//! (its classification: the record it adds, or the diff of the one it
//! updates), whose words it is and what it repeats, and accepted, edited or
//! discarded. An accepted one goes through `remember`'s transaction with
//! every guard, as `inferred`: the store may have changed since it was
//! found, so it is classified again now. What is decided is kept for the
//! session's text, so a session that ends again does not bring it back.
//! Reading them again, accepting and discarding are
//! `mdagent::lifecycle::review`'s; this face shows, asks and edits.

use serde_json::{Value, json};

use mdagent::Config;
use mdagent::face::Batches;
use mdagent::lifecycle::pending::Entry;
use mdagent::lifecycle::review::{self, Review};
use mdagent::remember::{self as use_case, Done, Parsed};
use mdagent::repeats::Retargeted;
use mdagent::write_failure::WriteFailure;
use mdstore::write::candidate_from_json;

use crate::cli::ReviewArgs;
use crate::cmd::remember::{self, Batch, run_done};
use crate::failure::{Exit, Failure, exit_of};
use crate::ui::{self, Ui};
use mdagent::Kind;

/// What was answered for one candidate on a terminal.
enum Choice {
    Accept,
    Discard,
    Edit,
    Quit,
}

/// A run of the review: the candidates and how to show them.
struct Place<'a> {
    config: &'a Config,
    ui: &'a Ui,
    args: &'a ReviewArgs,
    review: Review,
}

pub fn run(config: &Config, ui: &Ui, args: ReviewArgs) -> anyhow::Result<Exit> {
    let review = review::open(config, ui)?;
    let place = Place {
        config,
        ui,
        args: &args,
        review,
    };
    let entries = &place.review.entries;
    if entries.is_empty() {
        ui.note("No candidates wait for review.");
        if args.json {
            ui::print_json(&json!([]))?;
        }
        return Ok(Exit::Ok);
    }
    if args.yes {
        let done = place.review.accept_all(config, &place, args.commit)?;
        return Ok(done.kind().map_or(Exit::Ok, exit_of));
    }
    if args.json {
        let (exit, _, rows) = classify(ui, &place, entries)?;
        ui::print_json(&rows)?;
        return Ok(exit);
    }
    if !ui.interactive {
        return Err(Failure::new(
            Kind::NotConfirmed,
            format!(
                "{} wait, and there is no terminal to review them on",
                ui::count(entries.len(), "candidate", "candidates")
            ),
        )
        .with_hint("run `memctl review` in a terminal, `memctl review --json` to see them, or `memctl review --yes` to accept them all")
        .into());
    }
    for (n, entry) in entries.iter().enumerate() {
        if !review_one(ui, &place, entry, (n + 1, entries.len()))? {
            break;
        }
    }
    let left = place.review.left(config)?;
    if left > 0 {
        ui.note(&format!(
            "{} still wait; run `memctl review` again.",
            ui::count(left, "candidate", "candidates")
        ));
    }
    Ok(Exit::Ok)
}

/// Each entry classified against the store as it is now, nothing written:
/// the exit code, the statuses and one row a candidate with everything
/// the interactive review shows (`review --json`).
fn classify(
    ui: &Ui,
    place: &Place<'_>,
    entries: &[Entry],
) -> anyhow::Result<(Exit, Vec<&'static str>, Vec<Value>)> {
    let (parsed, retargeted) = place.review.parse_all(place.config, entries);
    let batch = Batch {
        rows_only: true,
        ..batch(place, true)
    };
    let (exit, statuses, rows) = remember::run_batch_rows(place.config, ui, &batch, parsed)?;
    let rows = rows
        .into_iter()
        .zip(entries)
        .zip(&retargeted)
        .map(|((row, entry), now)| described(row, entry, now.as_ref()))
        .collect();
    Ok((exit, statuses, rows))
}

/// One candidate on a terminal: what it is and would do, then accepted,
/// discarded, edited (and shown again) or left for later. `false` when the
/// person quits.
fn review_one(
    ui: &Ui,
    place: &Place<'_>,
    entry: &Entry,
    (n, of): (usize, usize),
) -> anyhow::Result<bool> {
    let mut current = entry.clone();
    loop {
        let (parsed, retargeted) = place
            .review
            .parse_all(place.config, std::slice::from_ref(&current));
        ui.note(&header(&current, retargeted[0].as_ref(), n, of));
        let (_, statuses, rows) = remember::run_batch_rows(
            place.config,
            ui,
            &Batch {
                plan_only: true,
                ..batch(place, true)
            },
            parsed.clone(),
        )?;
        if statuses.first() != Some(&"dry-run") {
            // Refused, or already stored: nothing to accept; said above.
            place.review.forget(place.config, entry)?;
            return Ok(true);
        }
        match ask(rows.first())? {
            Choice::Accept => {
                let (_, statuses) =
                    remember::run_batch(place.config, ui, &batch(place, false), parsed)?;
                if let Some(status) = statuses.first() {
                    place.review.accepted(place.config, entry, status)?;
                }
                return Ok(true);
            }
            Choice::Discard => {
                place.review.discard(place.config, entry)?;
                return Ok(true);
            }
            Choice::Edit => {
                if let Some(edited) = edit(place.config, ui, &current)? {
                    current.candidate = edited;
                }
            }
            Choice::Quit => return Ok(false),
        }
    }
}

/// `Candidate 2 of 3, from session.jsonl (found 2026-12-03), in your own
/// words.` and, when it repeats a record, which.
fn header(entry: &Entry, retargeted: Option<&Retargeted>, n: usize, of: usize) -> String {
    let found = jiff::Timestamp::from_second(entry.added)
        .map(|t| t.strftime("%Y-%m-%d").to_string())
        .unwrap_or_default();
    let mut text = format!(
        "Candidate {n} of {of}, from {} (found {found}), {}.",
        ui::shown(&entry.from),
        origin_said(entry)
    );
    let (record, proposed) = review::repeat_of(entry, retargeted);
    if let (Some(record), Some(proposed)) = (record, proposed) {
        text += &format!(
            " The model named it {}; it says again what {} says, so accepting it updates {}.",
            ui::shown(&proposed),
            ui::shown(&record),
            ui::shown(&record)
        );
    }
    text
}

/// Whose words the entry is, as a person reads it.
fn origin_said(entry: &Entry) -> String {
    match entry.origin {
        None => {
            "of unknown origin (found before memctl told whose words a candidate is)".to_string()
        }
        Some(origin) if entry.origin_words.is_empty() => origin.said().to_string(),
        Some(origin) => format!(
            "{} ({})",
            origin.said(),
            entry
                .origin_words
                .iter()
                .map(|w| format!("\"{}\"", ui::shown(w)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A `remember` row with what the entry says and where it came from.
fn described(mut row: Value, entry: &Entry, now: Option<&Retargeted>) -> Value {
    let candidate = &entry.candidate;
    let (record, proposed) = review::repeat_of(entry, now);
    let extra = json!({
        "key": entry.key,
        "from": entry.from,
        "added": entry.added,
        "type": candidate.get("type"),
        "description": candidate.get("description"),
        "body": candidate.get("body"),
        "tags": candidate.get("tags").cloned().unwrap_or_else(|| json!([])),
        "expires": candidate.get("expires"),
        "origin": entry.origin,
        "origin_words": entry.origin_words,
        "origin_note": origin_said(entry),
        "repeats": record,
        "proposed_name": proposed,
    });
    if let (Some(row), Some(extra)) = (row.as_object_mut(), extra.as_object()) {
        for (key, value) in extra {
            row.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    row
}

fn ask(row: Option<&Value>) -> anyhow::Result<Choice> {
    let name = row
        .and_then(|r| r["id"].as_str())
        .unwrap_or("this candidate")
        .to_string();
    let question = match row.and_then(|r| r["operation"].as_str()) {
        Some("update") => format!("Update {} with this change?", ui::shown(&name)),
        _ => format!("Save {} as a new record?", ui::shown(&name)),
    };
    let choices = [
        "accept: save it",
        "skip: discard it (this session will not propose it again)",
        "edit it first",
        "quit: keep it and the rest for later",
    ];
    let picked = dialoguer::Select::new()
        .with_prompt(question)
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
fn edit(config: &Config, ui: &Ui, entry: &Entry) -> anyhow::Result<Option<Value>> {
    let scratch = tempfile::Builder::new()
        .prefix("memctl-review-")
        .suffix(".json")
        .tempfile()?;
    std::fs::write(
        scratch.path(),
        serde_json::to_string_pretty(&entry.candidate)?,
    )?;
    let (editor, status) = super::edit::run_editor(config, scratch.path())?;
    if !status.success() {
        ui.warn(&format!(
            "the editor {editor:?} exited with {status}; the candidate is unchanged"
        ));
        return Ok(None);
    }
    let text = std::fs::read_to_string(scratch.path())?;
    let edited = serde_json::from_str::<Value>(&text)
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

/// The review's batch as the command line shows it.
fn batch(place: &Place<'_>, dry_run: bool) -> Batch {
    cli_batch(
        &place.review.batch(dry_run, place.args.commit),
        place.args.json,
    )
}

fn cli_batch(batch: &use_case::Batch, json: bool) -> Batch {
    Batch {
        scope: batch.scope,
        yes: batch.yes,
        dry_run: batch.dry_run,
        commit: batch.commit,
        json,
        ..Batch::from_json("the pending candidates".to_string())
    }
}

impl mdagent::face::Tell for Place<'_> {
    fn note(&self, text: &str) {
        self.ui.note(text);
    }
    fn warn(&self, text: &str) {
        self.ui.warn(text);
    }
}

impl Batches for Place<'_> {
    fn batch(&self, batch: &use_case::Batch, parsed: Vec<Parsed>) -> Result<Done, WriteFailure> {
        run_done(
            self.config,
            self.ui,
            &cli_batch(batch, self.args.json),
            parsed,
        )
    }
}
