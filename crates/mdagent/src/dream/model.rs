//! `dream --llm-cmd CMD`: the records go to the model command as JSON (in
//! batches of related records when they do not fit in one call), and each
//! answer is read as a plan of origin `model`. The combined plan then passes
//! the same validation as the rules' plan.

use jiff::Timestamp;
use std::borrow::Cow;

use mddream::model::{self, AnswerError, Limits, Withheld};
use mddream::plan::{Finding, LeftAlone, Operation, Plan, RecordRef};
use mddream::records::DreamRecord;
use mddream::validate;

use crate::Config;
use crate::config::ConfigError;
use crate::model::cmd::{self as model_cmd, ModelCmdError};

/// Why no plan came from the model command; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum DreamModelError {
    /// A record alone is over the input limit: nothing was sent.
    #[error(transparent)]
    TooLarge(#[from] model::TooLarge),
    /// The runner could not be run, failed or answered too much.
    #[error(transparent)]
    Runner(#[from] ModelCmdError),
    /// A `MEMCTL_LLM_*` variable is not set right: nothing was sent.
    #[error(transparent)]
    Env(#[from] ConfigError),
    /// An answer names a record that was not sent to it (it holds a secret).
    #[error(
        "the model's answer{call} names {scope}:{id}, a record it was not sent (it looks like it holds a secret)",
        scope = .record.scope.as_str(), id = .record.id
    )]
    NamesWithheld { call: String, record: RecordRef },
    /// An answer is not a plan; `call` says which (` (call 2 of 3)`).
    #[error("the model's answer{call} was refused: {error}")]
    Answer { call: String, error: AnswerError },
    /// The runner's own wrapper says it failed ([`crate::model::answer`]).
    #[error("the model's answer{call} was refused: {why}")]
    Wrapped { call: String, why: String },
}

/// The model's plan for `records`: one call when they fit in the input
/// limit (`MEMCTL_LLM_MAX_INPUT_CHARS`), else one a batch of related
/// records. A record holding a secret
/// is never sent ([`model::withheld`]): the plan lists it as left alone,
/// and an answer that names it anyway is refused. `asking` is told before
/// each call which one it is (empty when there is one, else
/// ` (call 2 of 3)`).
pub fn plan(
    config: &Config,
    command: &str,
    records: &[DreamRecord],
    max_delete_pct: f64,
    now: Timestamp,
    asking: &mut dyn FnMut(&str),
) -> Result<Plan, DreamModelError> {
    let limits = Limits { max_delete_pct };
    let today = now.strftime("%Y-%m-%d").to_string();
    // Both read before anything is sent: a bad value costs no call.
    let max_chars = config.model_max_input_chars()?;
    let timeout = config.model_timeout()?;
    let withheld: Vec<Withheld> = records.iter().filter_map(model::withheld).collect();
    let sent: Cow<'_, [DreamRecord]> = if withheld.is_empty() {
        Cow::Borrowed(records)
    } else {
        let kept = |r: &&DreamRecord| !withheld.iter().any(|w| w.record == r.reference());
        Cow::Owned(records.iter().filter(kept).cloned().collect())
    };
    let mut inputs = model::inputs(&sent, &[], &limits, &today, max_chars)?;
    if inputs.len() > 1 {
        // Too large for one call: keep what the rules find related together.
        let related = model::related_groups(&mddream::gather::gather(&sent, now), &sent);
        inputs = model::inputs(&sent, &related, &limits, &today, max_chars)?;
    }
    let mut plans = Vec::with_capacity(inputs.len());
    for (n, input) in inputs.iter().enumerate() {
        let call = if inputs.len() == 1 {
            String::new()
        } else {
            format!(" (call {} of {})", n + 1, inputs.len())
        };
        asking(&call);
        let output = model_cmd::run(command, input.as_bytes(), timeout)?;
        let answer = match crate::model::answer::unwrapped(&output) {
            Ok(answer) => answer,
            Err(why) => return Err(DreamModelError::Wrapped { call, why }),
        };
        let mut plan = model::parse_answer(&answer).map_err(|error| DreamModelError::Answer {
            call: call.clone(),
            error,
        })?;
        // As the store spells them, so that `AWS-Notes` is `aws-notes`.
        validate::resolve_ids(&mut plan, records);
        if let Some(named) = named_withheld(&plan, &withheld) {
            return Err(DreamModelError::NamesWithheld {
                call,
                record: named,
            });
        }
        plans.push(plan);
    }
    let mut plan = model::combine(plans);
    plan.left_alone.extend(withheld.iter().map(|w| LeftAlone {
        finding: Finding::Model,
        reason: format!(
            "not sent to the model command: {}; change it by hand, or run dream without --llm-cmd",
            w.why()
        ),
        records: vec![w.record.clone()],
    }));
    Ok(plan)
}

/// The first record of `withheld` that `plan` names (reads, supersedes
/// with, or leaves alone): a model could only have guessed it.
fn named_withheld(plan: &Plan, withheld: &[Withheld]) -> Option<RecordRef> {
    let mut named: Vec<&RecordRef> = Vec::new();
    for op in &plan.operations {
        named.extend(op.reads());
        if let Operation::Retire {
            superseded_by: Some(by),
            ..
        } = op
        {
            named.push(by);
        }
    }
    named.extend(plan.left_alone.iter().flat_map(|a| &a.records));
    named
        .into_iter()
        .find(|r| {
            withheld
                .iter()
                .any(|w| w.record.scope == r.scope && w.record.id == r.id)
        })
        .cloned()
}
