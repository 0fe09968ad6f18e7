//! `memctl extract` as one use case (SPEC §8), whichever face runs it: the
//! model command found (the user's, never a repository's), nothing asked
//! of it when nothing could be saved, the session read, its candidates
//! proposed, then either handed to `remember`'s batch with every guard of
//! SPEC §6, or (`--pending`, the after-session job) those that pass kept
//! for `memctl review`, with `[extract] auto_accept` saving the user's own
//! words at once. The face runs the batches ([`Batches::batch`]: it
//! shows their plans and reports) and renders the rest.

use std::path::Path;

use crate::config::{ConfigError, LLM_CMD_VAR};
use crate::extract::origin::{Judged, Origin};
use crate::extract::propose::{ProposeError, Proposed, propose};
use crate::extract::transcript::{self, TranscriptError};
use crate::extract::{answer, request};
use crate::face::{Batches, Tell};
use crate::lifecycle::after_session::{self, Outcome, Tally};
use crate::lifecycle::pending::{self, PendingError, Waiting};
use crate::model::cmd::{ModelCmdError, OUTPUT_HELD_HINT};
use crate::model::source::{self as model_source, ModelCommand};
use crate::remember::Batch;
use crate::remember::{Parsed, label_candidate};
use crate::repeats::Retargeted;
use crate::stores::{self, StoreError, WriteTarget};
use crate::write_failure::WriteFailure;
use crate::{Config, Kind};

/// How to give a model command, as the error that lacks one says.
pub const LLM_CMD_EXAMPLE: &str = "memctl extract --transcript ~/.claude/projects/<project>/<session>.jsonl --llm-cmd 'claude -p'";

/// What a face asks of an extraction.
#[derive(Clone, Copy, Debug)]
pub struct ExtractRequest<'a> {
    pub transcript: &'a Path,
    /// The model command given on the command line, over the user's.
    pub llm_cmd: Option<&'a str>,
    /// Save without asking.
    pub yes: bool,
    pub dry_run: bool,
    /// Keep what passes for `memctl review` (the after-session job); what
    /// it came to is recorded for the next session start.
    pub pending: bool,
    pub commit: bool,
    /// Someone is there to confirm the candidates.
    pub can_confirm: bool,
}

/// What an extraction came to.
pub struct Extracted {
    /// The worst kind of problem among the candidates (a refusal, a
    /// conflict), if any: the run itself went through.
    pub kind: Option<Kind>,
    /// Each candidate's status, as `remember --json` names it, when they
    /// went to `remember` directly (empty with `--pending`).
    pub statuses: Vec<&'static str>,
    /// What it came to, as the after-session report says it.
    pub outcome: Outcome,
    /// The session named as it may be printed.
    pub shown: String,
}

/// Why an extraction stopped before any candidate was written.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error("extract needs a model command to propose candidates; memctl does not invent memory")]
    NoModel { user_config: String },
    #[error("nothing extracted: there is no terminal to confirm on")]
    NoTerminal,
    #[error("{}", model_message(.error, .origin))]
    Model {
        error: ModelCmdError,
        /// Where the command came from (`--llm-cmd`, the variable, the file).
        origin: String,
    },
    #[error("the model command's answer cannot be read: {0}; nothing was written")]
    Answer(String),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Stores(#[from] StoreError),
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    #[error(transparent)]
    Pending(#[from] PendingError),
    #[error(transparent)]
    Write(#[from] WriteFailure),
}

impl ExtractError {
    /// The error this one wraps, which [`crate::explain()`] explains instead.
    pub fn wrapped(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExtractError::Config(e) => Some(e),
            ExtractError::Stores(e) => Some(e),
            ExtractError::Transcript(e) => Some(e),
            ExtractError::Pending(e) => Some(e),
            ExtractError::Write(e) => Some(e),
            ExtractError::NoModel { .. }
            | ExtractError::NoTerminal
            | ExtractError::Model { .. }
            | ExtractError::Answer(_) => None,
        }
    }

    /// The kind of an error that is not [`ExtractError::wrapped`].
    pub fn kind(&self) -> Kind {
        match self {
            ExtractError::NoTerminal => Kind::NotConfirmed,
            ExtractError::Model { error, .. } => error.kind(),
            ExtractError::NoModel { .. } | ExtractError::Answer(_) => Kind::BadInput,
            _ => Kind::Internal,
        }
    }

    pub fn hint(&self) -> Option<String> {
        Some(match self {
            ExtractError::NoModel { user_config } => format!(
                "give --llm-cmd, set {LLM_CMD_VAR}, or write [model] command = [\"claude\", \"-p\"] in your {user_config}: {LLM_CMD_EXAMPLE}"
            ),
            ExtractError::NoTerminal => "pass --yes to save without asking, --pending to keep the candidates for `memctl review`, or --dry-run to only see the plan".to_string(),
            ExtractError::Model { error, .. } => model_hint(error),
            ExtractError::Answer(_) => answer::ANSWER_SHAPE.to_string(),
            _ => return None,
        })
    }
}

/// Runs an extraction as `request` says, through `face`. The after-session
/// job (`pending`) is watched by no one: what it came to, failure
/// included, is recorded for the next session start.
pub fn run(
    config: &Config,
    face: &dyn Batches,
    request: &ExtractRequest<'_>,
) -> Result<Extracted, ExtractError> {
    let result = extract(config, face, request);
    if request.pending
        && let Ok(WriteTarget::Existing(target)) =
            stores::write_target(config, stores::default_scope(config))
    {
        let outcome = match &result {
            Ok(extracted) => extracted.outcome.clone(),
            Err(e) => Outcome::failed(&crate::explain::message_of(e)),
        };
        after_session::record(config, &target, &outcome);
    }
    result
}

fn extract(
    config: &Config,
    face: &dyn Batches,
    request: &ExtractRequest<'_>,
) -> Result<Extracted, ExtractError> {
    let target = stores::write_target(config, stores::default_scope(config));
    warn_of_store_settings(config, face, target.as_ref().ok());
    let Some(model) = model_source::model_command(config, request.llm_cmd)? else {
        return Err(ExtractError::NoModel {
            user_config: user_config_shown(config),
        });
    };
    // Asking the model costs time and money: not when nothing could be saved.
    if !(request.yes || request.dry_run || request.pending || request.can_confirm) {
        return Err(ExtractError::NoTerminal);
    }
    // Nor when there is no store to write to (and no git root to make one at).
    let target = target?;
    // The variables of this run, read before the model is asked: a bad
    // value must not cost a call (the lock's is read again to write).
    let timeout = config.model_timeout()?;
    config.lock_timeout()?;
    let conversation = transcript::read(request.transcript)?;
    let shown = shown_path(request.transcript);
    let mut extracted = Extracted {
        kind: None,
        statuses: Vec::new(),
        outcome: Outcome::NoText,
        shown: shown.clone(),
    };
    if conversation.messages.is_empty() {
        face.note(&format!(
            "{shown} holds no user or assistant text; nothing to extract."
        ));
        return Ok(extracted);
    }
    let asked = request::request(&conversation);
    if !asked.hidden.is_empty() {
        face.note(&hidden_note(&asked.hidden));
    }
    let proposed = propose(config, &conversation, &asked, &model, timeout)
        .map_err(|e| proposal_failure(e, &model))?;
    if proposed.parsed.is_empty() {
        face.note("The model proposed no candidates; nothing to remember.");
    }
    for (n, retargeted) in proposed.retargeted.iter().enumerate() {
        if let Some(r) = retargeted {
            face.note(&repeat_note(n, r));
        }
    }
    if request.pending {
        let session = pending::session_key(&conversation);
        let root = match &target {
            WriteTarget::Existing(scoped) => scoped.store.root().to_path_buf(),
            WriteTarget::Missing { dir, .. } => dir.clone(),
        };
        let (kind, outcome) =
            keep_pending(config, face, request, &root, &shown, proposed, &session)?;
        extracted.kind = kind;
        extracted.outcome = outcome;
        return Ok(extracted);
    }
    let batch = Batch {
        yes: request.yes,
        dry_run: request.dry_run,
        commit: request.commit,
        from_json: true,
        ..Batch::default()
    };
    let done = face.batch(&batch, proposed.parsed)?;
    let statuses = done.statuses();
    let saved = statuses.iter().filter(|s| **s == "saved").count();
    let others = tally(&statuses, 0);
    extracted.kind = done.kind();
    extracted.outcome = if saved == 0 {
        Outcome::Nothing { others }
    } else {
        Outcome::Saved { saved, others }
    };
    extracted.statuses = statuses;
    Ok(extracted)
}

/// `--pending`: the candidates that pass every guard (planned, not refused,
/// not already stored) wait for `memctl review`, with whose words they are
/// and what they repeat; the others are reported. With `[extract]
/// auto_accept`, those in the user's own words are saved at once instead;
/// the others wait all the same (a model's or a tool's words never go
/// unseen into memory).
fn keep_pending(
    config: &Config,
    face: &dyn Batches,
    request: &ExtractRequest<'_>,
    root: &Path,
    shown: &str,
    proposed: Proposed,
    session: &str,
) -> Result<(Option<Kind>, Outcome), ExtractError> {
    let auto_accept = config.user_file().model()?.extract.auto_accept;
    let batch = |dry_run: bool| Batch {
        yes: !dry_run,
        dry_run,
        commit: request.commit,
        from_json: true,
        ..Batch::default()
    };
    let Proposed {
        parsed,
        origins,
        retargeted,
    } = proposed;
    let mut now = Vec::new();
    let mut later: Vec<(Parsed, Option<Judged>, Option<Retargeted>)> = Vec::new();
    for ((parsed, origin), retargeted) in parsed.into_iter().zip(origins).zip(retargeted) {
        let users = origin.as_ref().is_some_and(|o| o.origin == Origin::User);
        if auto_accept && users && retargeted.is_none() {
            now.push(parsed);
        } else {
            later.push((parsed, origin, retargeted));
        }
    }
    let (mut kind, mut statuses) = (None, Vec::new());
    if !now.is_empty() {
        let done = face.batch(&batch(false), now)?;
        (kind, statuses) = (done.kind(), done.statuses());
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
    let planned = face.batch(&batch(true), later)?;
    let later_statuses = planned.statuses();
    kind = kind.or(planned.kind());
    let passed: Vec<Waiting> = waiting
        .into_iter()
        .zip(&later_statuses)
        .filter(|(_, status)| **status == "dry-run")
        .filter_map(|(waiting, _)| waiting)
        .collect();
    let added = pending::add(config, root, &passed, shown, session)?;
    face.note(&waiting_note(shown, &added));
    // A refusal is reported above and in the exit code; what passed is kept.
    statuses.extend(later_statuses.iter().filter(|s| **s != "saved"));
    let mut others = tally(&statuses, added.already + added.over_limit);
    others.dropped += added.decided;
    let outcome = if added.added > 0 {
        Outcome::Waiting {
            new: added.added,
            waiting: pending::load(config, root)?.len(),
            saved,
            others,
        }
    } else if saved > 0 {
        Outcome::Saved { saved, others }
    } else {
        Outcome::Nothing { others }
    };
    Ok((kind, outcome))
}

/// `extract: 2 candidates from FILE now wait for `memctl review` (1 already waited).`
fn waiting_note(shown: &str, added: &pending::Added) -> String {
    let mut note = format!(
        "extract: {} from {shown} now wait for `memctl review`",
        count(added.added, "candidate", "candidates")
    );
    if added.already > 0 {
        note += &format!(" ({} already waited)", added.already);
    }
    if added.decided > 0 {
        note += &format!(
            "; {} decided about before for this session, not proposed again",
            added.decided
        );
    }
    if added.over_limit > 0 {
        note += &format!(
            "; {} not kept: {} already wait",
            added.over_limit,
            pending::MAX_ENTRIES
        );
    }
    note + "."
}

/// One warning for each key of the store's `.memctl.toml` that memctl
/// ignores because the file is shared (a model command, auto-accept).
pub fn warn_of_store_settings(config: &Config, tell: &dyn Tell, target: Option<&WriteTarget>) {
    if let Some(WriteTarget::Existing(scoped)) = target {
        for warning in model_source::workspace_warnings(config, scoped.store.root()) {
            tell.warn(&warning);
        }
    }
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

/// `candidate 2 ("use-pnpm") repeats prefer-pnpm: proposed as an update of it.`
fn repeat_note(n: usize, r: &Retargeted) -> String {
    let label = label_candidate(n, Some(&r.proposed));
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

/// `2 lines of the session were not sent to the model: they look like
/// they hold a secret (github-token, aws-secret-access-key).`
fn hidden_note(rules: &[&str]) -> String {
    let mut named: Vec<&str> = Vec::new();
    for rule in rules {
        if !named.contains(rule) {
            named.push(rule);
        }
    }
    let lines = count(rules.len(), "line", "lines");
    let verb = if rules.len() == 1 { "was" } else { "were" };
    format!(
        "{lines} of the session {verb} not sent to the model: they look like they hold a secret ({}).",
        named.join(", ")
    )
}

/// `1 candidate`, `2 candidates`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn shown_path(path: &Path) -> String {
    mdstore::escape::escape_controls(&path.display().to_string()).into_owned()
}

fn user_config_shown(config: &Config) -> String {
    config
        .folders()
        .user_config
        .as_ref()
        .map_or("~/.config/memctl/config.toml".to_string(), |p| {
            shown_path(p)
        })
}

fn proposal_failure(error: ProposeError, model: &ModelCommand) -> ExtractError {
    match error {
        ProposeError::Model(error) => ExtractError::Model {
            error,
            origin: model.origin.describe(),
        },
        ProposeError::Answer(reason) => ExtractError::Answer(reason),
    }
}

fn model_message(error: &ModelCmdError, origin: &str) -> String {
    match error {
        ModelCmdError::Empty | ModelCmdError::Unsplittable(_) | ModelCmdError::Spawn { .. } => {
            format!("{origin}: {error}; nothing was written")
        }
        _ => format!("{error}; nothing was written"),
    }
}

fn model_hint(error: &ModelCmdError) -> String {
    match error {
        ModelCmdError::Empty | ModelCmdError::Unsplittable(_) | ModelCmdError::Spawn { .. } => {
            format!("give a command on your PATH: {LLM_CMD_EXAMPLE}")
        }
        ModelCmdError::TooLarge | ModelCmdError::NotUtf8 => answer::ANSWER_SHAPE.to_string(),
        ModelCmdError::Timeout(_) => "set MEMCTL_LLM_TIMEOUT_SECS to wait longer".to_string(),
        ModelCmdError::OutputHeld(_) => OUTPUT_HELD_HINT.to_string(),
        ModelCmdError::Failed(_) | ModelCmdError::Io(_) => {
            "its own error output is above; run it by hand to see why".to_string()
        }
    }
}
