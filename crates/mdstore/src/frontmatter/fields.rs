//! Reading the known keys of a block into a [`Meta`]: from the whole block
//! when it is YAML, entry by entry when it is not.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{SnippetMode, UserMessageFormatter, render_options};

use super::block::{Block, Entry, key_line_value};
use super::fence::{Lines, line_content};
use crate::record::{Meta, Problem, RecordType, Source};

/// What reading a block gives.
#[derive(Debug, Default)]
pub(super) struct Reading {
    pub meta: Meta,
    pub problems: Vec<Problem>,
    pub strict: bool,
}

/// Whether block text is strict YAML: well formed, and a map of keys (or empty).
pub(super) fn is_strict(text: &str) -> bool {
    serde_saphyr::from_str::<Option<MapShape>>(text).is_ok()
}

/// The top-level keys of block text that is a YAML map with text keys;
/// `None` otherwise.
pub(super) fn yaml_keys(text: &str) -> Option<Vec<String>> {
    serde_saphyr::from_str::<Option<std::collections::HashMap<String, IgnoredAny>>>(text)
        .ok()
        .map(|map| map.map(|m| m.into_keys().collect()).unwrap_or_default())
}

/// Reads `block`, whose text is `text` and whose first line is line
/// `first_line` (1-based) of the file.
pub(super) fn read(text: &str, block: &Block, key_lines: &[usize], first_line: usize) -> Reading {
    read_with(text, block, key_lines, first_line, true)
}

/// [`read`] without the fast path, for checking that the two agree.
#[cfg(test)]
pub(super) fn read_with_yaml(text: &str, block: &Block) -> Reading {
    let (_, key_lines) = Block::split(text);
    read_with(text, block, &key_lines, 2, false)
}

fn read_with(
    text: &str,
    block: &Block,
    key_lines: &[usize],
    first_line: usize,
    fast: bool,
) -> Reading {
    let line_of = |key: &str| {
        block
            .entries
            .iter()
            .position(|e| e.key == key)
            .and_then(|i| key_lines.get(i))
            .map(|line| first_line + line)
    };
    let mut reading = Reading::default();
    let simple = if fast {
        super::simple::read(block, &KNOWN_KEYS)
    } else {
        None
    };
    let values = match simple {
        Some(values) => {
            reading.strict = true;
            values
        }
        None => read_yaml(text, block, key_lines, first_line, &mut reading),
    };
    apply_values(values, &line_of, &mut reading);
    reading
}

fn read_yaml(
    text: &str,
    block: &Block,
    key_lines: &[usize],
    first_line: usize,
    reading: &mut Reading,
) -> Vec<(&'static str, Value)> {
    match serde_saphyr::from_str::<Option<KnownKeys>>(text) {
        Ok(known) => {
            reading.strict = true;
            known.unwrap_or_default().into_values()
        }
        Err(typed_error) => {
            // Either the block is not YAML, or it is and a known key holds
            // something odd (a list for a description, say).
            let error = match serde_saphyr::from_str::<Option<MapShape>>(text) {
                Ok(_) => {
                    reading.strict = true;
                    typed_error
                }
                Err(yaml_error) => yaml_error,
            };
            let block_line = error
                .location()
                .map(|l| newline_line(text, l.line() as usize));
            let prefix = match block_line.and_then(|line| key_at(block, key_lines, line)) {
                Some(key) if reading.strict => format!("`{key}` holds an unexpected value"),
                _ if reading.strict => "unexpected value".to_string(),
                _ => "frontmatter is not strict YAML (read key by key)".to_string(),
            };
            reading.problems.push(Problem::error(
                block_line.map(|line| first_line + line),
                format!("{prefix}: {}", yaml_message(&error, first_line)),
            ));
            entry_by_entry(block)
        }
    }
}

fn apply_values(
    values: Vec<(&'static str, Value)>,
    line_of: &dyn Fn(&str) -> Option<usize>,
    reading: &mut Reading,
) {
    let mut nested_type = None;
    for (key, value) in values {
        let line = line_of(key);
        if key == "metadata" {
            nested_type = Some((value, line));
        } else {
            reading.apply(key, value, line);
        }
    }
    if let Some((value, line)) = nested_type
        && line_of("type").is_none()
        && reading.meta.record_type.is_none()
    {
        reading.apply("type", value, line);
    }
}

/// The 0-based line, lines ending at `\n`, of YAML's 1-based line
/// `yaml_line` in `text`: YAML also ends a line at a lone `\r`, which
/// editors and every other memctl line number do not count.
fn newline_line(text: &str, yaml_line: usize) -> usize {
    let bytes = text.as_bytes();
    let (mut yaml, mut line) = (1, 0);
    for (i, &byte) in bytes.iter().enumerate() {
        if yaml >= yaml_line {
            break;
        }
        match byte {
            b'\n' => {
                yaml += 1;
                line += 1;
            }
            b'\r' if bytes.get(i + 1) != Some(&b'\n') => yaml += 1,
            _ => {}
        }
    }
    line
}

/// The key of the entry that holds a (0-based) line of the block.
fn key_at<'a>(block: &'a Block, key_lines: &[usize], line: usize) -> Option<&'a str> {
    let index = key_lines.iter().rposition(|&start| start <= line)?;
    block.entries.get(index).map(|e| e.key.as_str())
}

/// The message of a YAML error, its position counted in the whole file.
fn yaml_message(error: &serde_saphyr::Error, first_line: usize) -> String {
    error.render_with_options(render_options! {
        formatter: &UserMessageFormatter,
        snippets: SnippetMode::Off,
        line_offset: first_line as u64 - 1,
    })
}

/// A known key's value as found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Value {
    Text(String),
    List(Vec<String>),
}

impl Value {
    fn into_text(self) -> String {
        match self {
            Value::Text(text) => text,
            Value::List(items) => items.join(", "),
        }
    }

    fn into_list(self) -> Vec<String> {
        match self {
            Value::Text(text) => comma_list(&text),
            Value::List(items) => items,
        }
    }
}

/// The keys memctl reads; others are kept as written and not looked at.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct KnownKeys {
    name: Option<String>,
    description: Option<String>,
    #[serde(rename = "type")]
    record_type: Option<String>,
    created: Option<String>,
    updated: Option<String>,
    revision: Option<String>,
    source: Option<String>,
    expires: Option<String>,
    tags: Option<TextList>,
    merged_from: Option<TextList>,
    metadata: Option<NestedType>,
}

impl KnownKeys {
    fn into_values(self) -> Vec<(&'static str, Value)> {
        let texts = [
            ("name", self.name),
            ("description", self.description),
            ("type", self.record_type),
            ("created", self.created),
            ("updated", self.updated),
            ("revision", self.revision),
            ("source", self.source),
            ("expires", self.expires),
            ("metadata", self.metadata.and_then(|m| m.0)),
        ];
        let lists = [("tags", self.tags), ("merged_from", self.merged_from)];
        texts
            .into_iter()
            .filter_map(|(key, value)| Some((key, Value::Text(value?))))
            .chain(
                lists
                    .into_iter()
                    .filter_map(|(key, value)| Some((key, Value::List(value?.0)))),
            )
            .collect()
    }
}

const KNOWN_KEYS: [&str; 11] = [
    "name",
    "description",
    "type",
    "created",
    "updated",
    "revision",
    "source",
    "expires",
    "tags",
    "merged_from",
    "metadata",
];

/// Reads each known key from its own entry: as YAML when the entry is, else
/// from its text. The first entry of a key wins, as `set` replaces that one.
fn entry_by_entry(block: &Block) -> Vec<(&'static str, Value)> {
    let mut values: Vec<(&'static str, Value)> = Vec::new();
    for entry in &block.entries {
        let Some(key) = KNOWN_KEYS.into_iter().find(|k| *k == entry.key) else {
            continue;
        };
        if values.iter().any(|(k, _)| *k == key) {
            continue;
        }
        let value = match serde_saphyr::from_str::<Option<KnownKeys>>(&entry.raw) {
            Ok(known) => known
                .unwrap_or_default()
                .into_values()
                .into_iter()
                .find_map(|(k, value)| (k == key).then_some(value)),
            Err(_) => lenient_value(key, entry),
        };
        if let Some(value) = value {
            values.push((key, value));
        }
    }
    values
}

/// A value read from an entry's text when it is not YAML.
fn lenient_value(key: &str, entry: &Entry) -> Option<Value> {
    let mut lines = Lines::new(&entry.raw, 0).map(|line| line_content(line.text));
    let inline = key_line_value(lines.next()?).trim();
    let rest: Vec<&str> = lines.map(str::trim).filter(|l| !l.is_empty()).collect();
    match key {
        "metadata" => rest
            .iter()
            .find_map(|line| key_line_value_of(line, "type"))
            .map(|v| Value::Text(unquote(v.trim()).to_string())),
        "tags" | "merged_from" if inline.is_empty() => Some(Value::List(
            rest.iter()
                .filter_map(|line| line.strip_prefix('-'))
                .map(|item| unquote(item.trim()).to_string())
                .filter(|item| !item.is_empty())
                .collect(),
        )),
        "tags" | "merged_from" => {
            let inline = inline
                .strip_prefix('[')
                .and_then(|i| i.strip_suffix(']'))
                .unwrap_or(inline);
            Some(Value::List(comma_list(inline)))
        }
        _ => {
            let inline = if is_block_indicator(inline) {
                ""
            } else {
                inline
            };
            let text = std::iter::once(inline)
                .chain(rest)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            Some(Value::Text(unquote(&text).to_string()))
        }
    }
}

/// The value of a `key: value` line for a given key, if that is the key.
fn key_line_value_of<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(key)?;
    (rest == ":" || rest.starts_with(": ") || rest.starts_with(":\t")).then(|| &rest[1..])
}

/// `|`, `>-`, `|2+`… the header of a block scalar.
fn is_block_indicator(text: &str) -> bool {
    let text = text.split(" #").next().unwrap_or(text).trim_end();
    let mut chars = text.chars();
    matches!(chars.next(), Some('|' | '>')) && chars.all(|c| matches!(c, '+' | '-' | '1'..='9'))
}

/// Drops the quotes around a whole value, for text that is not valid YAML.
fn unquote(text: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(quote).and_then(|t| t.strip_suffix(quote)) {
            return inner;
        }
    }
    text
}

/// `a, b, c` as a list; empty items are dropped.
fn comma_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(|item| unquote(item.trim()).trim().to_string())
        .filter(|item| !item.is_empty())
        .collect()
}

/// Text flattened to one line: line breaks and the space around them become
/// one space.
pub(super) fn one_line(text: &str) -> String {
    const BREAKS: [char; 7] = [
        '\n', '\r', '\u{0B}', '\u{0C}', '\u{85}', '\u{2028}', '\u{2029}',
    ];
    text.split(BREAKS)
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Reading {
    fn apply(&mut self, key: &str, value: Value, line: Option<usize>) {
        let meta = &mut self.meta;
        if matches!(key, "tags" | "merged_from") {
            let list = value.into_list();
            match key {
                "tags" => meta.tags = list,
                _ => meta.merged_from = list,
            }
            return;
        }
        let text = if key == "description" {
            one_line(&value.into_text())
        } else {
            value.into_text().trim().to_string()
        };
        if text.is_empty() {
            return;
        }
        let mut problem = |message: String| self.problems.push(Problem::error(line, message));
        match key {
            "name" => meta.name = Some(text),
            "description" => meta.description = Some(text),
            "type" => match RecordType::parse(&text) {
                Some(record_type) => meta.record_type = Some(record_type),
                None => problem(format!(
                    "unknown `type` {text:?}; expected one of {}",
                    RecordType::ALL.map(RecordType::as_str).join(", ")
                )),
            },
            "created" | "updated" => match text.parse::<jiff::Timestamp>() {
                Ok(timestamp) if key == "created" => meta.created = Some(timestamp),
                Ok(timestamp) => meta.updated = Some(timestamp),
                Err(_) => problem(format!(
                    "`{key}` is not an RFC 3339 timestamp (like 2026-11-29T14:32:05Z): {text:?}"
                )),
            },
            "revision" => match text.parse::<u64>() {
                Ok(revision) if revision >= 1 => meta.revision = Some(revision),
                _ => problem(format!(
                    "`revision` must be a whole number from 1: {text:?}"
                )),
            },
            "source" => match Source::parse(&text) {
                Some(source) => meta.source = Some(source),
                None => problem(format!(
                    "unknown `source` {text:?}; expected one of {}",
                    [Source::User, Source::Verified, Source::Inferred]
                        .map(Source::as_str)
                        .join(", ")
                )),
            },
            "expires" => {
                if crate::expiry::Expiry::parse(&text).is_none() {
                    problem(format!(
                        "`expires` is neither a date (2026-12-31) nor an RFC 3339 timestamp: {text:?}"
                    ));
                }
                meta.expires = Some(text);
            }
            _ => {}
        }
    }
}

/// Accepts any YAML document that is a map (or empty), looking at nothing.
struct MapShape;

impl<'de> Deserialize<'de> for MapShape {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<MapShape, D::Error> {
        deserializer.deserialize_map(MapShapeVisitor)
    }
}

struct MapShapeVisitor;

impl<'de> Visitor<'de> for MapShapeVisitor {
    type Value = MapShape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of keys")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MapShape, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(MapShape)
    }
}

/// A list of strings, or one string of comma-separated items.
#[derive(Debug, Default)]
struct TextList(Vec<String>);

impl<'de> Deserialize<'de> for TextList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<TextList, D::Error> {
        deserializer.deserialize_any(TextListVisitor)
    }
}

struct TextListVisitor;

impl<'de> Visitor<'de> for TextListVisitor {
    type Value = TextList;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of strings or a comma-separated string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<TextList, E> {
        Ok(TextList(comma_list(text)))
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<TextList, E> {
        Ok(TextList(vec![value.to_string()]))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<TextList, E> {
        Ok(TextList(vec![value.to_string()]))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<TextList, E> {
        Ok(TextList(vec![value.to_string()]))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<TextList, E> {
        Ok(TextList(vec![value.to_string()]))
    }

    fn visit_unit<E: de::Error>(self) -> Result<TextList, E> {
        Ok(TextList::default())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TextList, A::Error> {
        let mut items = Vec::new();
        // Items are read as strings so that `1.10` stays `1.10`; a null item is skipped.
        while let Some(item) = seq.next_element::<Option<String>>()? {
            items.extend(item);
        }
        Ok(TextList(items))
    }
}

/// The `type` of a `metadata:` map, which some agents write instead of a
/// top-level `type`. Anything else under `metadata` is not looked at.
#[derive(Debug, Default)]
struct NestedType(Option<String>);

impl<'de> Deserialize<'de> for NestedType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<NestedType, D::Error> {
        deserializer.deserialize_any(NestedTypeVisitor)
    }
}

struct NestedTypeVisitor;

impl<'de> Visitor<'de> for NestedTypeVisitor {
    type Value = NestedType;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NestedType, A::Error> {
        let mut record_type = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "type" && record_type.is_none() {
                record_type = map.next_value::<Option<String>>()?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(NestedType(record_type))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<NestedType, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(NestedType(None))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<NestedType, E> {
        Ok(NestedType(None))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<NestedType, E> {
        Ok(NestedType(None))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<NestedType, E> {
        Ok(NestedType(None))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<NestedType, E> {
        Ok(NestedType(None))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<NestedType, E> {
        Ok(NestedType(None))
    }

    fn visit_unit<E: de::Error>(self) -> Result<NestedType, E> {
        Ok(NestedType(None))
    }
}
