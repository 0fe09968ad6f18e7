//! A record's `name` beside its file name and the other records' (SPEC §2).
//!
//! The file is the id; `name` is what the file calls itself. memctl writes
//! the id there, but Claude Code writes a slug of its own
//! (`agent-model-inherit` in `feedback_agent_model_inherit.md`) or a title
//! (`Team Setup` in `project_team_setup.md`). Neither is a problem, since
//! the file name wins. Two records that answer to one name, or to names
//! that look alike, are.

use std::collections::HashMap;
use std::path::PathBuf;

use unicode_security::skeleton;

use super::Finding;
use crate::catalog::disk::quoted;
use crate::id::id_key;
use crate::record::{RecordType, Severity};

/// What the name rules need of one record.
#[derive(Clone, Debug)]
pub struct NamedRecord {
    pub id: String,
    pub rel_path: PathBuf,
    /// The `name` key as written, if any.
    pub written_name: Option<String>,
}

/// What [`judge`] found: the collisions, and the records whose `name` is a
/// label other than their file name (shown as one count, not as problems).
#[derive(Clone, Debug, Default)]
pub struct Names {
    pub findings: Vec<Finding>,
    pub labelled: Vec<PathBuf>,
}

/// A name as a key: case and Unicode forms folded as ids are ([`id_key`]),
/// `_` and white space read as `-`, runs of `-` as one.
fn name_key(name: &str) -> String {
    let folded: String = id_key(name.trim())
        .chars()
        .map(|c| {
            if c == '_' || c.is_whitespace() {
                '-'
            } else {
                c
            }
        })
        .collect();
    folded
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// `key` without a leading type word: Claude Code names the file
/// `feedback_x.md` and the memory `x`, or the other way round.
fn without_type_prefix(key: &str) -> &str {
    RecordType::ALL
        .iter()
        .find_map(|t| {
            key.strip_prefix(t.as_str())
                .and_then(|rest| rest.strip_prefix('-'))
        })
        .filter(|rest| !rest.is_empty())
        .unwrap_or(key)
}

/// Whether `name` is the file's stem written another way: only case, `_`,
/// `-` and spaces differ, or a type word before it (`feedback_x` and
/// `x`). Such a name is said nothing about.
pub fn fits_file(name: &str, stem: &str) -> bool {
    let (name, stem) = (name_key(name), name_key(stem));
    name == stem || without_type_prefix(&name) == without_type_prefix(&stem)
}

/// Two keys that look alike to a reader (UTS #39's confusable skeleton, which
/// also drops invisible characters) compare equal here.
fn look_alike_key(key: &str) -> String {
    skeleton(key).collect()
}

/// One name a record answers to: its id, or the name it writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Id,
    Name,
}

impl Kind {
    fn noun(self) -> &'static str {
        match self {
            Kind::Id => "the id",
            Kind::Name => "the `name`",
        }
    }
}

/// The names of every record judged together: a written `name` that is
/// also, or looks like, another record's id or `name` is an error on the
/// record that writes it; an id that looks like another id (but is not the
/// same one folded, which `check` reports already) is an error on both.
pub fn judge(records: &[NamedRecord]) -> Names {
    // Each record's keys: its id, and its name when that is not the id.
    let mut keys: Vec<Vec<(Kind, String)>> = Vec::with_capacity(records.len());
    let mut by_look: HashMap<String, Vec<(usize, Kind)>> = HashMap::new();
    for (index, record) in records.iter().enumerate() {
        let id = name_key(&record.id);
        let mut own = vec![(Kind::Id, id.clone())];
        if let Some(name) = record.written_name.as_deref().map(name_key)
            && !name.is_empty()
            && name != id
        {
            own.push((Kind::Name, name));
        }
        for (kind, key) in &own {
            by_look
                .entry(look_alike_key(key))
                .or_default()
                .push((index, *kind));
        }
        keys.push(own);
    }
    let mut names = Names::default();
    for (index, record) in records.iter().enumerate() {
        if let Some(finding) = clash(records, &keys, &by_look, index) {
            names.findings.push(finding);
            continue;
        }
        let stem = record.id.rsplit('/').next().unwrap_or(&record.id);
        if let Some(name) = &record.written_name
            && !name_key(name).is_empty()
            && !fits_file(name, stem)
        {
            names.labelled.push(record.rel_path.clone());
        }
    }
    names
}

/// The first other record that answers to one of `index`'s names.
fn clash(
    records: &[NamedRecord],
    keys: &[Vec<(Kind, String)>],
    by_look: &HashMap<String, Vec<(usize, Kind)>>,
    index: usize,
) -> Option<Finding> {
    let record = &records[index];
    for (kind, key) in &keys[index] {
        let Some(group) = by_look.get(&look_alike_key(key)) else {
            continue;
        };
        for &(other, other_kind) in group {
            // An id another record's `name` claims: that record is told.
            if other == index || (*kind == Kind::Id && other_kind == Kind::Name) {
                continue;
            }
            let other_key = keys[other]
                .iter()
                .find(|(k, _)| *k == other_kind)
                .map(|(_, key)| key.as_str())
                .unwrap_or_default();
            let same = other_key == key;
            // Ids equal once folded are `check`'s id collisions already.
            if *kind == Kind::Id
                && other_kind == Kind::Id
                && id_key(&record.id) == id_key(&records[other].id)
            {
                continue;
            }
            return Some(clash_finding(
                record,
                *kind,
                same,
                &records[other],
                other_kind,
            ));
        }
    }
    None
}

fn clash_finding(
    record: &NamedRecord,
    kind: Kind,
    same: bool,
    other: &NamedRecord,
    other_kind: Kind,
) -> Finding {
    let ours = match kind {
        Kind::Id => format!("the id {}", quoted(&record.id)),
        Kind::Name => format!(
            "`name` {}",
            quoted(record.written_name.as_deref().unwrap_or_default())
        ),
    };
    let relation = if same {
        "is also"
    } else {
        "looks like (Unicode confusables)"
    };
    Finding {
        rel_path: record.rel_path.clone(),
        line: None,
        severity: Severity::Error,
        message: format!(
            "{ours} {relation} {} of {}: two records answer to one name; rename one",
            other_kind.noun(),
            other.rel_path.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use rstest::rstest;

    use super::*;

    fn record(id: &str, name: Option<&str>) -> NamedRecord {
        NamedRecord {
            id: id.to_string(),
            rel_path: PathBuf::from(format!("{id}.md")),
            written_name: name.map(str::to_string),
        }
    }

    #[rstest]
    #[case("agent-model-inherit", "feedback_agent_model_inherit")]
    #[case("feedback-cursor-lock-mechanism", "feedback_cursor_lock_mechanism")]
    #[case("idle_notification_silence", "feedback_idle_notification_silence")]
    #[case("Team Setup", "project_team_setup")]
    #[case("Prefer-Pytest", "prefer-pytest")]
    #[case("ｆｏｏ", "foo")]
    #[case("feedback", "feedback")]
    fn names_written_claude_codes_way_fit_their_file(#[case] name: &str, #[case] stem: &str) {
        assert!(fits_file(name, stem), "{name} / {stem}");
    }

    #[rstest]
    #[case("User profile — project lead", "user_role")]
    #[case("feedback-devs-default-fable", "feedback_devs_default_opus")]
    #[case("other", "misnamed")]
    #[case("feedback", "project_x")]
    fn other_names_do_not_fit(#[case] name: &str, #[case] stem: &str) {
        assert!(!fits_file(name, stem), "{name} / {stem}");
    }

    #[test]
    fn labels_are_counted_and_fitting_names_are_not() {
        let names = judge(&[
            record("feedback_x", Some("x")),
            record("user_role", Some("User profile")),
            record("plain", None),
        ]);
        assert_eq!(names.findings, vec![]);
        assert_eq!(names.labelled, vec![PathBuf::from("user_role.md")]);
    }

    /// A record whose `name` is another record's id: an agent reading the
    /// files, or a person, takes one for the other.
    #[test]
    fn a_name_that_is_another_records_id_is_an_error_on_the_one_writing_it() {
        let names = judge(&[
            record("prefer-pytest", Some("prefer-pytest")),
            record("evil", Some("Prefer_Pytest")),
        ]);
        assert_eq!(names.findings.len(), 1, "{:?}", names.findings);
        assert_eq!(names.findings[0].rel_path, PathBuf::from("evil.md"));
        assert_eq!(
            names.findings[0].message,
            "`name` \"Prefer_Pytest\" is also the id of prefer-pytest.md: two records answer to one name; rename one"
        );
    }

    #[test]
    fn two_records_with_one_name_are_both_reported() {
        let names = judge(&[
            record("feedback_testing", Some("Testing")),
            record("project_testing", Some("testing")),
        ]);
        let paths: Vec<_> = names.findings.iter().map(|f| f.rel_path.clone()).collect();
        assert_eq!(
            paths,
            vec![
                PathBuf::from("feedback_testing.md"),
                PathBuf::from("project_testing.md")
            ]
        );
    }

    #[test]
    fn look_alike_names_and_ids_are_reported() {
        // A Cyrillic `а`, and a zero-width space.
        let names = judge(&[
            record("paypal", None),
            record("evil", Some("p\u{430}ypal")),
            record("p\u{200b}aypal", None),
        ]);
        let messages: Vec<_> = names.findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(
            messages.iter().all(|m| m.contains("looks like")),
            "{messages:?}"
        );
    }

    #[test]
    fn ids_the_same_once_folded_are_left_to_the_id_collision_check() {
        let names = judge(&[record("Foo", None), record("foo", None)]);
        assert_eq!(names.findings, vec![]);
    }

    #[test]
    fn a_name_holding_a_secret_is_not_quoted() {
        let key = format!("AKIA{}", "IOSFODNN7EXAMPLE");
        let names = judge(&[record("aws", Some(&key)), record("evil", Some(&key))]);
        assert_eq!(names.findings.len(), 2, "{:?}", names.findings);
        assert!(
            names.findings.iter().all(|f| !f.message.contains(&key)),
            "{:?}",
            names.findings
        );
    }
}
