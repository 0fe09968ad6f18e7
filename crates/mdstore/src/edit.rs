//! Validating and finishing a record edited by hand in `$EDITOR` (SPEC §9):
//! an invalid result is never saved.

use jiff::Timestamp;

use crate::frontmatter::{self, FieldValue};
use crate::guard::secrets;
use crate::record::{Problem, Severity};

/// Everything that keeps an edited text from being saved as record `id`.
pub fn validate(id: &str, text: &str) -> Vec<Problem> {
    let parsed = frontmatter::parse(text);
    let mut problems: Vec<Problem> = parsed
        .problems
        .into_iter()
        .filter(|p| p.severity == Severity::Error)
        .collect();
    match &parsed.frontmatter {
        None => problems.push(Problem::error(
            Some(1),
            "the frontmatter is missing or never closed",
        )),
        Some(fm) if !fm.is_strict() => {
            if !problems.iter().any(|p| p.line.is_some()) {
                problems.push(Problem::error(None, "the frontmatter is not valid YAML"));
            }
        }
        Some(_) => {}
    }
    let leaf = id.rsplit('/').next().unwrap_or(id);
    if parsed.frontmatter.is_some() {
        match parsed.meta.name.as_deref() {
            Some(name) if name != leaf => problems.push(Problem::error(
                None,
                format!("`name` must stay {leaf:?} (rename by remembering under a new name and forgetting this one)"),
            )),
            _ => {}
        }
        if parsed
            .meta
            .description
            .as_deref()
            .is_none_or(|d| d.trim().is_empty())
        {
            problems.push(Problem::error(None, "`description` is missing"));
        }
        if parsed.meta.record_type.is_none() && !problems.iter().any(|p| p.message.contains("type"))
        {
            problems.push(Problem::error(
                None,
                "`type` is missing: user, feedback, project or reference",
            ));
        }
    }
    for finding in secrets::find_secrets(text) {
        problems.push(Problem::error(
            Some(finding.line),
            format!(
                "looks like a secret (rule {}); memory is not a place for secrets",
                finding.rule
            ),
        ));
    }
    problems.sort_by_key(|p| p.line);
    problems.dedup();
    problems
}

/// The text to save: the edit with `updated` set to `now` and `revision` one
/// past `old_revision` (unless the person set a higher one themselves).
pub fn finish(text: &str, old_revision: u64, now: Timestamp) -> String {
    let parsed = frontmatter::parse(text);
    let Some(mut fm) = parsed.frontmatter else {
        return text.to_string();
    };
    let body = text.get(parsed.body_offset..).unwrap_or("");
    let revision = parsed
        .meta
        .revision
        .unwrap_or(0)
        .max(old_revision.saturating_add(1));
    fm.set("updated", FieldValue::Text(now.to_string()));
    fm.set("revision", FieldValue::Integer(revision));
    frontmatter::render(&fm, body)
}
