//! Git's conflict markers in a record file: finding them (such a file is not
//! read as a record until a person resolves it) and splitting the file into
//! the two versions a merge left in it.

/// One side of a conflicted file: its label from the marker line (`HEAD`,
/// a branch name) and its text with the other side's hunks left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    pub label: String,
    pub text: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Marker {
    Ours,
    Base,
    Separator,
    Theirs,
}

/// `<<<<<<< x`, `||||||| x`, `=======`, `>>>>>>> x`, with the label.
fn marker(line: &str) -> Option<(Marker, &str)> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line == "=======" {
        return Some((Marker::Separator, ""));
    }
    let kind = match line.get(..7)? {
        "<<<<<<<" => Marker::Ours,
        "|||||||" => Marker::Base,
        ">>>>>>>" => Marker::Theirs,
        _ => return None,
    };
    let rest = &line[7..];
    match rest.strip_prefix(' ') {
        Some(label) => Some((kind, label)),
        None if rest.is_empty() => Some((kind, "")),
        None => None,
    }
}

/// Every marker line of `text` that counts, with its kind: 0-based line
/// and kind, in order. A record may quote conflict markers in a closed
/// fenced code block (how to resolve a merge) without being in conflict, so
/// the markers of a closed fence (read as Markdown: `crate::markdown`) are
/// text when they form only whole blocks there. A fence left open, or one
/// a conflict's two sides opened and closed, quotes nothing: its markers
/// count. A real conflict in memctl's records is in the header (every write
/// changes `revision`), never inside a fence.
fn counted_markers(text: &str) -> Vec<(usize, Marker)> {
    let found: Vec<(usize, Marker)> = text
        .split('\n')
        .enumerate()
        .filter_map(|(at, line)| marker(line).map(|(kind, _)| (at, kind)))
        .collect();
    // Most files hold no whole block: no need to read them as Markdown.
    if complete_blocks(&found).is_empty() {
        return Vec::new();
    }
    let mut quoted = vec![false; found.len()];
    for fence in crate::markdown::closed_code_fences(text) {
        let inside: Vec<usize> = (0..found.len())
            .filter(|&i| fence.contains(&found[i].0))
            .collect();
        let markers: Vec<(usize, Marker)> = inside.iter().map(|&i| found[i]).collect();
        if complete_blocks(&markers).len() == markers.len() {
            inside.iter().for_each(|&i| quoted[i] = true);
        }
    }
    found
        .into_iter()
        .zip(quoted)
        .filter(|(_, quoted)| !quoted)
        .map(|(marker, _)| marker)
        .collect()
}

/// The lines of the complete conflict blocks among `markers` (`<<<<<<<`,
/// optionally `|||||||`, `=======`, `>>>>>>>`, in that order).
fn complete_blocks(markers: &[(usize, Marker)]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut state = None;
    for &(at, kind) in markers {
        match (state, kind) {
            (_, Marker::Ours) => {
                open = vec![at];
                state = Some(Marker::Ours);
            }
            (Some(Marker::Ours), Marker::Base) => {
                open.push(at);
                state = Some(Marker::Base);
            }
            (Some(Marker::Ours | Marker::Base), Marker::Separator) => {
                open.push(at);
                state = Some(Marker::Separator);
            }
            (Some(Marker::Separator), Marker::Theirs) => {
                open.push(at);
                found.append(&mut open);
                state = None;
            }
            _ => {}
        }
    }
    found
}

/// The 1-based lines of every marker in complete conflict blocks, or an
/// empty list. A lone `=======` is a Markdown heading underline, not a
/// conflict, so only whole blocks count.
pub fn marker_lines(text: &str) -> Vec<usize> {
    complete_blocks(&counted_markers(text))
        .into_iter()
        .map(|at| at + 1)
        .collect()
}

/// The two versions of a file holding conflict blocks: ours (the lines
/// before `|||||||` or `=======`) and theirs (the lines after `=======`),
/// with every line outside the blocks in both. `None` without a block.
pub fn sides(text: &str) -> Option<(Side, Side)> {
    let counted: std::collections::HashSet<usize> = complete_blocks(&counted_markers(text))
        .into_iter()
        .collect();
    if counted.is_empty() {
        return None;
    }
    let mut ours = Side {
        label: String::new(),
        text: String::new(),
    };
    let mut theirs = ours.clone();
    let mut state = None;
    for (at, line) in text.split_inclusive('\n').enumerate() {
        let found = if counted.contains(&at) {
            marker(line.trim_end_matches('\n'))
        } else {
            None
        };
        match (state, found) {
            (_, Some((Marker::Ours, label))) => {
                if ours.label.is_empty() {
                    ours.label = label.to_string();
                }
                state = Some(Marker::Ours);
            }
            (Some(Marker::Ours), Some((Marker::Base, _))) => state = Some(Marker::Base),
            (Some(Marker::Ours | Marker::Base), Some((Marker::Separator, _))) => {
                state = Some(Marker::Separator);
            }
            (Some(Marker::Separator), Some((Marker::Theirs, label))) => {
                if theirs.label.is_empty() {
                    theirs.label = label.to_string();
                }
                state = None;
            }
            (Some(Marker::Ours), _) => ours.text.push_str(line),
            (Some(Marker::Base), _) => {}
            (Some(Marker::Separator), _) => theirs.text.push_str(line),
            (_, _) => {
                ours.text.push_str(line);
                theirs.text.push_str(line);
            }
        }
    }
    Some((ours, theirs))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFLICTED: &str = "---\nname: x\n<<<<<<< HEAD\ndescription: ours\nrevision: 2\n||||||| base\ndescription: base\n=======\ndescription: theirs\nrevision: 3\n>>>>>>> other\n---\nBody.\n";

    #[test]
    fn marker_lines_of_a_diff3_conflict() {
        assert_eq!(marker_lines(CONFLICTED), vec![3, 6, 8, 11]);
    }

    #[test]
    fn setext_heading_underline_is_not_a_conflict() {
        assert_eq!(
            marker_lines("Title\n=======\n\nText.\n"),
            Vec::<usize>::new()
        );
        assert_eq!(
            marker_lines("<<<<<<< only an opening\ntext\n"),
            Vec::<usize>::new()
        );
        assert_eq!(
            marker_lines("<<<<<<<<< eight\n=======\n>>>>>>>>> eight\n"),
            Vec::<usize>::new()
        );
    }

    /// A record about resolving merges quotes markers in a code block: it
    /// is not in conflict, and was hidden as if it were.
    #[test]
    fn conflict_markers_quoted_in_a_code_block_are_not_a_conflict() {
        let text = "Resolve it:\n\n```\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> b\n```\n";
        assert_eq!(marker_lines(text), Vec::<usize>::new());
        let tilde = format!("{}\n<<<<<<< HEAD\n", text.replace("```", "~~~"));
        assert_eq!(marker_lines(&tilde), Vec::<usize>::new());
        let after = format!("{text}<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n");
        assert_eq!(marker_lines(&after), vec![10, 12, 14]);
    }

    /// A fence that one side of a conflict opens and the other closes, or
    /// one left open, hides nothing: the conflict is found.
    #[test]
    fn a_fence_the_conflict_itself_opened_does_not_hide_it() {
        let split = "x\n<<<<<<< HEAD\n```\n=======\n```\n>>>>>>> b\n";
        assert_eq!(marker_lines(split), vec![2, 4, 6]);
        let open = "<<<<<<< HEAD\n```\nours\n=======\ntheirs\n>>>>>>> b\n";
        assert_eq!(marker_lines(open), vec![1, 4, 6]);
        let (ours, theirs) = sides(split).unwrap();
        assert_eq!(
            (ours.text.as_str(), theirs.text.as_str()),
            ("x\n```\n", "x\n```\n")
        );
    }

    /// A YAML block scalar holding a fence line is not code: a conflict in
    /// the header after it is found.
    #[test]
    fn a_fence_in_the_frontmatter_does_not_hide_a_conflict() {
        let text = "---\ndescription: |\n  ```\n<<<<<<< HEAD\nrevision: 2\n=======\nrevision: 3\n>>>>>>> b\n  ```\n---\nBody.\n";
        assert_eq!(marker_lines(text), vec![4, 6, 8]);
    }

    #[test]
    fn crlf_conflict_markers_are_found() {
        let text = "a\r\n<<<<<<< HEAD\r\nx\r\n=======\r\ny\r\n>>>>>>> b\r\n";
        assert_eq!(marker_lines(text), vec![2, 4, 6]);
    }

    #[test]
    fn sides_split_a_conflicted_record_into_ours_and_theirs() {
        let (ours, theirs) = sides(CONFLICTED).unwrap();
        assert_eq!(ours.label, "HEAD");
        assert_eq!(theirs.label, "other");
        assert_eq!(
            ours.text,
            "---\nname: x\ndescription: ours\nrevision: 2\n---\nBody.\n"
        );
        assert_eq!(
            theirs.text,
            "---\nname: x\ndescription: theirs\nrevision: 3\n---\nBody.\n"
        );
        assert_eq!(sides("no conflict\n"), None);
    }
}
