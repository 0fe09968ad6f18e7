//! `dream --llm-cmd CMD`: the records go to the model command as JSON (in
//! batches of related records when they do not fit in one call), and each
//! answer is read as a plan of origin `model`. The combined plan then passes
//! the same validation as the rules' plan.

use jiff::Timestamp;
use mddream::model::{self, AnswerError, Limits};
use mddream::plan::Plan;
use mddream::records::DreamRecord;

use crate::cli::DreamArgs;
use crate::failure::{Exit, Failure};
use crate::model_cmd::{self, ModelCmdError};
use crate::ui::Ui;

/// The input limit: `MEMCTL_LLM_MAX_INPUT_CHARS`, else SPEC §7's 200,000.
fn max_input_chars() -> usize {
    std::env::var("MEMCTL_LLM_MAX_INPUT_CHARS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(model::DEFAULT_MAX_INPUT_CHARS)
}

pub fn plan(
    ui: &Ui,
    command: &str,
    records: &[DreamRecord],
    args: &DreamArgs,
    now: Timestamp,
) -> anyhow::Result<Plan> {
    let limits = Limits {
        max_delete_pct: args.max_delete_pct,
    };
    let today = now.strftime("%Y-%m-%d").to_string();
    let max_chars = max_input_chars();
    let too_large = |e: model::TooLarge| {
        Failure::bad_input(format!(
            "--llm-cmd: {e}; nothing was sent and nothing was written"
        ))
        .with_hint(
            "shorten that record, or raise MEMCTL_LLM_MAX_INPUT_CHARS if the model takes more",
        )
    };
    let mut inputs = model::inputs(records, &[], &limits, &today, max_chars).map_err(too_large)?;
    if inputs.len() > 1 {
        // Too large for one call: keep what the rules find related together.
        let related = model::related_groups(&mddream::gather::gather(records, now), records);
        inputs = model::inputs(records, &related, &limits, &today, max_chars).map_err(too_large)?;
    }
    let timeout = model_cmd::timeout_from_env();
    let mut plans = Vec::with_capacity(inputs.len());
    for (n, input) in inputs.iter().enumerate() {
        let call = if inputs.len() == 1 {
            String::new()
        } else {
            format!(" (call {} of {})", n + 1, inputs.len())
        };
        ui.note(&format!("Asking the model command for a plan{call}…"));
        let answer = model_cmd::run(command, input.as_bytes(), timeout).map_err(runner_failure)?;
        plans.push(model::parse_answer(&answer).map_err(|e| bad_answer(&e, &call))?);
    }
    Ok(model::combine(plans))
}

/// A runner that cannot be started is a bad `--llm-cmd` (2); one that fails
/// or hangs is an error of the run (5); an answer too large or not text is
/// bad input (2).
fn runner_failure(err: ModelCmdError) -> anyhow::Error {
    let exit = match err {
        ModelCmdError::Empty
        | ModelCmdError::Unsplittable(_)
        | ModelCmdError::Spawn { .. }
        | ModelCmdError::TooLarge
        | ModelCmdError::NotUtf8 => Exit::BadInput,
        ModelCmdError::Timeout(_) | ModelCmdError::Failed(_) | ModelCmdError::Io(_) => {
            Exit::Internal
        }
    };
    let hint = match err {
        ModelCmdError::Timeout(_) => "MEMCTL_LLM_TIMEOUT_SECS sets how long it may take",
        ModelCmdError::Empty | ModelCmdError::Unsplittable(_) => {
            "give the runner's command line, such as --llm-cmd \"claude -p\""
        }
        _ => "try the command by hand: it must read the input on stdin and print only a JSON plan",
    };
    Failure::new(exit, format!("--llm-cmd: {err}; nothing was written"))
        .with_hint(hint)
        .into()
}

fn bad_answer(err: &AnswerError, call: &str) -> anyhow::Error {
    Failure::bad_input(format!(
        "--llm-cmd: the model's answer{call} was refused: {err}; nothing was written"
    ))
    .with_hint("the runner must print only the JSON plan (see `memctl dream` in the user guide)")
    .into()
}
