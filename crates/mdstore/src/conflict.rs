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

/// Tells, line by line, whether a line is inside a fenced code block, where
/// a record may quote conflict markers (how to resolve a merge) without
/// being in conflict. A real conflict in memctl's records is in the header
/// (every write changes `revision`), never inside a fence.
#[derive(Default)]
struct Fences {
    open: Option<&'static str>,
}

impl Fences {
    /// Whether `line` is fenced code (a fence line itself counts as fenced).
    fn fenced(&mut self, line: &str) -> bool {
        let trimmed = line.trim_start();
        let fence = ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f));
        match (self.open, fence) {
            (None, Some(f)) => {
                self.open = Some(f);
                true
            }
            (Some(open), Some(f)) if open == f => {
                self.open = None;
                true
            }
            (open, _) => open.is_some(),
        }
    }
}

/// The 1-based lines of every marker in complete conflict blocks
/// (`<<<<<<<`, optionally `|||||||`, `=======`, `>>>>>>>`, in that order),
/// or an empty list. A lone `=======` is a Markdown heading underline, not
/// a conflict, so only whole blocks count.
pub fn marker_lines(text: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut state = None;
    let mut fences = Fences::default();
    for (at, line) in text.split('\n').enumerate() {
        if fences.fenced(line) {
            continue;
        }
        let Some((kind, _)) = marker(line) else {
            continue;
        };
        match (state, kind) {
            (_, Marker::Ours) => {
                open = vec![at + 1];
                state = Some(Marker::Ours);
            }
            (Some(Marker::Ours), Marker::Base) => {
                open.push(at + 1);
                state = Some(Marker::Base);
            }
            (Some(Marker::Ours | Marker::Base), Marker::Separator) => {
                open.push(at + 1);
                state = Some(Marker::Separator);
            }
            (Some(Marker::Separator), Marker::Theirs) => {
                open.push(at + 1);
                found.append(&mut open);
                state = None;
            }
            _ => {}
        }
    }
    found
}

/// The two versions of a file holding conflict blocks: ours (the lines
/// before `|||||||` or `=======`) and theirs (the lines after `=======`),
/// with every line outside the blocks in both. `None` without a block.
pub fn sides(text: &str) -> Option<(Side, Side)> {
    if marker_lines(text).is_empty() {
        return None;
    }
    let mut ours = Side {
        label: String::new(),
        text: String::new(),
    };
    let mut theirs = ours.clone();
    let mut state = None;
    let mut fences = Fences::default();
    for line in text.split_inclusive('\n') {
        let found = if fences.fenced(line) {
            None
        } else {
            marker(line.trim_end_matches('\n'))
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
