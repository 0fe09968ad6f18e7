//! Extract (SPEC §8): a finished session's user and assistant text goes to
//! the user's model command ([`request`]), and its answer ([`answer`])
//! becomes candidates for `remember`, each checked against what tools
//! returned ([`provenance`]); [`propose`] runs those steps as one call, and
//! [`run`] the whole of `memctl extract` (the candidates saved through
//! `remember`'s batch, or kept for `memctl review`). memctl proposes
//! nothing itself.

pub mod answer;
pub mod codex;
pub mod origin;
pub mod propose;
pub mod provenance;
pub mod request;
pub mod run;
pub mod transcript;

use mdstore::Source;
use mdstore::write::{candidate_from_json, json_name};

use crate::remember::{Parsed, Unreadable, label_candidate};
use answer::Proposal;
use provenance::Provenance;
use transcript::Conversation;

/// The model's proposals as `remember` takes them, in order: each a
/// candidate whose source is always `inferred` (a model proposed it,
/// whatever it claims), or why it is dropped (meant for the current task
/// only) or refused (unreadable, or copied from tool output).
pub fn candidates(proposals: &[Proposal], conversation: &Conversation) -> Vec<Parsed> {
    let provenance = Provenance::new(
        proposals.iter().flat_map(Proposal::texts),
        conversation.messages.iter().map(|m| m.text.as_str()),
        conversation.tool_output.iter().map(String::as_str),
    );
    proposals
        .iter()
        .enumerate()
        .map(|(n, proposal)| candidate(n, proposal, &provenance))
        .collect()
}

fn candidate(n: usize, proposal: &Proposal, provenance: &Provenance) -> Parsed {
    let name = json_name(&proposal.fields).unwrap_or_default().to_string();
    let label = label_candidate(n, Some(&name));
    let unreadable = |message: String, dropped| Unreadable {
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
