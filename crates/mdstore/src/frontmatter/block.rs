//! The frontmatter block as written: top-level entries, each a key and its
//! raw lines, so that a rewrite touches only the entries it sets.

use super::FieldValue;
use super::fence::{Lines, line_content};

/// One top-level key with the lines that hold its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    /// Blank, comment or stray lines between the previous entry and this one;
    /// kept when the entry is set or removed, since they may belong to either.
    pub lead: String,
    /// The key, unquoted.
    pub key: String,
    /// The key line and its continuation lines, each with its line ending.
    pub raw: String,
}

/// The lines between the fences.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Block {
    pub entries: Vec<Entry>,
    /// Lines after the last entry that belong to no value (the whole block
    /// when it has no keys).
    pub tail: String,
}

/// What a block line is, for telling where entries start.
#[derive(Debug, PartialEq, Eq)]
enum LineKind {
    Key(String),
    Blank,
    Comment,
    /// An indented line, a sequence item at column 0, or a stray line.
    Continuation,
}

impl Block {
    /// Splits block text into entries. Also returns, for each entry, the
    /// 0-based line of its key line within the block.
    pub fn split(text: &str) -> (Block, Vec<usize>) {
        let mut block = Block::default();
        let mut key_lines = Vec::new();
        // Blank and comment lines are held until the next line tells whether
        // they are inside a value (a block scalar's blank line) or between keys.
        let mut pending = String::new();
        for (index, line) in Lines::new(text, 0).enumerate() {
            match classify(line_content(line.text)) {
                LineKind::Blank | LineKind::Comment => pending.push_str(line.text),
                LineKind::Continuation => match block.entries.last_mut() {
                    Some(entry) => {
                        entry.raw.push_str(&pending);
                        entry.raw.push_str(line.text);
                        pending.clear();
                    }
                    None => pending.push_str(line.text),
                },
                LineKind::Key(key) => {
                    block.entries.push(Entry {
                        lead: std::mem::take(&mut pending),
                        key,
                        raw: line.text.to_string(),
                    });
                    key_lines.push(index);
                }
            }
        }
        block.tail = pending;
        (block, key_lines)
    }

    pub fn render_into(&self, out: &mut String) {
        for entry in &self.entries {
            out.push_str(&entry.lead);
            out.push_str(&entry.raw);
        }
        out.push_str(&self.tail);
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out);
        out
    }

    /// Keys in file order, each once.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = Vec::with_capacity(self.entries.len());
        for entry in &self.entries {
            if !keys.contains(&entry.key) {
                keys.push(entry.key.clone());
            }
        }
        keys
    }

    /// Replaces the first entry of `key` with `raw` (dropping any later
    /// duplicates, so that the value read back is the one set), or appends it.
    pub fn set(&mut self, key: &str, raw: String) {
        match self.entries.iter().position(|e| e.key == key) {
            Some(first) => {
                self.entries[first].raw = raw;
                self.remove_from(key, first + 1);
            }
            None => self.append(key, raw),
        }
    }

    /// Appends an entry for `key`, leaving any line that looks like one
    /// where it is.
    pub fn append(&mut self, key: &str, raw: String) {
        let lead = std::mem::take(&mut self.tail);
        self.entries.push(Entry {
            lead,
            key: key.to_string(),
            raw,
        });
    }

    pub fn remove(&mut self, key: &str) {
        self.remove_from(key, 0);
    }

    /// Removes the entries of `key` from index `from` on; their lead lines
    /// move to whatever follows.
    fn remove_from(&mut self, key: &str, from: usize) {
        let mut index = from;
        while index < self.entries.len() {
            if self.entries[index].key != key {
                index += 1;
                continue;
            }
            let removed = self.entries.remove(index);
            match self.entries.get_mut(index) {
                Some(next) => next.lead.insert_str(0, &removed.lead),
                None => self.tail.insert_str(0, &removed.lead),
            }
        }
    }
}

fn classify(content: &str) -> LineKind {
    if content.trim().is_empty() {
        return LineKind::Blank;
    }
    if content.starts_with([' ', '\t']) {
        return LineKind::Continuation;
    }
    if content.starts_with('#') {
        return LineKind::Comment;
    }
    if content == "-" || content.starts_with("- ") || content.starts_with("-\t") {
        return LineKind::Continuation;
    }
    key_of(content).map_or(LineKind::Continuation, LineKind::Key)
}

/// The key of a `key: value` line at column 0, unquoted.
fn key_of(content: &str) -> Option<String> {
    split_key_line(content).map(|(key, _)| key)
}

/// The text after the key and its `:` in a key line (what [`classify`] took
/// for one).
pub(super) fn key_line_value(content: &str) -> &str {
    split_key_line(content).map_or("", |(_, value)| value)
}

/// A key line's key, unquoted, and the text after its `:`.
fn split_key_line(content: &str) -> Option<(String, &str)> {
    if let Some(quote) = content.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let close = closing_quote(content, quote)?;
        let after = content[close + 1..].trim_start_matches([' ', '\t']);
        if !is_value_indicator(after) {
            return None;
        }
        let quoted = &content[..=close];
        let key = serde_saphyr::from_str::<String>(quoted)
            .unwrap_or_else(|_| quoted[1..close].to_string());
        return Some((key, &after[1..]));
    }
    let colon = content
        .char_indices()
        .find(|&(i, c)| c == ':' && is_value_indicator(&content[i..]))
        .map(|(i, _)| i)?;
    // YAML's white space is spaces and tabs; `trim_end` also took other
    // Unicode spaces that belong to the key (U+2000 after `ⵯ`, found by
    // `unknown_keys_survive_a_rewrite`).
    let key = content[..colon].trim_end_matches([' ', '\t']);
    (!key.is_empty()).then(|| (key.to_string(), &content[colon + 1..]))
}

/// Whether `text` starts with a `:` that separates a key from its value.
fn is_value_indicator(text: &str) -> bool {
    let Some(rest) = text.strip_prefix(':') else {
        return false;
    };
    rest.is_empty() || rest.starts_with([' ', '\t'])
}

/// The byte index of the quote that closes a quoted key starting at 0.
fn closing_quote(content: &str, quote: char) -> Option<usize> {
    let mut chars = content.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if quote == '"' => {
                chars.next();
            }
            // A doubled single quote is an escaped one.
            '\'' if quote == '\'' && chars.peek().is_some_and(|&(_, next)| next == '\'') => {
                chars.next();
            }
            c if c == quote => return Some(i),
            _ => {}
        }
    }
    None
}

/// The YAML text of one entry, `key: value` and any further lines, each
/// ending in `line_ending`.
pub(super) fn render_entry(key: &str, value: &FieldValue, line_ending: &str) -> String {
    let yaml = match value {
        FieldValue::Text(text) => match plain_date_or_time(text) {
            Some(text) => format!("{}: {text}\n", render_key(key)),
            None => serialize_entry(key, text),
        },
        FieldValue::Integer(number) => serialize_entry(key, number),
        FieldValue::List(items) => serialize_entry(key, items),
    };
    if line_ending == "\n" {
        yaml
    } else {
        yaml.replace('\n', line_ending)
    }
}

/// A canonical RFC 3339 timestamp or a date, which can stand unquoted: the
/// serializer quotes them (YAML 1.1 readers would take them for dates), but
/// `created: 2026-11-29T14:32:05Z` is what SPEC §2 shows and people expect.
fn plain_date_or_time(text: &str) -> Option<&str> {
    let canonical = match text.parse::<jiff::Timestamp>() {
        Ok(timestamp) => timestamp.to_string() == text,
        Err(_) => text
            .parse::<jiff::civil::Date>()
            .is_ok_and(|date| date.to_string() == text),
    };
    canonical.then_some(text)
}

fn render_key(key: &str) -> String {
    let yaml = serialize_entry(key, &0u8);
    yaml.strip_suffix(": 0\n")
        .map_or_else(|| json_string(key), str::to_string)
}

/// Serializes a one-key map: the serializer knows when a string needs quotes.
fn serialize_entry<T: serde::Serialize + ?Sized>(key: &str, value: &T) -> String {
    let options = serde_saphyr::ser_options! {
        // One line per scalar: a description is one line, and a folded scalar
        // would make a hand edit harder.
        prefer_block_scalars: false,
        compact_list_indent: false,
    };
    let entry = std::collections::BTreeMap::from([(key, value)]);
    serde_saphyr::to_string_with_options(&entry, options).unwrap_or_else(|_| {
        // The serializer fails only on options or anchors, which these plain
        // values do not use; JSON is YAML, so this keeps `set` total.
        let value = serde_json::to_value(value).unwrap_or_default();
        format!("{}: {value}\n", json_string(key))
    })
}

fn json_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use rstest::rstest;

    fn keys_and_lines(text: &str) -> (Vec<String>, Vec<usize>) {
        let (block, lines) = Block::split(text);
        (block.entries.iter().map(|e| e.key.clone()).collect(), lines)
    }

    #[rstest]
    #[case::plain("name: a\n", Some("name"))]
    #[case::no_value("tags:\n", Some("tags"))]
    #[case::no_space("a:b\n", None)]
    #[case::url_then_key("http://x: y\n", Some("http://x"))]
    #[case::colon_in_value("description: a: b\n", Some("description"))]
    #[case::double_quoted("\"my key\": 1\n", Some("my key"))]
    #[case::escaped_quote("\"a\\\"b\": 1\n", Some("a\"b"))]
    #[case::single_quoted("'it''s': 1\n", Some("it's"))]
    #[case::quoted_no_colon("'text' here\n", None)]
    #[case::crlf("name: a\r\n", Some("name"))]
    #[case::tab_after_colon("name:\ta\n", Some("name"))]
    #[case::space_before_colon("name  : a\n", Some("name"))]
    #[case::unicode_space_ends_the_key("\u{2d6f}\u{2000}: a\n", Some("\u{2d6f}\u{2000}"))]
    fn keys_of_lines(#[case] line: &str, #[case] key: Option<&str>) {
        assert_eq!(key_of(line_content(line)).as_deref(), key);
    }

    #[test]
    fn entries_take_their_continuation_lines() {
        let text = "# lead\nname: a\ndescription: |\n  one\n\n  two\ntags:\n- x\n- y\n\n# between\nmetadata:\n  type: user\n# end\n";
        let (block, lines) = Block::split(text);
        assert_eq!(block.render(), text);
        assert_eq!(lines, vec![1, 2, 6, 11]);
        let raw: Vec<(&str, &str, &str)> = block
            .entries
            .iter()
            .map(|e| (e.lead.as_str(), e.key.as_str(), e.raw.as_str()))
            .collect();
        assert_eq!(
            raw,
            vec![
                ("# lead\n", "name", "name: a\n"),
                ("", "description", "description: |\n  one\n\n  two\n"),
                ("", "tags", "tags:\n- x\n- y\n"),
                ("\n# between\n", "metadata", "metadata:\n  type: user\n"),
            ]
        );
        assert_eq!(block.tail, "# end\n");
    }

    #[test]
    fn stray_lines_stay_with_the_entry_before() {
        let (keys, lines) = keys_and_lines("description: long text\ngoes on here\nname: a\n");
        assert_eq!(keys, vec!["description", "name"]);
        assert_eq!(lines, vec![0, 2]);
    }

    #[test]
    fn set_replaces_in_place_and_drops_duplicates() {
        let (mut block, _) = Block::split("a: 1\n# about b\nb: 2\nc: 3\nb: 4\n# end\n");
        block.set("b", "b: 5\n".to_string());
        assert_eq!(block.render(), "a: 1\n# about b\nb: 5\nc: 3\n# end\n");
        block.set("d", "d: 6\n".to_string());
        assert_eq!(block.render(), "a: 1\n# about b\nb: 5\nc: 3\n# end\nd: 6\n");
        assert_eq!(block.keys(), vec!["a", "b", "c", "d"]);
    }

    #[test]
    fn remove_keeps_the_comments_around() {
        let (mut block, _) = Block::split("a: 1\n# about b\nb: 2\n  more\nc: 3\n");
        block.remove("b");
        assert_eq!(block.render(), "a: 1\n# about b\nc: 3\n");
        block.remove("c");
        assert_eq!(block.render(), "a: 1\n# about b\n");
        block.remove("missing");
        assert_eq!(block.render(), "a: 1\n# about b\n");
    }

    #[rstest]
    #[case::plain(FieldValue::Text("hello".into()), "description: hello\n")]
    #[case::colon(FieldValue::Text("a: b".into()), "description: \"a: b\"\n")]
    #[case::number_like(FieldValue::Text("12".into()), "description: \"12\"\n")]
    #[case::timestamp(FieldValue::Text("2026-11-29T14:32:05Z".into()), "description: 2026-11-29T14:32:05Z\n")]
    #[case::date(FieldValue::Text("2026-12-31".into()), "description: 2026-12-31\n")]
    #[case::odd_timestamp(FieldValue::Text("2026-11-29T14:32:05+00:00".into()), "description: \"2026-11-29T14:32:05+00:00\"\n")]
    #[case::integer(FieldValue::Integer(3), "description: 3\n")]
    #[case::list(FieldValue::List(vec!["a".into(), "yes".into()]), "description:\n  - a\n  - \"yes\"\n")]
    #[case::empty_list(FieldValue::List(vec![]), "description: []\n")]
    fn rendered_entries(#[case] value: FieldValue, #[case] yaml: &str) {
        assert_eq!(render_entry("description", &value, "\n"), yaml);
    }

    #[test]
    fn rendered_entries_follow_the_line_ending() {
        let value = FieldValue::List(vec!["a".into()]);
        assert_eq!(render_entry("tags", &value, "\r\n"), "tags:\r\n  - a\r\n");
    }

    #[test]
    fn odd_keys_are_quoted() {
        let yaml = render_entry("a: b", &FieldValue::Text("2026-12-31".into()), "\n");
        assert_eq!(yaml, "\"a: b\": 2026-12-31\n");
        assert_eq!(key_of(line_content(&yaml)).as_deref(), Some("a: b"));
    }
}
