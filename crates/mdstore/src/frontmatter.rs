//! Frontmatter: splitting a file into frontmatter and body, reading it
//! leniently, and rewriting known keys without disturbing anything else.
//!
//! OWNER: helper H1. The signatures below are the contract the rest of the
//! workspace codes against; keep them (add, don't break).

use crate::record::{Meta, Problem};

/// The frontmatter block of one file, kept as written so that a rewrite
/// preserves unknown keys, their values and their order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frontmatter {
    // private representation chosen by the implementer
}

/// A value memctl writes for a known key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldValue {
    Text(String),
    Integer(u64),
    List(Vec<String>),
}

/// The result of reading one file's text.
#[derive(Clone, Debug)]
pub struct ParsedFile {
    /// `None` when the file has no frontmatter.
    pub frontmatter: Option<Frontmatter>,
    /// Known keys as found (no fallbacks applied: a missing `name` is `None`).
    pub meta: Meta,
    /// Byte offset in the input where the body starts (just after the closing fence line).
    pub body_offset: usize,
    /// Problems with 1-based line numbers of the input.
    pub problems: Vec<Problem>,
}

/// Where the frontmatter of a (possibly partial) text ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderEnd {
    /// The text does not start with a frontmatter fence.
    NoFrontmatter,
    /// The closing fence line ends at this byte offset (the body starts here).
    Closed { body_offset: usize },
    /// Opened but not closed within the text given.
    Unclosed,
}

impl Frontmatter {
    /// An empty frontmatter block, LF line endings, `---` fences.
    pub fn new() -> Frontmatter {
        todo!()
    }

    /// Whether the block parsed as strict YAML.
    pub fn is_strict(&self) -> bool {
        todo!()
    }

    /// Top-level keys in file order.
    pub fn keys(&self) -> Vec<String> {
        todo!()
    }

    /// Sets a key: replaced where it stands, or appended at the end.
    pub fn set(&mut self, key: &str, value: FieldValue) {
        let _ = (key, value);
        todo!()
    }

    /// Removes a key if present.
    pub fn remove(&mut self, key: &str) {
        let _ = key;
        todo!()
    }
}

impl Default for Frontmatter {
    fn default() -> Self {
        Frontmatter::new()
    }
}

/// Reads a whole file's text leniently (SPEC §2). Never panics.
pub fn parse(text: &str) -> ParsedFile {
    let _ = text;
    todo!()
}

/// Finds where the frontmatter ends in a prefix of a file, so that callers can
/// read only the header of large stores.
pub fn find_header_end(text: &str) -> HeaderEnd {
    let _ = text;
    todo!()
}

/// Renders a frontmatter block and a body back into file text.
pub fn render(frontmatter: &Frontmatter, body: &str) -> String {
    let _ = (frontmatter, body);
    todo!()
}

/// The description SPEC §2 gives a file without one: its first heading, else
/// its first non-empty line, flattened to one line.
pub fn description_from_body(body: &str) -> Option<String> {
    let _ = body;
    todo!()
}
