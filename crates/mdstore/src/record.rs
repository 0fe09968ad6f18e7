//! The typed view of a record: its kind, its trust, its known frontmatter keys.

use std::fmt;
use std::path::PathBuf;

use jiff::Timestamp;

use crate::frontmatter::Frontmatter;

/// What a record is about (SPEC §2). Order of the variants is the order of
/// `MEMORY.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RecordType {
    User,
    Feedback,
    Project,
    Reference,
}

impl RecordType {
    pub const ALL: [RecordType; 4] = [
        RecordType::User,
        RecordType::Feedback,
        RecordType::Project,
        RecordType::Reference,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RecordType::User => "user",
            RecordType::Feedback => "feedback",
            RecordType::Project => "project",
            RecordType::Reference => "reference",
        }
    }

    /// Parses a type name, ignoring case and surrounding space.
    pub fn parse(text: &str) -> Option<RecordType> {
        let text = text.trim();
        RecordType::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(text))
    }
}

impl fmt::Display for RecordType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How far a record can be trusted. `Ord` follows trust: `Inferred < Verified < User`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    Inferred,
    Verified,
    User,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::User => "user",
            Source::Verified => "verified",
            Source::Inferred => "inferred",
        }
    }

    pub fn parse(text: &str) -> Option<Source> {
        [Source::User, Source::Verified, Source::Inferred]
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(text.trim()))
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The known frontmatter keys of SPEC §2, as read (leniently) from a file.
///
/// Every field is optional here because hand-made files may lack any of them;
/// [`crate::check`] reports what a valid record must have.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    pub name: Option<String>,
    pub description: Option<String>,
    pub record_type: Option<RecordType>,
    pub created: Option<Timestamp>,
    pub updated: Option<Timestamp>,
    pub revision: Option<u64>,
    pub source: Option<Source>,
    /// A date (`2026-12-31`) or an RFC 3339 datetime, kept as written.
    pub expires: Option<String>,
    pub tags: Vec<String>,
    pub merged_from: Vec<String>,
}

/// How bad a [`Problem`] is. `check` exits 1 on any of either.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// Something wrong with a file, with the 1-based line it is on when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub severity: Severity,
    pub line: Option<usize>,
    pub message: String,
}

impl Problem {
    pub fn error(line: Option<usize>, message: impl Into<String>) -> Problem {
        Problem {
            severity: Severity::Error,
            line,
            message: message.into(),
        }
    }

    pub fn warning(line: Option<usize>, message: impl Into<String>) -> Problem {
        Problem {
            severity: Severity::Warning,
            line,
            message: message.into(),
        }
    }
}

/// A whole record read from disk: where it lives, what it says, and what is
/// wrong with it.
#[derive(Clone, Debug)]
pub struct Record {
    /// The file stem relative to the store root, `/`-separated (`team/ci-cache`).
    pub id: String,
    /// The path relative to the store root, as found on disk (`team/ci-cache.md`).
    pub rel_path: PathBuf,
    /// Known keys, with the fallbacks of SPEC §2 applied (name from the file,
    /// description from the first heading or line).
    pub meta: Meta,
    /// The `name` key as the file writes it, when it has one: often a title
    /// (Claude Code's way), while [`Meta::name`] is always the file's stem.
    pub written_name: Option<String>,
    /// The frontmatter as written, for rewriting without losing unknown keys.
    /// `None` when the file has none.
    pub frontmatter: Option<Frontmatter>,
    /// Everything after the closing fence, byte for byte.
    pub body: String,
    /// What `check` reports for this file.
    pub problems: Vec<Problem>,
}

impl Record {
    /// The record's trust; hand-written files without `source` count as `user`.
    pub fn source(&self) -> Source {
        self.meta.source.unwrap_or(Source::User)
    }

    /// Whether the frontmatter parsed as strict YAML. A record that did not is
    /// never rewritten unless the user asks to update it.
    pub fn is_strict(&self) -> bool {
        self.frontmatter
            .as_ref()
            .is_some_and(Frontmatter::is_strict)
    }
}
