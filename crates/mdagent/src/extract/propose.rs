//! The model's part of extract as one call: the request sent to the user's
//! model command, its answer read, the proposals turned into candidates
//! (the provenance rule checked), whose words each candidate is, and each
//! that repeats a record of its store proposed under that record's name.
//! What is done with them (saved through `remember`, or kept for `memctl
//! review`) is the caller's.

use std::time::Duration;

use mdstore::write::Candidate;

use super::origin::{Judged, Speakers};
use super::request::Request;
use super::transcript::Conversation;
use super::{answer, candidates};
use crate::Config;
use crate::model::cmd::{self as model_cmd, ModelCmdError};
use crate::model::source::ModelCommand;
use crate::remember::Parsed;
use crate::repeats::{self, Retargeted};
use crate::stores;

/// What the model proposed, each list in the order of its proposals.
#[derive(Debug)]
pub struct Proposed {
    /// A candidate as `remember` takes it, or why it is dropped or refused.
    pub parsed: Vec<Parsed>,
    /// Whose words each readable candidate is.
    pub origins: Vec<Option<Judged>>,
    /// The record each candidate repeats, when it does.
    pub retargeted: Vec<Option<Retargeted>>,
}

/// Why the model gave no proposals; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ProposeError {
    #[error(transparent)]
    Model(ModelCmdError),
    /// The answer is not SPEC §8's shape ([`answer::ANSWER_SHAPE`]).
    #[error("the model command's answer cannot be read: {0}")]
    Answer(String),
}

/// Asks `model` about `conversation` with `request` (waiting at most
/// `timeout`) and reads its proposals. The stores a candidate may repeat
/// are those `config` reads; none readable, nothing is repeated.
pub fn propose(
    config: &Config,
    conversation: &Conversation,
    request: &Request,
    model: &ModelCommand,
    timeout: Duration,
) -> Result<Proposed, ProposeError> {
    let reply = model_cmd::run(&model.line, request.json.as_bytes(), timeout)
        .map_err(ProposeError::Model)?;
    let proposals = answer::parse(&reply).map_err(ProposeError::Answer)?;
    let mut parsed = candidates(&proposals, conversation);
    // Judged on the model's wording, before a repeat renames a candidate.
    let speakers = Speakers::of(conversation);
    let origins = parsed
        .iter()
        .map(|p| p.as_ref().ok().map(|c| speakers.judge(&candidate_text(c))))
        .collect();
    let stores_now = stores::read_stores(config).unwrap_or_default();
    let retargeted = repeats::retarget(&stores_now, stores::default_scope(config), &mut parsed);
    Ok(Proposed {
        parsed,
        origins,
        retargeted,
    })
}

/// A candidate's description and body, as its origin is judged.
fn candidate_text(candidate: &Candidate) -> String {
    format!(
        "{}\n{}",
        candidate.description.as_deref().unwrap_or_default(),
        candidate.body.as_deref().unwrap_or_default()
    )
}
