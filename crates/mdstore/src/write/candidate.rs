//! A proposed record and the checks that need nothing but the candidate
//! itself: run before anything else, so that bad input never reaches the disk
//! (SPEC §2, §6).

use serde_json::{Map, Value};

use crate::guard::secrets::quoted_or_hidden;
use crate::invisible::{FormatKind, first_hidden_format_char};
use crate::record::{RecordType, Source};

/// A proposed record, from the command line or an agent's JSON.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub record_type: Option<RecordType>,
    pub description: Option<String>,
    pub body: Option<String>,
    pub source: Option<Source>,
    pub expires: Option<String>,
    pub tags: Vec<String>,
    /// `workspace` or `global`; the CLI routes candidates by it.
    pub scope: Option<String>,
}

/// A part of a candidate, named as a person would look for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Name,
    Type,
    Description,
    Body,
    Source,
    Expires,
    Tags,
    Scope,
}

impl Field {
    /// The key of this field in a JSON candidate (and the flag, with `--`).
    pub fn key(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Type => "type",
            Field::Description => "description",
            Field::Body => "body",
            Field::Source => "source",
            Field::Expires => "expires",
            Field::Tags => "tags",
            Field::Scope => "scope",
        }
    }

    /// The field as a message names one value of it.
    fn noun(self) -> &'static str {
        match self {
            Field::Tags => "tag",
            other => other.key(),
        }
    }

    const ALL: [Field; 8] = [
        Field::Name,
        Field::Type,
        Field::Description,
        Field::Body,
        Field::Source,
        Field::Expires,
        Field::Tags,
        Field::Scope,
    ];
}

/// Why one candidate of an agent's JSON cannot even be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CandidateJsonError {
    #[error("not a JSON object")]
    NotAnObject,
    #[error("needs a {:?} field", .0.key())]
    Missing(Field),
    #[error(
        "unknown field {}: expected name, type, description, body, scope, source, expires or tags",
        quoted_or_hidden(.0)
    )]
    UnknownField(String),
    #[error("the {:?} field must be {expected}", .field.key())]
    WrongType {
        field: Field,
        expected: &'static str,
    },
    #[error("the {:?} field: unknown {} {}: expected {expected}", .field.key(), .field.key(), quoted_or_hidden(.value))]
    UnknownValue {
        field: Field,
        value: String,
        expected: &'static str,
    },
}

/// A candidate from one element of an agent's JSON array, field by field so
/// that an error names the field (SPEC §6). `null` is the same as absent.
pub fn candidate_from_json(value: &Value) -> Result<Candidate, CandidateJsonError> {
    let Value::Object(map) = value else {
        return Err(CandidateJsonError::NotAnObject);
    };
    if let Some(unknown) = map
        .keys()
        .find(|key| !Field::ALL.iter().any(|f| f.key() == key.as_str()))
    {
        return Err(CandidateJsonError::UnknownField(unknown.clone()));
    }
    let record_type = json_text(map, Field::Type)?
        .map(|t| {
            RecordType::parse(&t).ok_or(CandidateJsonError::UnknownValue {
                field: Field::Type,
                value: t,
                expected: "user, feedback, project or reference",
            })
        })
        .transpose()?;
    let source = json_text(map, Field::Source)?
        .map(|s| {
            Source::parse(&s).ok_or(CandidateJsonError::UnknownValue {
                field: Field::Source,
                value: s,
                expected: "user, verified or inferred",
            })
        })
        .transpose()?;
    Ok(Candidate {
        name: json_text(map, Field::Name)?.ok_or(CandidateJsonError::Missing(Field::Name))?,
        record_type,
        description: json_text(map, Field::Description)?,
        body: json_text(map, Field::Body)?,
        source,
        expires: json_text(map, Field::Expires)?,
        tags: json_tags(map)?,
        scope: json_text(map, Field::Scope)?,
    })
}

/// `candidate` as [`candidate_from_json`] reads it back, field for field:
/// how a candidate is kept while it waits for a person (`memctl review`).
/// Absent fields are left out.
pub fn candidate_to_json(candidate: &Candidate) -> Value {
    let mut map = Map::new();
    map.insert(Field::Name.key().into(), candidate.name.clone().into());
    let texts = [
        (
            Field::Type,
            candidate.record_type.map(|t| t.as_str().to_string()),
        ),
        (Field::Description, candidate.description.clone()),
        (Field::Body, candidate.body.clone()),
        (
            Field::Source,
            candidate.source.map(|s| s.as_str().to_string()),
        ),
        (Field::Expires, candidate.expires.clone()),
        (Field::Scope, candidate.scope.clone()),
    ];
    for (field, text) in texts {
        if let Some(text) = text {
            map.insert(field.key().into(), text.into());
        }
    }
    if !candidate.tags.is_empty() {
        map.insert(Field::Tags.key().into(), candidate.tags.clone().into());
    }
    Value::Object(map)
}

/// The `name` of a JSON candidate, for messages about one that cannot be read.
pub fn json_name(value: &Value) -> Option<&str> {
    value.get(Field::Name.key()).and_then(Value::as_str)
}

fn json_text(map: &Map<String, Value>, field: Field) -> Result<Option<String>, CandidateJsonError> {
    match map.get(field.key()) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(CandidateJsonError::WrongType {
            field,
            expected: "a string",
        }),
    }
}

fn json_tags(map: &Map<String, Value>) -> Result<Vec<String>, CandidateJsonError> {
    let wrong = CandidateJsonError::WrongType {
        field: Field::Tags,
        expected: "a list of strings",
    };
    match map.get(Field::Tags.key()) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_string).ok_or(wrong.clone()))
            .collect(),
        Some(_) => Err(wrong),
    }
}

/// Text a candidate may not hold (SPEC §2): where, and which character.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error("a new record needs a {}", .0.key())]
    Missing(Field),
    #[error("the {} holds the control character U+{code:04X}{}; memory text may not hold control characters", .field.noun(), .line.map(|l| format!(" on line {l}")).unwrap_or_default())]
    ControlCharacter {
        field: Field,
        code: u32,
        line: Option<usize>,
    },
    #[error("the {} holds U+{code:04X}{}, {}; memory text may not hold bidi controls or invisible format characters", .field.noun(), .line.map(|l| format!(" on line {l}")).unwrap_or_default(), .kind.describe())]
    FormatCharacter {
        field: Field,
        code: u32,
        kind: FormatKind,
        line: Option<usize>,
    },
    #[error("tag {0} is empty")]
    EmptyTag(usize),
    #[error(
        "the description {} says nothing: it is the line MEMORY.md and search results show for the record; say what it is about",
        quoted_or_hidden(.0)
    )]
    PlaceholderDescription(String),
    #[error("invalid expires {}: expected a date (2026-12-31) or an RFC 3339 time", quoted_or_hidden(.0))]
    Expires(String),
}

/// A description that stands for one not yet written: no letter or digit
/// at all ("…", "...", "-"), or a word that says so ("TODO", "TBD").
pub fn is_placeholder_description(description: &str) -> bool {
    let text = description.trim();
    !text.is_empty()
        && (!text.chars().any(char::is_alphanumeric)
            || ["todo", "tbd", "fixme", "xxx", "placeholder", "description"].contains(
                &text
                    .trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
                    .as_str(),
            ))
}

/// Everything about `candidate` that can be judged without the store. The
/// name has its own rules (control characters included): `id::normalize_name`.
pub fn check_candidate(candidate: &Candidate) -> Result<(), InputError> {
    if let Some(description) = &candidate.description {
        refuse_control(Field::Description, description, false)?;
    }
    for (n, tag) in candidate.tags.iter().enumerate() {
        refuse_control(Field::Tags, tag, false)?;
        if tag.trim().is_empty() {
            return Err(InputError::EmptyTag(n + 1));
        }
    }
    if let Some(body) = &candidate.body {
        refuse_control(Field::Body, body, true)?;
    }
    if let Some(expires) = &candidate.expires {
        refuse_control(Field::Expires, expires, false)?;
        if crate::expiry::Expiry::parse(expires).is_none() {
            return Err(InputError::Expires(expires.clone()));
        }
    }
    Ok(())
}

/// Control characters (C0, DEL, C1) are refused, and so are bidi controls
/// and invisible format characters (`invisible`), in every field: a body
/// too, where they would hide code from the person who reads it. A body
/// keeps its line breaks and tabs, which are text there, and its error says
/// on which line.
fn refuse_control(field: Field, text: &str, is_body: bool) -> Result<(), InputError> {
    let allowed = |c: char| is_body && matches!(c, '\t' | '\n' | '\r');
    let line_of = |offset: usize| is_body.then(|| text[..offset].matches('\n').count() + 1);
    if let Some((offset, bad)) = text
        .char_indices()
        .find(|&(_, c)| c.is_control() && !allowed(c))
    {
        return Err(InputError::ControlCharacter {
            field,
            code: u32::from(bad),
            line: line_of(offset),
        });
    }
    match first_hidden_format_char(text) {
        Some((offset, bad, kind)) => Err(InputError::FormatCharacter {
            field,
            code: u32::from(bad),
            kind,
            line: line_of(offset),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate() -> Candidate {
        Candidate {
            name: "nb".into(),
            description: Some("d".into()),
            body: Some("b".into()),
            record_type: Some(RecordType::Project),
            ..Candidate::default()
        }
    }

    #[test]
    fn nul_byte_in_body_is_refused_naming_the_line() {
        let c = Candidate {
            body: Some("first\na\0b".into()),
            ..candidate()
        };
        assert_eq!(
            check_candidate(&c),
            Err(InputError::ControlCharacter {
                field: Field::Body,
                code: 0,
                line: Some(2)
            })
        );
    }

    #[test]
    fn terminal_escapes_in_description_and_tags_are_refused() {
        for (c, field) in [
            (
                Candidate {
                    description: Some("\x1b]0;TITLE\x07".into()),
                    ..candidate()
                },
                Field::Description,
            ),
            (
                Candidate {
                    tags: vec!["a\nb".into()],
                    ..candidate()
                },
                Field::Tags,
            ),
            (
                Candidate {
                    description: Some("c1 \u{9b} here".into()),
                    ..candidate()
                },
                Field::Description,
            ),
        ] {
            assert!(
                matches!(check_candidate(&c), Err(InputError::ControlCharacter { field: f, .. }) if f == field),
                "{c:?}"
            );
        }
    }

    #[test]
    fn bidi_controls_and_invisible_characters_are_refused_in_every_field() {
        let cases = [
            (
                Candidate {
                    description: Some("safe \u{202E}txt.exe".into()),
                    ..candidate()
                },
                Field::Description,
                0x202E,
                None,
            ),
            (
                Candidate {
                    tags: vec!["ok".into(), "ad\u{200B}min".into()],
                    ..candidate()
                },
                Field::Tags,
                0x200B,
                None,
            ),
            (
                Candidate {
                    body: Some("fine\nif x \u{2066}&& y\u{2069}\n".into()),
                    ..candidate()
                },
                Field::Body,
                0x2066,
                Some(2),
            ),
        ];
        for (c, field, code, line) in cases {
            match check_candidate(&c) {
                Err(InputError::FormatCharacter {
                    field: f,
                    code: k,
                    line: l,
                    ..
                }) => assert_eq!((f, k, l), (field, code, line), "{c:?}"),
                other => panic!("{c:?}: {other:?}"),
            }
        }
        let message = check_candidate(&cases_description_rlo())
            .unwrap_err()
            .to_string();
        assert_eq!(
            message,
            "the description holds U+202E, a bidi control (it makes text show in another order than it is read); memory text may not hold bidi controls or invisible format characters"
        );
    }

    fn cases_description_rlo() -> Candidate {
        Candidate {
            description: Some("\u{202E}".into()),
            ..candidate()
        }
    }

    #[test]
    fn emoji_and_persian_joiners_are_text() {
        let c = Candidate {
            description: Some("می\u{200C}خواهم 👨\u{200D}👩".into()),
            ..candidate()
        };
        assert_eq!(check_candidate(&c), Ok(()));
    }

    #[test]
    fn tab_and_crlf_in_a_body_are_text() {
        let c = Candidate {
            body: Some("a\tb\r\nc\n".into()),
            ..candidate()
        };
        assert_eq!(check_candidate(&c), Ok(()));
    }

    #[test]
    fn empty_tag_is_refused() {
        let c = Candidate {
            tags: vec!["ok".into(), " ".into()],
            ..candidate()
        };
        assert_eq!(check_candidate(&c), Err(InputError::EmptyTag(2)));
    }

    #[test]
    fn json_candidate_errors_name_the_field() {
        let bad_type = serde_json::json!({"name": "x", "type": "bogus"});
        assert!(matches!(
            candidate_from_json(&bad_type),
            Err(CandidateJsonError::UnknownValue {
                field: Field::Type,
                ..
            })
        ));
        let tags = serde_json::json!({"name": "x", "tags": "one"});
        assert!(matches!(
            candidate_from_json(&tags),
            Err(CandidateJsonError::WrongType {
                field: Field::Tags,
                ..
            })
        ));
        let extra = serde_json::json!({"name": "x", "title": "t"});
        assert_eq!(
            candidate_from_json(&extra),
            Err(CandidateJsonError::UnknownField("title".into()))
        );
        let nulls = serde_json::json!({"name": "x", "tags": null, "source": null});
        assert_eq!(
            candidate_from_json(&nulls).unwrap().tags,
            Vec::<String>::new()
        );
    }

    #[test]
    fn json_field_errors_echo_no_secret() {
        let key = "AKIAQWERTYUIOPASDFGH";
        let mut messages = vec![
            InputError::Expires(key.into()).to_string(),
            CandidateJsonError::UnknownField(key.into()).to_string(),
        ];
        for field in ["source", "type"] {
            let value = serde_json::json!({"name": "x", field: key});
            messages.push(candidate_from_json(&value).unwrap_err().to_string());
        }
        for message in messages {
            assert!(!message.contains(key), "{message}");
            assert!(message.contains("(rule aws-access-key-id)"), "{message}");
        }
        assert!(
            InputError::Expires("soon".into())
                .to_string()
                .contains("\"soon\"")
        );
    }

    #[test]
    fn json_candidate_without_name_needs_a_name_field() {
        let err = candidate_from_json(&serde_json::json!({"description": "d"})).unwrap_err();
        assert_eq!(err.to_string(), "needs a \"name\" field");
    }
}
