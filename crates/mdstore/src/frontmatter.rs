//! Frontmatter: splitting a file into frontmatter and body, reading it
//! leniently, and rewriting known keys without disturbing anything else.
//!
//! A file is kept as its parts (BOM, fence lines, one entry per top-level
//! key with its raw lines), so that a file memctl only read renders back
//! byte for byte and a `set` touches nothing but the entry it sets.

mod block;
mod body;
mod fence;
mod fields;
mod simple;
mod strings;

use crate::record::{Meta, Problem};
use block::{Block, render_entry};
use fence::{BOM, Split};

/// The frontmatter block of one file, kept as written so that a rewrite
/// preserves unknown keys, their values and their order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frontmatter {
    bom: bool,
    /// The opening fence line with its line ending (`---`, maybe trailing spaces).
    opening: String,
    block: Block,
    /// The closing fence line (`---` or `...`) with its line ending, if it has one.
    closing: String,
    /// `"\n"` or `"\r\n"`, as the opening fence has it; used for lines memctl writes.
    line_ending: &'static str,
    strict: bool,
}

/// A value memctl writes for a known key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldValue {
    Text(String),
    Integer(u64),
    List(Vec<String>),
}

/// One top-level entry of a frontmatter as YAML decodes it, for the guards
/// that must see values and not only their raw lines (SPEC §6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedEntry {
    pub key: String,
    /// 1-based file lines of the key line and of the entry's last line.
    pub first_line: usize,
    pub last_line: usize,
    /// Every string the entry holds, decoded (nested keys included); empty
    /// when the entry is not YAML on its own.
    pub strings: Vec<String>,
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
        Frontmatter {
            bom: false,
            opening: "---\n".to_string(),
            block: Block::default(),
            closing: "---\n".to_string(),
            line_ending: "\n",
            strict: true,
        }
    }

    /// Whether the block parsed as strict YAML.
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// Top-level keys in file order.
    pub fn keys(&self) -> Vec<String> {
        self.block.keys()
    }

    /// Sets a key: replaced where it stands, or appended at the end. Later
    /// duplicates of the key, if a hand-written file has them, are dropped so
    /// that the value read back is the one set; a line that only looks like
    /// the key, inside a string, is left alone.
    pub fn set(&mut self, key: &str, value: FieldValue) {
        let raw = render_entry(key, &value, self.line_ending);
        let mut edited = self.block.clone();
        if self.yaml_lacks(key) {
            edited.append(key, raw);
        } else {
            edited.set(key, raw.clone());
            // A hand-written quote left open can close differently once a
            // line is replaced, and swallow the new line into a string
            // (found by fuzzing): the key then goes last instead.
            if swallowed(&edited, key) {
                edited = self.block.clone();
                edited.remove(key);
                edited.append(key, raw);
            }
        }
        self.block = edited;
        self.recheck();
    }

    /// Removes a key if present.
    pub fn remove(&mut self, key: &str) {
        if !self.yaml_lacks(key) {
            self.block.remove(key);
        }
        self.recheck();
    }

    /// Whether the block is YAML without `key` at its top level: then a
    /// line that looks like `key: …` is inside a string spanning lines (a
    /// quoted scalar), part of someone's text, and is neither replaced nor
    /// removed (found by fuzzing: the value set went into the string).
    fn yaml_lacks(&self, key: &str) -> bool {
        self.strict && swallowed(&self.block, key)
    }

    /// Writes every known key of `meta` (SPEC §2): each present one is set
    /// where it stands or appended in the order of SPEC §2; each absent one
    /// (an empty list counts as absent) is removed. Other keys are untouched.
    pub fn set_meta(&mut self, meta: &Meta) {
        let text = |value: Option<String>| value.map(FieldValue::Text);
        let list = |items: &[String]| (!items.is_empty()).then(|| FieldValue::List(items.to_vec()));
        let fields = [
            ("name", text(meta.name.clone())),
            ("description", text(meta.description.clone())),
            (
                "type",
                text(meta.record_type.map(|t| t.as_str().to_string())),
            ),
            ("created", text(meta.created.map(|t| t.to_string()))),
            ("updated", text(meta.updated.map(|t| t.to_string()))),
            ("revision", meta.revision.map(FieldValue::Integer)),
            ("source", text(meta.source.map(|s| s.as_str().to_string()))),
            ("expires", text(meta.expires.clone())),
            ("tags", list(&meta.tags)),
            ("merged_from", list(&meta.merged_from)),
        ];
        for (key, value) in fields {
            match value {
                Some(value) => self
                    .block
                    .set(key, render_entry(key, &value, self.line_ending)),
                None => self.block.remove(key),
            }
        }
        self.recheck();
    }

    /// Each top-level entry decoded, with the file lines it spans.
    pub fn decoded_entries(&self) -> Vec<DecodedEntry> {
        self.entry_lines()
            .map(|(entry, first_line, last_line)| DecodedEntry {
                key: entry.key.clone(),
                first_line,
                last_line,
                strings: strings::decoded_strings(&entry.raw),
            })
            .collect()
    }

    /// The file line of the first entry of `key`.
    pub fn key_line(&self, key: &str) -> Option<usize> {
        self.entry_lines()
            .find(|(entry, _, _)| entry.key == key)
            .map(|(_, first, _)| first)
    }

    /// Each entry with the 1-based file lines of its key line and last line.
    fn entry_lines(&self) -> impl Iterator<Item = (&block::Entry, usize, usize)> {
        // The opening fence is line 1, whether or not a BOM precedes it.
        let mut next = 2;
        self.block.entries.iter().map(move |entry| {
            let first = next + entry.lead.matches('\n').count();
            let spans = entry.raw.matches('\n').count().max(1);
            next = first + spans;
            (entry, first, first + spans - 1)
        })
    }

    fn recheck(&mut self) {
        self.strict = fields::is_strict(&self.block.render());
    }
}

/// Whether `block` is YAML whose top level has no `key`.
fn swallowed(block: &Block, key: &str) -> bool {
    fields::yaml_keys(&block.render()).is_some_and(|keys| !keys.iter().any(|k| k == key))
}

impl Default for Frontmatter {
    fn default() -> Self {
        Frontmatter::new()
    }
}

/// Reads a whole file's text leniently (SPEC §2). Never panics.
pub fn parse(text: &str) -> ParsedFile {
    let fences = match fence::split(text, true) {
        Split::Closed(fences) => fences,
        Split::NoFrontmatter => return ParsedFile::without_frontmatter(Vec::new()),
        Split::Unclosed => {
            return ParsedFile::without_frontmatter(vec![Problem::error(
                Some(1),
                "the frontmatter opened on line 1 never closes (no `---` or `...` line follows); \
                 the whole file is read as body",
            )]);
        }
    };
    let opening = &text[fences.opening_start..fences.block_start];
    let block_text = &text[fences.block_start..fences.block_end];
    let (block, key_lines) = Block::split(block_text);
    // The block starts on line 2: the opening fence (and any BOM) is line 1.
    let reading = fields::read(block_text, &block, &key_lines, 2);
    let frontmatter = Frontmatter {
        bom: fences.opening_start > 0,
        opening: opening.to_string(),
        block,
        closing: text[fences.block_end..fences.body_offset].to_string(),
        line_ending: if opening.ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        },
        strict: reading.strict,
    };
    ParsedFile {
        frontmatter: Some(frontmatter),
        meta: reading.meta,
        body_offset: fences.body_offset,
        problems: reading.problems,
    }
}

impl ParsedFile {
    fn without_frontmatter(problems: Vec<Problem>) -> ParsedFile {
        ParsedFile {
            frontmatter: None,
            meta: Meta::default(),
            body_offset: 0,
            problems,
        }
    }
}

/// Finds where the frontmatter ends in a prefix of a file, so that callers can
/// read only the header of large stores.
pub fn find_header_end(text: &str) -> HeaderEnd {
    match fence::split(text, false) {
        Split::NoFrontmatter => HeaderEnd::NoFrontmatter,
        Split::Unclosed => HeaderEnd::Unclosed,
        Split::Closed(fences) => HeaderEnd::Closed {
            body_offset: fences.body_offset,
        },
    }
}

/// Renders a frontmatter block and a body back into file text.
pub fn render(frontmatter: &Frontmatter, body: &str) -> String {
    let mut out = String::with_capacity(
        frontmatter.opening.len() + frontmatter.closing.len() + body.len() + 256,
    );
    if frontmatter.bom {
        out.push(BOM);
    }
    out.push_str(&frontmatter.opening);
    frontmatter.block.render_into(&mut out);
    out.push_str(&frontmatter.closing);
    if !frontmatter.closing.ends_with('\n') && !body.is_empty() {
        // The file ended at the closing fence; a new body needs its own line.
        out.push_str(frontmatter.line_ending);
    }
    out.push_str(body);
    out
}

/// The description SPEC §2 gives a file without one: its first heading, else
/// its first non-empty line, flattened to one line. Headings in code blocks,
/// code fences and thematic breaks (`---`) do not count; `None` when the body
/// has no text.
pub fn description_from_body(body: &str) -> Option<String> {
    body::description_from_body(body)
}

#[cfg(test)]
mod tests;
