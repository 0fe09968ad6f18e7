//! A model's merge of `user` or `verified` records (SPEC §7) may only unite
//! them: the merged body's lines are the sources' lines and nothing else,
//! each reading as it read in its source (`mdstore::markdown`: the same
//! fact, in the same kind of block, quoted as deep, under the same
//! headings and list items, with the same struck, commented or hidden
//! text); its name is one of theirs, its description one of theirs, its
//! tags theirs, and it expires only if every source does, no earlier.
//! Keeping a fact only inside `~~ ~~`, `<!-- -->`, `<del>`, `<details>` or a
//! code fence, or after an added "It is false that:" or a heading "Wrong:",
//! is an added or changed line, and refused: a model's text is `inferred`,
//! and a merge would write it under the sources' trust.

use std::collections::{BTreeSet, HashSet};

use mdstore::expiry::Expiry;
use mdstore::markdown::{self, Block, Line, PartKind};

use crate::plan::NewRecord;
use crate::records::DreamRecord;

use super::{Rejection, Rule, shown};

/// A line as it reads on its own: its block, quote depth and pieces (live
/// text as one kind, folded as facts are).
type Shape = (Block, usize, Vec<(PartKind, String)>);

/// A line as it reads in its body: its shape and the shapes of the
/// headings and list items above it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Reading {
    shape: Shape,
    context: Vec<Shape>,
}

fn shape(line: &Line) -> Shape {
    let mut parts: Vec<(PartKind, String)> = Vec::new();
    for part in &line.parts {
        let kind = if part.kind.is_live() {
            PartKind::Text
        } else {
            part.kind
        };
        match parts.last_mut() {
            Some((last, text)) if *last == kind => text.push_str(&part.text),
            _ => parts.push((kind, part.text.clone())),
        }
    }
    let parts = parts
        .into_iter()
        .map(|(kind, text)| (kind, markdown::fact(&text)))
        .filter(|(_, text)| !text.is_empty())
        .collect();
    (line.block, line.quote_depth, parts)
}

/// A non-blank line of a body: as written, and as it reads.
struct ReadLine<'a> {
    raw: &'a str,
    reading: Reading,
    line: Line,
}

/// Every non-blank line of `body`.
fn readings(body: &str) -> Vec<ReadLine<'_>> {
    let lines = markdown::read(body);
    lines
        .iter()
        .filter(|line| line.block != Block::Blank)
        .map(|line| ReadLine {
            raw: &body[line.span.clone()],
            reading: Reading {
                shape: shape(line),
                context: line.context.iter().map(|&c| shape(&lines[c])).collect(),
            },
            line: line.clone(),
        })
        .collect()
}

/// Checks a model's merge of `sources` (all `user`, or all `verified`) into
/// `into`.
pub(super) fn check_union(
    index: usize,
    sources: &[&DreamRecord],
    into: &NewRecord,
) -> Result<(), Rejection> {
    let refuse = |detail: String| {
        Rejection::new(
            Rule::RewritesTrusted,
            Some(index),
            format!(
                "a model's merge of {} records may only unite their lines: {detail}",
                sources[0].record.source()
            ),
        )
    };
    fields(sources, into).map_err(refuse)?;
    body(sources, &into.body).map_err(refuse)
}

/// The merged record's name, description, tags and `expires`.
fn fields(sources: &[&DreamRecord], into: &NewRecord) -> Result<(), String> {
    let name_key = mdstore::id::normalize_name(&into.name)
        .map(|n| mdstore::id::id_key(&n))
        .unwrap_or_default();
    if !sources
        .iter()
        .any(|s| mdstore::id::id_key(&s.record.id) == name_key)
    {
        return Err(format!(
            "the merged record is named {}, none of its sources' names",
            shown(&into.name)
        ));
    }
    let description = markdown::fact(&into.description);
    if !sources
        .iter()
        .any(|s| markdown::fact(s.record.meta.description.as_deref().unwrap_or("")) == description)
    {
        return Err(format!(
            "its description {} is none of its sources' descriptions",
            shown(&into.description)
        ));
    }
    let tag_set = |tags: &mut dyn Iterator<Item = &String>| -> BTreeSet<String> {
        tags.map(|t| t.trim().to_lowercase()).collect()
    };
    let theirs = tag_set(&mut sources.iter().flat_map(|s| s.record.meta.tags.iter()));
    if tag_set(&mut into.tags.iter()) != theirs {
        return Err("its tags are not the union of its sources' tags".to_string());
    }
    if let Some(expires) = &into.expires {
        let latest = sources
            .iter()
            .map(|s| s.record.meta.expires.as_deref().and_then(Expiry::parse))
            .collect::<Option<Vec<Expiry>>>()
            .and_then(|all| all.into_iter().max());
        let keeps = match (latest, Expiry::parse(expires)) {
            (Some(latest), Some(new)) => new >= latest,
            _ => false,
        };
        if !keeps {
            return Err(format!(
                "it would expire on {} while a source expires later or not at all",
                shown(expires)
            ));
        }
    }
    Ok(())
}

/// The merged body's lines are exactly the sources' lines, as they read.
fn body(sources: &[&DreamRecord], new_body: &str) -> Result<(), String> {
    let theirs: Vec<(&DreamRecord, Vec<ReadLine<'_>>)> = sources
        .iter()
        .map(|s| (*s, readings(&s.record.body)))
        .collect();
    let all: Vec<&ReadLine<'_>> = theirs.iter().flat_map(|(_, lines)| lines).collect();
    let known: HashSet<&Reading> = all.iter().map(|l| &l.reading).collect();
    let new = readings(new_body);
    if let Some(added) = new.iter().find(|l| !known.contains(&l.reading)) {
        return Err(format!(
            "line {} of the new body ({}) {}",
            added.line.number,
            shown(added.raw.trim()),
            why_new(added, &all)
        ));
    }
    let kept: HashSet<&Reading> = new.iter().map(|l| &l.reading).collect();
    for (source, lines) in &theirs {
        if let Some(lost) = lines.iter().find(|l| !kept.contains(&l.reading)) {
            return Err(format!(
                "line {} of {} ({}) is not in the new body as it reads there",
                lost.line.number,
                shown(&source.record.id),
                shown(lost.raw.trim())
            ));
        }
    }
    Ok(())
}

/// What is wrong with a new line that no source line reads like.
fn why_new(new: &ReadLine<'_>, theirs: &[&ReadLine<'_>]) -> &'static str {
    let fact = new.line.fact();
    let same_fact = theirs
        .iter()
        .find(|source| !fact.is_empty() && source.line.fact() == fact);
    match same_fact {
        _ if new.line.hides() => {
            "holds struck, commented or hidden text that no source holds there"
        }
        None => "is in no source: a merge adds nothing",
        Some(source) if source.reading.shape.0 != new.reading.shape.0 => {
            "reads as another kind of block (code, a heading, HTML) than in its source"
        }
        Some(source) if source.reading.context != new.reading.context => {
            "stands under another heading or list item than in its source"
        }
        Some(_) => "reads otherwise than in its source",
    }
}
