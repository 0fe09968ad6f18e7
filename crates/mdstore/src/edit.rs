//! Validating and finishing a record edited by hand in `$EDITOR` (SPEC §9):
//! an invalid result is never saved.

use jiff::Timestamp;

use crate::check::names::fits_file;
use crate::frontmatter::{self, FieldValue, ParsedFile};
use crate::guard::secrets;
use crate::record::{Problem, Severity};
use crate::write::{Candidate, Field, InputError, check_candidate};

/// Everything that keeps an edited text from being saved as record `id`;
/// `before` is the file's text when the edit began.
pub fn validate(id: &str, before: &str, text: &str) -> Vec<Problem> {
    let parsed = frontmatter::parse(text);
    let mut problems: Vec<Problem> = parsed
        .problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .cloned()
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
        // A `name` the file already had stays (Claude Code's titles, SPEC
        // §2), and so may one that is the file name written another way;
        // any other looks like a rename, which an edit cannot do.
        let kept = frontmatter::parse(before).meta.name;
        match parsed.meta.name.as_deref() {
            Some(name) if !fits_file(name, leaf) && Some(name) != kept.as_deref() => problems.push(Problem::error(
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
    problems.extend(input_problems(leaf, &parsed, text));
    problems.extend(secret_problems(&parsed, text));
    problems.sort_by_key(|p| p.line);
    problems.dedup();
    problems
}

/// The checks `remember` applies to a candidate (control characters, empty
/// tags), run on the edit's decoded fields and body; and no NUL anywhere,
/// since a file holding one is not read as a record at all.
fn input_problems(leaf: &str, parsed: &ParsedFile, text: &str) -> Vec<Problem> {
    if let Some(offset) = text.find('\0') {
        return vec![Problem::error(
            Some(line_at(text, offset)),
            "holds a NUL byte (U+0000): a file holding one is not a record; remove it",
        )];
    }
    let Some(fm) = &parsed.frontmatter else {
        return Vec::new();
    };
    let candidate = Candidate {
        name: leaf.to_string(),
        description: parsed.meta.description.clone(),
        tags: parsed.meta.tags.clone(),
        body: Some(text.get(parsed.body_offset..).unwrap_or("").to_string()),
        ..Candidate::default()
    };
    let Err(error) = check_candidate(&candidate) else {
        return Vec::new();
    };
    let (line, error) = match error {
        InputError::ControlCharacter {
            field: Field::Body,
            code,
            line,
        } => {
            // The candidate's body lines count from the body's first line.
            let file_line = line.map(|l| line_at(text, parsed.body_offset) + l - 1);
            let error = InputError::ControlCharacter {
                field: Field::Body,
                code,
                line: file_line,
            };
            (file_line, error)
        }
        InputError::ControlCharacter { field, .. } => (fm.key_line(field.key()), error),
        InputError::EmptyTag(_) => (fm.key_line(Field::Tags.key()), error),
        other => (None, other),
    };
    vec![Problem::error(line, error.to_string())]
}

/// Secrets on the raw lines, and those only the decoded frontmatter values
/// show (a YAML escape or an escaped line break hides them from the lines).
fn secret_problems(parsed: &ParsedFile, text: &str) -> Vec<Problem> {
    let raw = secrets::find_secrets(text);
    let mut problems: Vec<Problem> = raw
        .iter()
        .map(|finding| {
            Problem::error(
                Some(finding.line),
                format!(
                    "looks like a secret (rule {}); memory is not a place for secrets",
                    finding.rule
                ),
            )
        })
        .collect();
    if let Some(fm) = &parsed.frontmatter {
        problems.extend(secrets::find_in_frontmatter(fm, &raw).into_iter().map(|found| {
            Problem::error(
                Some(found.line),
                format!(
                    "`{}` looks like a secret once YAML decodes it (rule {}); memory is not a place for secrets",
                    found.key, found.rule
                ),
            )
        }));
    }
    problems
}

/// The 1-based line of byte `offset` in `text`.
fn line_at(text: &str, offset: usize) -> usize {
    text.get(..offset).unwrap_or("").matches('\n').count() + 1
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

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn edited(frontmatter_extra: &str, body: &str) -> String {
        format!(
            "---\nname: deploy\ndescription: How we deploy\ntype: project\n{frontmatter_extra}---\n{body}"
        )
    }

    fn errors(text: &str) -> Vec<(Option<usize>, String)> {
        validate("deploy", &edited("", "Before.\n"), text)
            .into_iter()
            .map(|p| (p.line, p.message))
            .collect()
    }

    /// Issue 6: a YAML escape (`\x41` = `A`) hid an AWS key id from the
    /// raw-line scan, so `edit` saved it.
    #[test]
    fn yaml_escaped_aws_key_in_description_is_refused_by_edit() {
        let text = edited("", "Body.\n").replace(
            "description: How we deploy",
            r#"description: "key \x41KIAQWERTYUIOPASDFGH""#,
        );
        let found = errors(&text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, Some(3));
        assert!(found[0].1.contains("`description`"), "{found:?}");
        assert!(found[0].1.contains("aws-access-key-id"), "{found:?}");
        assert!(!found[0].1.contains("QWERTYUIOP"), "{found:?}");
    }

    /// Issue 6: an escaped line break split `password: hunter2…` over two
    /// raw lines, neither of which looked like a secret.
    #[test]
    fn escaped_line_break_hiding_a_password_is_refused_by_edit() {
        let text = edited("", "Body.\n").replace(
            "description: How we deploy",
            "description: \"password: \\\n  hunter2hunter2\"",
        );
        let found = errors(&text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, Some(3));
        assert!(found[0].1.contains("looks like a secret"), "{found:?}");
        assert!(!found[0].1.contains("hunter2"), "{found:?}");
    }

    /// Issue 6: a tag written with YAML escapes hid a GitHub token.
    #[test]
    fn yaml_escaped_github_token_in_a_tag_is_refused_by_edit() {
        let tag = r#""ghp_\x41\x31b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8""#;
        let found = errors(&edited(&format!("tags: [ok, {tag}]\n"), "Body.\n"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, Some(5));
        assert!(found[0].1.contains("`tags`"), "{found:?}");
        assert!(found[0].1.contains("github"), "{found:?}");
    }

    #[test]
    fn a_secret_on_a_raw_line_is_reported_once_not_again_decoded() {
        let text = edited("", "Body.\n").replace(
            "description: How we deploy",
            "description: key AKIAQWERTYUIOPASDFGH",
        );
        assert_eq!(errors(&text).len(), 1, "{:?}", errors(&text));
    }

    /// Issue 6: an editor that appended a NUL byte left a file that is no
    /// longer read as a record, and `edit` saved it.
    #[test]
    fn nul_byte_appended_by_edit_is_refused() {
        let found = errors(&edited("", "Body.\n\0"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, Some(7));
        assert!(found[0].1.contains("NUL"), "{found:?}");
        let in_frontmatter = errors(&edited("# a\0comment\n", "Body.\n"));
        assert_eq!(in_frontmatter[0].0, Some(5), "{in_frontmatter:?}");
    }

    /// Issue 6: terminal escapes written as YAML escapes reached the
    /// description (and so MEMORY.md) through `edit`.
    #[test]
    fn terminal_escapes_in_an_edited_description_are_refused() {
        let text = edited("", "Body.\n").replace(
            "description: How we deploy",
            r#"description: "d\e[2J\a\x9b""#,
        );
        assert_eq!(
            errors(&text),
            vec![(
                Some(3),
                "the description holds the control character U+001B; memory text may not hold control characters"
                    .to_string()
            )]
        );
    }

    /// Issue 6: empty tags and tags holding control characters, refused by
    /// `remember`, were saved by `edit`.
    #[test]
    fn empty_and_control_character_tags_are_refused_by_edit() {
        for tags in [r#"["", "ok"]"#, r#"["a\nb"]"#, r#"["x\u001b"]"#] {
            let found = errors(&edited(&format!("tags: {tags}\n"), "Body.\n"));
            assert_eq!(found.len(), 1, "{tags}: {found:?}");
            assert_eq!(found[0].0, Some(5), "{tags}: {found:?}");
        }
    }

    #[test]
    fn control_character_in_the_body_names_the_file_line() {
        let found = errors(&edited("", "one\ntwo \x1b[31m\n"));
        assert_eq!(
            found,
            vec![(
                Some(7),
                "the body holds the control character U+001B on line 7; memory text may not hold control characters"
                    .to_string()
            )]
        );
    }

    #[test]
    fn a_clean_edit_with_tabs_and_tags_is_valid() {
        assert_eq!(errors(&edited("tags: [a, b]\n", "a\tb\r\nc\n")), vec![]);
    }
}
