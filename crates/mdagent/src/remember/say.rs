//! What is said about a candidate for `remember`, the same to a person (the
//! CLI) and to an agent (the MCP server): a candidate that cannot be one,
//! a planning error, and why a guard refused it. Only the hints, which
//! name what each face can do, are the faces' own.

use mdstore::guard::secrets::{SecretFinding, secret_note};
use mdstore::write::{Field, InputError, Place, Placed, PlanError, Refusal};

/// A candidate, or why it cannot be one (a message naming it and the field).
pub type Parsed = Result<mdstore::write::Candidate, Unreadable>;

/// A candidate that could not be read: its name, if it has one, and why.
#[derive(Clone, Debug)]
pub struct Unreadable {
    pub name: String,
    pub message: String,
    /// Set aside on purpose rather than refused (reported, not an error).
    pub dropped: bool,
}

/// The most characters of a candidate's name a message shows.
const MESSAGE_NAME_CHARS: usize = 60;

/// `candidate 2 ("prefer-pytest")`: the 1-based index, and the name if any.
pub fn label_candidate(n: usize, name: Option<&str>) -> String {
    match name.filter(|name| !name.is_empty()) {
        // Checked whole: a secret cut short may no longer look like one.
        Some(name) => match secret_note(name) {
            Some(note) => format!("candidate {} ({note})", n + 1),
            None => format!(
                "candidate {} (\"{}\")",
                n + 1,
                mdstore::escape::for_message(name, MESSAGE_NAME_CHARS)
            ),
        },
        None => format!("candidate {}", n + 1),
    }
}

/// A planning error as the one who gave the candidate would put it: the
/// flag on the command line, the field in JSON.
pub fn describe_plan_error(error: &PlanError, from_json: bool) -> String {
    match error {
        PlanError::Input(InputError::Missing(field)) => match (from_json, field) {
            (true, field) => format!("a new record needs a {:?} field", field.key()),
            (false, Field::Body) => {
                "a new record needs --body (text, or - for standard input)".to_string()
            }
            (false, field) => format!("a new record needs --{}", field.key()),
        },
        other => other.to_string(),
    }
}

/// `text` with `name`, when it holds a secret, replaced by a note of it:
/// SPEC §6 forbids echoing a secret, even as the name it came under.
pub fn hide_secret_name(name: &str, text: &str) -> String {
    match secret_note(name) {
        Some(note) if !name.is_empty() => text.replace(name, &note),
        _ => text.to_string(),
    }
}

/// Why a guard refused the candidate whose id is `id`: never the secret,
/// and not the id when the name holds it (the id is made of the name).
pub fn refusal_message(refusal: &Refusal, id: &str) -> String {
    match refusal {
        Refusal::Secret(found) => secret_refusal(found, id),
        Refusal::Temporary(found) => format!(
            "{id} reads as temporary ({}); memory is for what stays true",
            found
                .iter()
                .map(|f| format!("{:?} {}", f.finding.phrase, f.place))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Refusal::Tombstone(tomb) => format!(
            "{} was forgotten on {}{}",
            tomb.id,
            tomb.forgotten_at.strftime("%Y-%m-%d %H:%M UTC"),
            tomb.reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        ),
        Refusal::LowerTrust { existing, proposed } => format!(
            "{id} has source {existing}; a proposal with source {proposed} cannot overwrite it"
        ),
        Refusal::RevisionMismatch { expected, actual } => match actual {
            Some(actual) => {
                format!("{id} is at revision {actual}, not {expected}; nothing was written")
            }
            None => format!(
                "{id} does not exist, so it is not at revision {expected}; nothing was written"
            ),
        },
    }
}

/// Why a candidate holding a secret is refused: the rules and where they
/// matched.
fn secret_refusal(found: &[Placed<SecretFinding>], id: &str) -> String {
    format!(
        "{} looks like it holds a secret ({}); memory is not a place for secrets",
        if found.iter().any(|f| f.place == Place::Name) {
            "this candidate"
        } else {
            id
        },
        found
            .iter()
            .map(|f| format!("rule {} {}", f.finding.rule, f.place))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The hint both faces give for a secret: where it should live instead.
pub const SECRET_HINT: &str =
    "remove the secret and say where it lives instead (a vault, an env var)";
