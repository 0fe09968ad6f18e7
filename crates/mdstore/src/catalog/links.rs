//! The links of a `MEMORY.md` that memctl did not write (SPEC §3): Claude
//! Code's model keeps that index by hand, and it falls out of step with its
//! folder. A link to a file the store does not have leads an agent nowhere,
//! and regenerating the index drops its line, so `check` names them.
//!
//! Markdown is read with pulldown-cmark rather than a pattern, so that a
//! link inside a code span, a reference-style link and `<angle>` targets
//! count as CommonMark counts them.

use std::path::{Component, Path, PathBuf};

use percent_encoding::percent_decode_str;
use pulldown_cmark::{Event, Parser, Tag};

/// A link whose target is missing: its 1-based line and target as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingLink {
    pub line: usize,
    pub target: String,
}

/// Every link in `text` to a path inside `root` that does not exist, in
/// file order. Links elsewhere (a URL, an anchor, an absolute path, a path
/// that leaves the folder) are not the store's business and are left alone;
/// nothing is read, only looked up.
pub fn missing_links(root: &Path, text: &str) -> Vec<MissingLink> {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(at, _)| at + 1))
        .collect();
    let mut missing = Vec::new();
    for (event, range) in Parser::new(text).into_offset_iter() {
        let Event::Start(Tag::Link { dest_url, .. }) = event else {
            continue;
        };
        let Some(rel_path) = inside_path(&dest_url) else {
            continue;
        };
        if std::fs::symlink_metadata(root.join(&rel_path)).is_err() {
            missing.push(MissingLink {
                line: line_starts.partition_point(|&start| start <= range.start),
                target: dest_url.to_string(),
            });
        }
    }
    missing
}

/// The path a relative link leads to inside the folder, or `None` for a
/// link that is not to a file in it.
fn inside_path(dest: &str) -> Option<PathBuf> {
    let dest = dest.split(['#', '?']).next().unwrap_or_default();
    // A scheme (`https:`, `mailto:`) or a drive letter: not a relative path.
    if dest.is_empty() || dest.contains(':') || dest.starts_with(['/', '\\']) {
        return None;
    }
    let decoded = percent_decode_str(dest).decode_utf8().ok()?;
    let mut inside = PathBuf::new();
    for component in Path::new(decoded.as_ref()).components() {
        match component {
            Component::Normal(part) => inside.push(part),
            Component::CurDir => {}
            // `..` that stays inside is fine; past the root is elsewhere.
            Component::ParentDir => {
                if !inside.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!inside.as_os_str().is_empty()).then_some(inside)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn links_to_files_not_in_the_folder_are_found_with_their_lines() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("here.md"), "x").unwrap();
        fs::create_dir(dir.path().join("team")).unwrap();
        fs::write(dir.path().join("team/a b.md"), "x").unwrap();
        let text = "# Index\n\
            - [here](here.md) — fine\n\
            - [gone](gone.md) — missing\n\
            - [spaced](team/a%20b.md#top) and [up](team/../gone2.md)\n\
            - `[code](not-a-link.md)` and [web](https://example.com/x.md)\n\
            - [outside](../skills/SKILL.md), [abs](/etc/passwd), [anchor](#top)\n\
            - [ref][r]\n\n[r]: <missing ref.md>\n";
        let found = missing_links(dir.path(), text);
        assert_eq!(
            found,
            vec![
                MissingLink {
                    line: 3,
                    target: "gone.md".into()
                },
                MissingLink {
                    line: 4,
                    target: "team/../gone2.md".into()
                },
                MissingLink {
                    line: 7,
                    target: "missing ref.md".into()
                },
            ]
        );
    }
}
