/*!
Fixtures for memctl's tests: one way to write a record file.

Every crate's tests need record files: hand-made ones (only the keys a person
types), ones as memctl writes them (`created`, `updated`, `revision`,
`source`), and broken ones. Before this crate each test folder had its own
`record(...)` helper with its own argument order; now they all build a
[`RecordFile`] and change only what the test is about.

```
use memctl_testkit::RecordFile;

let text = RecordFile::new("prefer-pytest")
    .kind("feedback")
    .description("Use pytest, not unittest")
    .source("user")
    .body("- use pytest\n")
    .text();
assert!(text.starts_with("---\nname: prefer-pytest\n"));
```
*/
#![forbid(unsafe_code)]

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// A record file to write in a test. Keys come out in the order a person
/// writes them (`name`, `description`, `type`, then the rest as added).
#[derive(Clone, Debug)]
pub struct RecordFile {
    id: String,
    name: String,
    description: Option<String>,
    kind: Option<String>,
    fields: Vec<(String, String)>,
    body: String,
    verbatim: bool,
}

impl RecordFile {
    /// A hand-made record: `name` is `id`'s last part, `description` is
    /// "about ID", `type` is `project`, the body is empty.
    pub fn new(id: &str) -> RecordFile {
        let name = id.rsplit('/').next().unwrap_or(id).to_string();
        RecordFile {
            id: id.to_string(),
            description: Some(format!("about {name}")),
            name,
            kind: Some("project".to_string()),
            fields: Vec::new(),
            body: String::new(),
            verbatim: false,
        }
    }

    /// A record as memctl writes one: `created`, `updated` (both
    /// 2026-01-01), `revision: 1`, `source: inferred`. Each can be set again.
    pub fn written(id: &str) -> RecordFile {
        RecordFile::new(id)
            .field("created", "2026-01-01T00:00:00Z")
            .field("updated", "2026-01-01T00:00:00Z")
            .field("revision", "1")
            .field("source", "inferred")
    }

    pub fn kind(mut self, kind: &str) -> RecordFile {
        self.kind = Some(kind.to_string());
        self
    }

    pub fn description(mut self, description: &str) -> RecordFile {
        self.description = Some(description.to_string());
        self
    }

    /// Leaves `description` out (a record `check` should report).
    pub fn no_description(mut self) -> RecordFile {
        self.description = None;
        self
    }

    /// Leaves `type` out.
    pub fn no_kind(mut self) -> RecordFile {
        self.kind = None;
        self
    }

    pub fn source(self, source: &str) -> RecordFile {
        self.field("source", source)
    }

    pub fn updated(self, updated: &str) -> RecordFile {
        self.field("updated", updated)
    }

    pub fn expires(self, expires: &str) -> RecordFile {
        self.field("expires", expires)
    }

    /// Sets a frontmatter key to `value`, replacing it if present. The value
    /// is written as it is when YAML reads it back unchanged, quoted
    /// otherwise (unless [`RecordFile::verbatim`]); a value starting with `[`
    /// or `{` is written as it is (a list or map the test spells).
    pub fn field(mut self, key: &str, value: &str) -> RecordFile {
        match self.fields.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value.to_string(),
            None => self.fields.push((key.to_string(), value.to_string())),
        }
        self
    }

    /// The body after the frontmatter, written exactly as given.
    pub fn body(mut self, body: &str) -> RecordFile {
        self.body = body.to_string();
        self
    }

    /// Writes every value exactly as given, never quoted: the frontmatter a
    /// person types, YAML mistakes included (a test of `check` needs them).
    pub fn verbatim(mut self) -> RecordFile {
        self.verbatim = true;
        self
    }

    /// The file's path relative to its store: `ID.md`.
    pub fn rel_path(&self) -> String {
        format!("{}.md", self.id)
    }

    /// The file's text.
    pub fn text(&self) -> String {
        let scalar = |value: &str| {
            let spelled = self.verbatim || value.starts_with('[') || value.starts_with('{');
            if spelled {
                value.to_string()
            } else {
                scalar(value)
            }
        };
        let mut text = format!("---\nname: {}\n", scalar(&self.name));
        if let Some(description) = &self.description {
            text.push_str(&format!("description: {}\n", scalar(description)));
        }
        if let Some(kind) = &self.kind {
            text.push_str(&format!("type: {}\n", scalar(kind)));
        }
        for (key, value) in &self.fields {
            let value = scalar(value);
            text.push_str(&format!("{key}: {value}\n"));
        }
        text.push_str("---\n");
        text.push_str(&self.body);
        text
    }

    /// Writes the file into `store` (creating folders) and returns its path.
    pub fn write_in(&self, store: &Path) -> io::Result<PathBuf> {
        write_file(store, &self.rel_path(), &self.text())
    }
}

/// Writes `text` at `store/rel`, creating the folders on the way.
pub fn write_file(store: &Path, rel: &str, text: &str) -> io::Result<PathBuf> {
    let path = store.join(rel);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(&path, text)?;
    Ok(path)
}

/// `value` as a YAML scalar: plain when YAML reads it back as the same
/// string, double-quoted (JSON quoting, which YAML reads) otherwise.
fn scalar(value: &str) -> String {
    if is_plain_safe(value) {
        value.to_string()
    } else {
        serde_json::to_string(value).unwrap_or_default()
    }
}

/// Conservative: plain only for text that starts with a letter, digit or a
/// few safe marks and holds nothing YAML reads specially. A number stays
/// plain (`revision: 2` is the number a person types).
fn is_plain_safe(value: &str) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    let starts_well = first.is_alphanumeric() || "(/.~$".contains(first) || !first.is_ascii();
    let reserved = ["true", "false", "null", "yes", "no", "on", "off", "~"];
    starts_well
        && !value.ends_with(' ')
        && !value.contains(": ")
        && !value.contains(" #")
        && !value.ends_with(':')
        && !value.chars().any(|c| c.is_control())
        && !reserved.contains(&value.to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_made_record_has_the_three_keys_in_order() {
        let text = RecordFile::new("notes/deploy")
            .description("Deploys go out on Tuesdays")
            .body("Freeze on Fridays.\n")
            .text();
        assert_eq!(
            text,
            "---\nname: deploy\ndescription: Deploys go out on Tuesdays\ntype: project\n---\nFreeze on Fridays.\n"
        );
    }

    #[test]
    fn values_yaml_would_misread_are_quoted() {
        let text = RecordFile::new("a")
            .description("Ports: 8080 # main")
            .field("revision", "2")
            .field("tags", "[ci, rust]")
            .text();
        assert!(
            text.contains("description: \"Ports: 8080 # main\"\n"),
            "{text}"
        );
        assert!(text.contains("revision: 2\n"), "{text}");
        assert!(text.contains("tags: [ci, rust]\n"), "{text}");
        for value in ["true", "", "- x", "* y", "a: b", "line\nbreak"] {
            assert_ne!(scalar(value), value, "{value:?}");
        }
    }

    #[test]
    fn verbatim_values_are_written_as_typed() {
        let text = RecordFile::new("a").description("a: b").verbatim().text();
        assert!(text.contains("description: a: b\n"), "{text}");
    }

    #[test]
    fn written_records_carry_memctls_keys_and_a_field_set_twice_is_replaced() {
        let text = RecordFile::written("a").source("user").text();
        assert_eq!(text.matches("source:").count(), 1, "{text}");
        assert!(text.contains("source: user\n") && text.contains("revision: 1\n"));
    }
}
