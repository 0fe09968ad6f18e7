//! `dream --llm-cmd CMD`: the records go to the model command as JSON (in
//! batches of related records when they do not fit in one call), and each
//! answer is read as a plan of origin `model`. The combined plan then passes
//! the same validation as the rules' plan.

use jiff::Timestamp;
use mddream::model::{self, AnswerError, Limits};
use mddream::plan::Plan;
use mddream::records::DreamRecord;

use crate::model_cmd::{self, ModelCmdError};

/// Why no plan came from the model command; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum DreamModelError {
    /// A record alone is over the input limit: nothing was sent.
    #[error(transparent)]
    TooLarge(#[from] model::TooLarge),
    /// The runner could not be run, failed or answered too much.
    #[error(transparent)]
    Runner(#[from] ModelCmdError),
    /// An answer is not a plan; `call` says which (` (call 2 of 3)`).
    #[error("the model's answer{call} was refused: {error}")]
    Answer { call: String, error: AnswerError },
    /// The runner's own wrapper says it failed ([`crate::model_answer`]).
    #[error("the model's answer{call} was refused: {why}")]
    Wrapped { call: String, why: String },
}

/// The input limit: `MEMCTL_LLM_MAX_INPUT_CHARS`, else SPEC §7's 200,000.
fn max_input_chars() -> usize {
    std::env::var("MEMCTL_LLM_MAX_INPUT_CHARS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(model::DEFAULT_MAX_INPUT_CHARS)
}

/// The model's plan for `records`: one call when they fit in the input
/// limit, else one a batch of related records. `asking` is told before
/// each call which one it is (empty when there is one, else
/// ` (call 2 of 3)`).
pub fn plan(
    command: &str,
    records: &[DreamRecord],
    max_delete_pct: f64,
    now: Timestamp,
    asking: &mut dyn FnMut(&str),
) -> Result<Plan, DreamModelError> {
    let limits = Limits { max_delete_pct };
    let today = now.strftime("%Y-%m-%d").to_string();
    let max_chars = max_input_chars();
    let mut inputs = model::inputs(records, &[], &limits, &today, max_chars)?;
    if inputs.len() > 1 {
        // Too large for one call: keep what the rules find related together.
        let related = model::related_groups(&mddream::gather::gather(records, now), records);
        inputs = model::inputs(records, &related, &limits, &today, max_chars)?;
    }
    let timeout = model_cmd::timeout_from_env();
    let mut plans = Vec::with_capacity(inputs.len());
    for (n, input) in inputs.iter().enumerate() {
        let call = if inputs.len() == 1 {
            String::new()
        } else {
            format!(" (call {} of {})", n + 1, inputs.len())
        };
        asking(&call);
        let output = model_cmd::run(command, input.as_bytes(), timeout)?;
        let answer = match crate::model_answer::unwrapped(&output) {
            Ok(answer) => answer,
            Err(why) => return Err(DreamModelError::Wrapped { call, why }),
        };
        let plan = model::parse_answer(&answer)
            .map_err(|error| DreamModelError::Answer { call, error })?;
        plans.push(plan);
    }
    Ok(model::combine(plans))
}
