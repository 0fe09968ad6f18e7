//! Content fingerprints: what makes two records "the same content" (SPEC §6
//! NOOP), what a tombstone remembers of a forgotten record, and what a
//! reader saw of a record it means to act on.

use crate::record::{Record, RecordType};

/// A hex BLAKE3 hash of a record's description and body, with whitespace runs
/// collapsed and case folded so that re-wrapping or re-casing a fact does not
/// make it new.
pub fn content_hash(description: &str, body: &str) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(normalize(description).as_bytes());
    hasher.update(b"\n\0\n");
    hasher.update(normalize(body).as_bytes());
    hasher.finalize().to_hex().to_string()
}

/// A hex BLAKE3 hash of a record as a reader took it in: its type, its
/// source (a file without one counts as `user`), its description and its
/// body, exactly. Whoever acts on what they read (an agent's `forget`,
/// `dream`'s apply) compares it, under the lock, with the file as it is
/// now: a hand edit that left `revision` alone still changes it.
pub fn read_hash(record: &Record) -> String {
    let mut hasher = blake3::Hasher::new();
    let parts = [
        record.meta.record_type.map_or("", RecordType::as_str),
        record.source().as_str(),
        record.meta.description.as_deref().unwrap_or(""),
        record.body.as_str(),
    ];
    for part in parts {
        // Each part's length first, so that no two records share a hash by
        // moving text from one part to the next.
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize().to_hex().to_string()
}

fn normalize(text: &str) -> String {
    text.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_and_case_do_not_matter() {
        assert_eq!(
            content_hash("Use pytest", "New tests\nuse pytest.\n"),
            content_hash("use  pytest", "new tests use Pytest.")
        );
        assert_ne!(content_hash("a", "b"), content_hash("a b", ""));
    }

    #[test]
    fn read_hash_sees_what_content_hash_forgives_and_every_part() {
        let record = |description: &str, body: &str| Record {
            meta: crate::Meta {
                description: Some(description.into()),
                record_type: Some(RecordType::Project),
                ..crate::Meta::default()
            },
            id: "r".into(),
            rel_path: "r.md".into(),
            frontmatter: None,
            body: body.into(),
            problems: Vec::new(),
            written_name: None,
        };
        let read = read_hash(&record("Use pytest", "New tests use pytest."));
        assert_eq!(
            read,
            read_hash(&record("Use pytest", "New tests use pytest."))
        );
        for other in [
            record("use pytest", "New tests use pytest."),
            record("Use pytest", "New tests use pytest. Also tox."),
            record("Use pytest New", "tests use pytest."),
        ] {
            assert_ne!(read, read_hash(&other));
        }
        let mut typed = record("Use pytest", "New tests use pytest.");
        typed.meta.record_type = Some(RecordType::Feedback);
        assert_ne!(read, read_hash(&typed));
        let mut inferred = record("Use pytest", "New tests use pytest.");
        inferred.meta.source = Some(crate::Source::Inferred);
        assert_ne!(read, read_hash(&inferred));
    }
}
