//! `memctl extract`: a finished session's user and assistant text goes to
//! the user's model command, whose candidates go through `remember
//! --from-json` with every guard of SPEC §6 (SPEC §8). memctl proposes
//! nothing itself: without a model command there is nothing to extract.
//! Reading the session, the request and the answer are `mdagent::extract`'s.

use mdagent::Config;
use mdagent::extract::{self, answer, request, transcript};
use mdagent::model_cmd::{self, ModelCmdError};
use mdagent::stores;

use crate::cli::ExtractArgs;
use crate::cmd::remember::{self, Batch};
use crate::failure::{self, Exit, Failure};
use crate::ui::{self, Ui};

const LLM_CMD_EXAMPLE: &str = "memctl extract --transcript ~/.claude/projects/<project>/<session>.jsonl --llm-cmd 'claude -p'";

pub fn run(config: &Config, ui: &Ui, args: ExtractArgs) -> anyhow::Result<Exit> {
    let Some(llm_cmd) = args.llm_cmd.as_deref() else {
        return Err(Failure::bad_input(
            "extract needs a model command to propose candidates (--llm-cmd CMD); memctl does not invent memory",
        )
        .with_hint(format!(
            "any command that reads JSON on stdin and prints a JSON array works: {LLM_CMD_EXAMPLE}"
        ))
        .into());
    };
    // Asking the model costs time and money: not when nothing could be saved.
    if !(args.yes || args.dry_run || ui.interactive) {
        return Err(Failure::new(
            Exit::NotConfirmed,
            "nothing extracted: there is no terminal to confirm on",
        )
        .with_hint("pass --yes to save without asking, or --dry-run to only see the plan")
        .into());
    }
    // Nor when there is no store to write to (and no git root to make one at).
    stores::write_target(config, stores::default_scope(config))?;
    let conversation = transcript::read(&args.transcript)?;
    let shown = ui::shown_path(&args.transcript);
    if conversation.messages.is_empty() {
        ui.note(&format!(
            "{shown} holds no user or assistant text; nothing to extract."
        ));
        if args.json {
            ui::print_json(&serde_json::json!([]))?;
        }
        return Ok(Exit::Ok);
    }
    let request = request::request(&conversation);
    let reply = model_cmd::run(llm_cmd, request.as_bytes(), model_cmd::timeout_from_env())
        .map_err(model_failure)?;
    let proposals = answer::parse(&reply).map_err(|reason| {
        Failure::bad_input(format!(
            "the model command's answer cannot be read: {reason}; nothing was written"
        ))
        .with_hint(answer::ANSWER_SHAPE)
    })?;
    let parsed = extract::candidates(&proposals, &conversation);
    if parsed.is_empty() {
        ui.note("The model proposed no candidates; nothing to remember.");
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
    Ok(exit)
}

fn model_failure(error: ModelCmdError) -> Failure {
    let exit = failure::exit_of(error.kind());
    let message = format!("{error}; nothing was written");
    match error {
        ModelCmdError::Empty | ModelCmdError::Unsplittable(_) | ModelCmdError::Spawn { .. } => {
            Failure::new(exit, format!("--llm-cmd: {message}"))
                .with_hint(format!("give a command on your PATH: {LLM_CMD_EXAMPLE}"))
        }
        ModelCmdError::TooLarge | ModelCmdError::NotUtf8 => {
            Failure::new(exit, message).with_hint(answer::ANSWER_SHAPE)
        }
        ModelCmdError::Timeout(_) => {
            Failure::new(exit, message).with_hint("set MEMCTL_LLM_TIMEOUT_SECS to wait longer")
        }
        ModelCmdError::Failed(_) | ModelCmdError::Io(_) => Failure::new(exit, message)
            .with_hint("its own error output is above; run it by hand to see why"),
    }
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
