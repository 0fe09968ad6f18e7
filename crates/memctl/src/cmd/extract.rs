//! `memctl extract`: a finished session's user and assistant text goes to
//! the user's model command, whose candidates go through `remember
//! --from-json` with every guard of SPEC §6 (SPEC §8). memctl proposes
//! nothing itself: without a model command there is nothing to extract.
//! Reading the session, the request and the answer are `mdagent::extract`'s.

use mdagent::Config;
use mdagent::extract::origin::{Judged, Origin};
use mdagent::extract::propose::{ProposeError, Proposed, propose};
use mdagent::extract::{answer, request, transcript};
use mdagent::lifecycle::after_session::{self, Outcome, Tally};
use mdagent::lifecycle::pending;
use mdagent::lifecycle::pending::Waiting;
use mdagent::model::cmd::{self as model_cmd, ModelCmdError};
use mdagent::model::source::{self as model_source, ModelCommand};
use mdagent::repeats::Retargeted;
use mdagent::stores::{self, WriteTarget};

use crate::cli::ExtractArgs;
use crate::cmd::remember::{self, Batch};
use crate::failure::{self, Exit, Failure};
use crate::ui::{self, Ui};
use mdagent::Kind;

const LLM_CMD_EXAMPLE: &str = "memctl extract --transcript ~/.claude/projects/<project>/<session>.jsonl --llm-cmd 'claude -p'";

pub fn run(config: &Config, ui: &Ui, args: ExtractArgs) -> anyhow::Result<Exit> {
    let result = extract(config, ui, &args);
    // The after-session job (`--pending`) is watched by no one: what it
    // came to, failure included, is said at the next session start.
    if args.pending
        && let Ok(WriteTarget::Existing(target)) =
            stores::write_target(config, stores::default_scope(config))
    {
        let outcome = match &result {
            Ok((_, outcome)) => outcome.clone(),
            Err(e) => Outcome::failed(&failure::classify(e).1),
        };
        after_session::record(config, &target, &outcome);
    }
    result.map(|(exit, _)| exit)
}

/// The run, and what it came to for the after-session report.
fn extract(config: &Config, ui: &Ui, args: &ExtractArgs) -> anyhow::Result<(Exit, Outcome)> {
    let target = stores::write_target(config, stores::default_scope(config));
    warn_of_store_settings(config, ui, target.as_ref().ok());
    let Some(model) = model_source::model_command(config, args.llm_cmd.as_deref())? else {
        return Err(Failure::bad_input(
            "extract needs a model command to propose candidates; memctl does not invent memory",
        )
        .with_hint(format!(
            "give --llm-cmd, set {}, or write [model] command = [\"claude\", \"-p\"] in your {}: {LLM_CMD_EXAMPLE}",
            mdagent::config::LLM_CMD_VAR,
            user_config_shown(config)
        ))
        .into());
    };
    // Asking the model costs time and money: not when nothing could be saved.
    if !(args.yes || args.dry_run || args.pending || ui.interactive) {
        return Err(Failure::new(
            Kind::NotConfirmed,
            "nothing extracted: there is no terminal to confirm on",
        )
        .with_hint("pass --yes to save without asking, --pending to keep the candidates for `memctl review`, or --dry-run to only see the plan")
        .into());
    }
    // Nor when there is no store to write to (and no git root to make one at).
    let target = target?;
    // The variables of this run, read before the model is asked: a bad
    // value must not cost a call (the lock's is read again to write).
    let timeout = config.model_timeout()?;
    config.lock_timeout()?;
    let conversation = transcript::read(&args.transcript)?;
    let shown = ui::shown_path(&args.transcript);
    if conversation.messages.is_empty() {
        ui.note(&format!(
            "{shown} holds no user or assistant text; nothing to extract."
        ));
        if args.json {
            ui::print_json(&serde_json::json!([]))?;
        }
        return Ok((Exit::Ok, Outcome::NoText));
    }
    let request = request::request(&conversation);
    if !request.hidden.is_empty() {
        ui.note(&hidden_note(&request.hidden));
    }
    let proposed =
        propose(config, &conversation, &request, &model, timeout).map_err(|e| match e {
            ProposeError::Model(e) => model_failure(e, &model),
            ProposeError::Answer(reason) => Failure::bad_input(format!(
                "the model command's answer cannot be read: {reason}; nothing was written"
            ))
            .with_hint(answer::ANSWER_SHAPE),
        })?;
    let Proposed {
        parsed,
        origins,
        retargeted,
    } = proposed;
    if parsed.is_empty() {
        ui.note("The model proposed no candidates; nothing to remember.");
    }
    for (n, retargeted) in retargeted.iter().enumerate() {
        if let Some(r) = retargeted {
            ui.note(&repeat_note(n, r));
        }
    }
    if args.pending {
        let found = Found {
            parsed,
            origins,
            retargeted,
            session: pending::session_key(&conversation),
        };
        return keep_pending(config, ui, args, &target, &shown, found);
    }
    let batch = Batch {
        yes: args.yes,
        dry_run: args.dry_run,
        commit: args.commit,
        json: args.json,
        ..Batch::from_json(shown.clone())
    };
    let (exit, statuses) = remember::run_batch(config, ui, &batch, parsed)?;
    if !args.json && !statuses.is_empty() {
        ui.note(&summary(&shown, &statuses));
    }
    let saved = statuses.iter().filter(|s| **s == "saved").count();
    let others = tally(&statuses, 0);
    let outcome = if saved == 0 {
        Outcome::Nothing { others }
    } else {
        Outcome::Saved { saved, others }
    };
    Ok((exit, outcome))
}

/// `candidate 2 ("use-pnpm") repeats prefer-pnpm: proposed as an update of it.`
fn repeat_note(n: usize, r: &Retargeted) -> String {
    let label = mdagent::remember::label_candidate(n, Some(&r.proposed));
    if r.adds_nothing {
        format!(
            "{label} says nothing that {} does not say already.",
            r.record
        )
    } else {
        format!(
            "{label} repeats {} in other words: proposed as an update of it.",
            r.record
        )
    }
}

/// What was found in a session, for `--pending`.
struct Found {
    parsed: Vec<mdagent::remember::Parsed>,
    origins: Vec<Option<Judged>>,
    retargeted: Vec<Option<Retargeted>>,
    session: String,
}

/// What became of the candidates that were not kept: `already` more were
/// found waiting already, `decided` decided about before.
fn tally(statuses: &[&str], already: usize) -> Tally {
    let count = |wanted: &[&str]| statuses.iter().filter(|s| wanted.contains(s)).count();
    Tally {
        known: count(&["noop"]) + already,
        refused: count(&["refused", "conflict", "failed"]),
        dropped: count(&["dropped"]),
    }
}

/// `--pending`: the candidates that pass every guard (planned, not refused,
/// not already stored) wait for `memctl review`, with whose words they are
/// and what they repeat; the others are reported. With `[extract]
/// auto_accept`, those in the user's own words are saved at once instead;
/// the others wait all the same (a model's or a tool's words never go
/// unseen into memory).
fn keep_pending(
    config: &Config,
    ui: &Ui,
    args: &ExtractArgs,
    target: &WriteTarget,
    shown: &str,
    found: Found,
) -> anyhow::Result<(Exit, Outcome)> {
    let auto_accept = config.user_file().model()?.extract.auto_accept;
    let batch = |dry_run: bool| Batch {
        yes: !dry_run,
        dry_run,
        commit: args.commit,
        json: args.json,
        ..Batch::from_json(shown.to_string())
    };
    let mut now = Vec::new();
    let mut later = Vec::new();
    for ((parsed, origin), retargeted) in found
        .parsed
        .into_iter()
        .zip(found.origins)
        .zip(found.retargeted)
    {
        let users = origin.as_ref().is_some_and(|o| o.origin == Origin::User);
        if auto_accept && users && retargeted.is_none() {
            now.push(parsed);
        } else {
            later.push((parsed, origin, retargeted));
        }
    }
    let (mut exit, mut statuses) = (Exit::Ok, Vec::new());
    if !now.is_empty() {
        (exit, statuses) = remember::run_batch(config, ui, &batch(false), now)?;
    }
    let saved = statuses.iter().filter(|s| **s == "saved").count();
    let waiting: Vec<Option<Waiting>> = later
        .iter()
        .map(|(parsed, origin, retargeted)| {
            parsed.as_ref().ok().map(|candidate| Waiting {
                candidate: candidate.clone(),
                origin: origin.clone(),
                repeats: retargeted
                    .as_ref()
                    .map(|r| (r.record.clone(), r.proposed.clone())),
            })
        })
        .collect();
    let later: Vec<_> = later.into_iter().map(|(parsed, _, _)| parsed).collect();
    let (later_exit, later_statuses) = remember::run_batch(config, ui, &batch(true), later)?;
    if exit == Exit::Ok {
        exit = later_exit;
    }
    let passed: Vec<Waiting> = waiting
        .into_iter()
        .zip(&later_statuses)
        .filter(|(_, status)| **status == "dry-run")
        .filter_map(|(waiting, _)| waiting)
        .collect();
    let root = match target {
        WriteTarget::Existing(scoped) => scoped.store.root().to_path_buf(),
        WriteTarget::Missing { dir, .. } => dir.clone(),
    };
    let added = pending::add(config, &root, &passed, shown, &found.session)?;
    ui.note(&format!(
        "extract: {} from {shown} now wait for `memctl review`{}{}{}.",
        ui::count(added.added, "candidate", "candidates"),
        if added.already > 0 {
            format!(" ({} already waited)", added.already)
        } else {
            String::new()
        },
        if added.decided > 0 {
            format!(
                "; {} decided about before for this session, not proposed again",
                added.decided
            )
        } else {
            String::new()
        },
        if added.over_limit > 0 {
            format!(
                "; {} not kept: {} already wait",
                added.over_limit,
                pending::MAX_ENTRIES
            )
        } else {
            String::new()
        },
    ));
    // A refusal is reported above and in the exit code; what passed is kept.
    statuses.extend(later_statuses.iter().filter(|s| **s != "saved"));
    let mut others = tally(&statuses, added.already + added.over_limit);
    others.dropped += added.decided;
    let outcome = if added.added > 0 {
        Outcome::Waiting {
            new: added.added,
            waiting: pending::load(config, &root)?.len(),
            saved,
            others,
        }
    } else if saved > 0 {
        Outcome::Saved { saved, others }
    } else {
        Outcome::Nothing { others }
    };
    Ok((exit, outcome))
}

/// One warning for each key of the store's `.memctl.toml` that memctl
/// ignores because the file is shared (a model command, auto-accept).
pub fn warn_of_store_settings(config: &Config, ui: &Ui, target: Option<&WriteTarget>) {
    if let Some(WriteTarget::Existing(scoped)) = target {
        for warning in model_source::workspace_warnings(config, scoped.store.root()) {
            ui.warn(&warning);
        }
    }
}

fn user_config_shown(config: &Config) -> String {
    config
        .folders()
        .user_config
        .as_ref()
        .map_or("~/.config/memctl/config.toml".to_string(), |p| {
            ui::shown_path(p)
        })
}

fn model_failure(error: ModelCmdError, model: &ModelCommand) -> Failure {
    let exit = error.kind();
    let message = format!("{error}; nothing was written");
    match error {
        ModelCmdError::Empty | ModelCmdError::Unsplittable(_) | ModelCmdError::Spawn { .. } => {
            Failure::new(exit, format!("{}: {message}", model.origin.describe()))
                .with_hint(format!("give a command on your PATH: {LLM_CMD_EXAMPLE}"))
        }
        ModelCmdError::TooLarge | ModelCmdError::NotUtf8 => {
            Failure::new(exit, message).with_hint(answer::ANSWER_SHAPE)
        }
        ModelCmdError::Timeout(_) => {
            Failure::new(exit, message).with_hint("set MEMCTL_LLM_TIMEOUT_SECS to wait longer")
        }
        ModelCmdError::OutputHeld(_) => {
            Failure::new(exit, message).with_hint(model_cmd::OUTPUT_HELD_HINT)
        }
        ModelCmdError::Failed(_) | ModelCmdError::Io(_) => Failure::new(exit, message)
            .with_hint("its own error output is above; run it by hand to see why"),
    }
}

/// `2 lines of the session were not sent to the model: they look like
/// they hold a secret (github-token, aws-secret-access-key).`
fn hidden_note(rules: &[&str]) -> String {
    let mut named: Vec<&str> = Vec::new();
    for rule in rules {
        if !named.contains(rule) {
            named.push(rule);
        }
    }
    let lines = ui::count(rules.len(), "line", "lines");
    let verb = if rules.len() == 1 { "was" } else { "were" };
    format!(
        "{lines} of the session {verb} not sent to the model: they look like they hold a secret ({}).",
        named.join(", ")
    )
}

/// `extract: 5 candidates from FILE: 2 saved, 1 already stored, 1 refused, 1 dropped (current task).`
fn summary(shown: &str, statuses: &[&str]) -> String {
    let count = |status: &str| statuses.iter().filter(|s| **s == status).count();
    let parts: Vec<String> = [
        ("saved", "saved"),
        ("noop", "already stored"),
        ("dry-run", "planned (dry run)"),
        ("not-confirmed", "not confirmed"),
        ("refused", "refused"),
        ("conflict", "in conflict"),
        ("failed", "failed"),
        ("dropped", "dropped (current task)"),
    ]
    .iter()
    .filter(|(status, _)| count(status) > 0)
    .map(|(status, said)| format!("{} {said}", count(status)))
    .collect();
    format!(
        "extract: {} candidate{} from {shown}: {}.",
        statuses.len(),
        if statuses.len() == 1 { "" } else { "s" },
        parts.join(", ")
    )
}
