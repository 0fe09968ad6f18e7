//! `memctl extract`: a finished session's user and assistant text goes to
//! the user's model command, whose candidates go through `remember
//! --from-json` with every guard of SPEC §6 (SPEC §8). memctl proposes
//! nothing itself: without a model command there is nothing to extract.

mod answer;
mod provenance;
mod transcript;

use mdstore::Source;
use mdstore::guard::secrets::find_secrets;
use mdstore::write::{candidate_from_json, json_name};

use crate::cli::{ExtractArgs, GlobalArgs, RememberArgs};
use crate::cmd::remember::{self, input};
use crate::failure::{Exit, Failure};
use crate::model_cmd::{self, ModelCmdError};
use crate::stores::{self, Scope};
use crate::ui::{self, Ui};
use provenance::Provenance;

/// The most characters of conversation sent to the model: the end of the
/// session, where what was settled usually is.
pub const WINDOW_CHARS: usize = 60_000;

const LLM_CMD_EXAMPLE: &str = "memctl extract --transcript ~/.claude/projects/<project>/<session>.jsonl --llm-cmd 'claude -p'";

pub fn run(global: &GlobalArgs, ui: &Ui, args: ExtractArgs) -> anyhow::Result<Exit> {
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
    let scope = if global.global {
        Scope::Global
    } else {
        Scope::Workspace
    };
    stores::write_target(global, scope)?;
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
    let (window, left_out) = conversation.recent_window(WINDOW_CHARS);
    let window: Vec<transcript::Message> = window.into_iter().map(without_secrets).collect();
    let request = answer::request(&window, left_out);
    let reply = model_cmd::run(llm_cmd, request.as_bytes(), model_cmd::timeout_from_env())
        .map_err(model_failure)?;
    let proposals = answer::parse(&reply).map_err(|reason| {
        Failure::bad_input(format!(
            "the model command's answer cannot be read: {reason}; nothing was written"
        ))
        .with_hint(answer::ANSWER_SHAPE)
    })?;
    let provenance = Provenance::new(
        proposals.iter().flat_map(answer::Proposal::texts),
        conversation.messages.iter().map(|m| m.text.as_str()),
        conversation.tool_output.iter().map(String::as_str),
    );
    let parsed: Vec<input::Parsed> = proposals
        .iter()
        .enumerate()
        .map(|(n, proposal)| candidate(n, proposal, &provenance))
        .collect();
    if parsed.is_empty() {
        ui.note("The model proposed no candidates; nothing to remember.");
    }
    let remember_args = RememberArgs {
        name: None,
        record_type: None,
        description: None,
        source: None,
        expires: None,
        tags: Vec::new(),
        scope: None,
        expect_revision: None,
        force: false,
        yes: args.yes,
        dry_run: args.dry_run,
        commit: args.commit,
        from_json: Some(shown.clone()),
        json: args.json,
        body: None,
    };
    let (exit, statuses) = remember::run_batch(global, ui, &remember_args, parsed)?;
    if !args.json && !statuses.is_empty() {
        ui.note(&summary(&shown, &statuses));
    }
    Ok(exit)
}

/// One proposal as `remember` takes it: a candidate whose source is always
/// `inferred` (a model proposed it, whatever it claims), or why it is
/// dropped (meant for the current task only) or refused (unreadable, or
/// copied from tool output).
fn candidate(n: usize, proposal: &answer::Proposal, provenance: &Provenance) -> input::Parsed {
    let name = json_name(&proposal.fields).unwrap_or_default().to_string();
    let label = input::label_candidate(n, Some(&name));
    let unreadable = |message: String, dropped| input::Unreadable {
        name: name.clone(),
        message,
        dropped,
    };
    if !proposal.persistent {
        return Err(unreadable(
            format!(
                "{label}: dropped: the model marked it current_task (true for that session only)"
            ),
            true,
        ));
    }
    let mut candidate = candidate_from_json(&proposal.fields)
        .map_err(|e| unreadable(format!("{label}: {e}"), false))?;
    if proposal
        .texts()
        .any(|text| provenance.copied_from_tools(text))
    {
        return Err(unreadable(
            format!(
                "{label}: its text comes from tool output (a file, page or command output the agent read), not from the conversation; memory is what the user and the assistant said"
            ),
            false,
        ));
    }
    candidate.source = Some(Source::Inferred);
    Ok(candidate)
}

/// `message` with every line that holds a secret replaced by a note naming
/// the rule: the model command may be another company's service, and a
/// secret the user pasted into the session must not travel further (nor
/// could it be remembered: SPEC §6 refuses it).
fn without_secrets(message: transcript::Message) -> transcript::Message {
    let found = find_secrets(&message.text);
    if found.is_empty() {
        return message;
    }
    let text = message
        .text
        .lines()
        .enumerate()
        .map(|(n, line)| match found.iter().find(|f| f.line == n + 1) {
            Some(f) => format!(
                "<a line hidden from the model: it looks like it holds a secret (rule {})>",
                f.rule
            ),
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    transcript::Message { text, ..message }
}

fn model_failure(error: ModelCmdError) -> Failure {
    let message = format!("{error}; nothing was written");
    match error {
        ModelCmdError::Empty | ModelCmdError::Unsplittable(_) | ModelCmdError::Spawn { .. } => {
            Failure::bad_input(format!("--llm-cmd: {message}"))
                .with_hint(format!("give a command on your PATH: {LLM_CMD_EXAMPLE}"))
        }
        ModelCmdError::TooLarge | ModelCmdError::NotUtf8 => {
            Failure::bad_input(message).with_hint(answer::ANSWER_SHAPE)
        }
        ModelCmdError::Timeout(_) => Failure::new(Exit::Internal, message)
            .with_hint("set MEMCTL_LLM_TIMEOUT_SECS to wait longer"),
        ModelCmdError::Failed(_) | ModelCmdError::Io(_) => Failure::new(Exit::Internal, message)
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
