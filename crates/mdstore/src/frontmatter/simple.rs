//! A fast path for the frontmatter most files have: one `key: plain value`
//! (or `key: [a, b]`) per line. Such a block is strict YAML by construction,
//! and reading it by hand is several times cheaper than a YAML parse, which
//! dominated the header-only scan every write makes of the whole store
//! (measured: half of `memctl list`'s CPU time at 10,000 records).
//!
//! The accepted lines are a strict subset of YAML whose meaning is
//! unambiguous; anything else (quotes, block scalars, nested maps, comments
//! after values, null-like or number-like list items, duplicate keys)
//! returns `None` and takes the full YAML path. A property test checks that
//! both paths agree on every block this one accepts.

use super::block::Block;
use super::fence::{Lines, line_content};
use super::fields::Value;

/// The known keys' values of a simple block, or `None` when the block is
/// not simple.
pub(super) fn read(block: &Block, known: &[&'static str]) -> Option<Vec<(&'static str, Value)>> {
    if !only_blank_or_comments(&block.tail) {
        return None;
    }
    let mut seen: Vec<&str> = Vec::with_capacity(block.entries.len());
    let mut values = Vec::new();
    for entry in &block.entries {
        if !only_blank_or_comments(&entry.lead) || seen.contains(&entry.key.as_str()) {
            return None;
        }
        seen.push(&entry.key);
        let mut lines = Lines::new(&entry.raw, 0);
        let line = line_content(lines.next()?.text);
        if lines.next().is_some() || !is_simple_key(&entry.key) {
            return None;
        }
        let value = line.strip_prefix(entry.key.as_str())?.strip_prefix(':')?;
        if !value.starts_with(' ') {
            return None;
        }
        let value = value.trim_matches(' ');
        let known_key = known.iter().find(|k| **k == entry.key);
        let parsed = match value.strip_prefix('[') {
            Some(inner) => Value::List(flow_list(inner.strip_suffix(']')?)?),
            None if is_plain(value) => Value::Text(value.to_string()),
            None => return None,
        };
        let Some(&key) = known_key else { continue };
        match (key, &parsed) {
            // A nested map is never one line; anything else there is odd.
            ("metadata", _) => return None,
            ("tags" | "merged_from", Value::Text(text)) if !is_word_like(text) => return None,
            ("tags" | "merged_from", _) => {}
            (_, Value::List(_)) => return None,
            _ => {}
        }
        values.push((key, parsed));
    }
    Some(values)
}

fn only_blank_or_comments(text: &str) -> bool {
    Lines::new(text, 0).all(|line| {
        let content = line_content(line.text).trim_start_matches(' ');
        content.is_empty() || content.starts_with('#')
    })
}

fn is_simple_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A plain scalar that YAML reads as the same string, in block context.
fn is_plain(value: &str) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    !"-?:,[]{}#&*!|>'\"%@`".contains(first)
        && !value.contains(": ")
        && !value.contains(" #")
        && !value.ends_with(':')
        && !value.chars().any(|c| c.is_control())
        && !matches!(value, "~" | "null" | "Null" | "NULL")
}

/// Items of a one-line flow sequence, each a plain word-like scalar.
fn flow_list(inner: &str) -> Option<Vec<String>> {
    if inner.trim().is_empty() {
        return Some(Vec::new());
    }
    inner
        .split(',')
        .map(|item| {
            let item = item.trim_matches(' ');
            (is_plain(item) && !item.contains(['[', ']', '{', '}']) && is_word_like(item))
                .then(|| item.to_string())
        })
        .collect()
}

/// Text that YAML cannot read as a number, a bool or a null, so that
/// list-typed keys get it back unchanged.
fn is_word_like(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    !matches!(
        lower.as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n"
    ) && text
        .chars()
        .any(|c| c.is_alphabetic() && !matches!(c, 'e' | 'E' | 'x' | 'X' | 'o' | 'O' | 'b' | 'B'))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::parse;
    use super::*;

    #[test]
    fn accepts_the_usual_record() {
        let (block, _) = Block::split(
            "name: prefer-pytest\ndescription: Tests use pytest, never unittest\ntype: feedback\nrevision: 2\ntags: [testing, python]\nowner: ana\n",
        );
        let values = read(&block, &["name", "description", "type", "revision", "tags"]).unwrap();
        assert_eq!(values.len(), 5);
        assert_eq!(
            values[4],
            ("tags", Value::List(vec!["testing".into(), "python".into()]))
        );
    }

    #[test]
    fn leaves_anything_unusual_to_yaml() {
        for block in [
            "description: \"quoted\"\n",
            "description: a: b\n",
            "description: >\n  folded\n",
            "metadata:\n  type: user\n",
            "tags: [1.10, x]\n",
            "name: a # comment\n",
            "name: a\nname: b\n",
            "globs: **/*\n",
            "description:\n",
        ] {
            let (parsed, _) = Block::split(block);
            assert!(
                read(&parsed, &["name", "description", "tags", "metadata"]).is_none(),
                "{block:?}"
            );
        }
    }

    /// Builds a block from simple-looking lines, some of which are not
    /// simple at all.
    fn block_strategy() -> impl Strategy<Value = String> {
        let key = prop::sample::select(vec![
            "name",
            "description",
            "type",
            "revision",
            "tags",
            "source",
            "owner",
            "x-y",
        ]);
        // Mostly plain text with YAML's awkward characters mixed in, some
        // flow lists, and some anything-goes printable ASCII.
        let value = prop_oneof![
            4 => "[a-zA-Z0-9][a-zA-Z0-9 .,:#'\"/_~-]{0,24}",
            2 => "\\[[a-z0-9 ,.~-]{0,20}\\]",
            1 => "[ -~]{0,30}",
        ];
        prop::collection::vec((key, value), 1..6).prop_map(|entries| {
            entries
                .into_iter()
                .map(|(k, v)| format!("{k}: {v}\n"))
                .collect::<String>()
        })
    }

    proptest! {
        #[test]
        fn agrees_with_the_yaml_path(block in block_strategy()) {
            let (parsed, _) = Block::split(&block);
            let fast = read(&parsed, &["name", "description", "type", "revision", "tags", "source"]);
            // Blocks the fast path declines go to YAML anyway; nothing to compare.
            if fast.is_none() {
                return Ok(());
            }
            let file = format!("---\n{block}---\nbody\n");
            let through_fast = parse(&file);
            let through_yaml = super::super::fields::read_with_yaml(&block, &parsed);
            prop_assert!(through_yaml.strict, "{block:?} is not strict YAML");
            prop_assert_eq!(through_fast.meta, through_yaml.meta, "{:?}", block);
        }
    }
}
