//! Content fingerprints: what makes two records "the same content" (SPEC §6
//! NOOP) and what a tombstone remembers of a forgotten record.

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
}
