//! The one reading of a record's body as Markdown (CommonMark with GFM's
//! tables, task lists and strikethrough, by pulldown-cmark): line by line,
//! the text a reader sees (*live* text: prose and code) told apart from what
//! is there but not seen or not meant (struck through, inside an HTML
//! comment, inside an element that hides it such as `<details>` or `<del>`,
//! an image's alt text), and each line's place: its block (heading, code,
//! HTML, text), the headings and list items it stands under, its quote
//! depth. Facts are lines of the body, so every line keeps its number and
//! byte span in the source.
//!
//! Everything that judges a body's text reads it here: dream's facts and
//! terms (`mddream`), the fact rule of plan validation, the description a
//! body gives when the frontmatter has none, and which conflict markers a
//! closed code fence quotes (`conflict`).
//!
//! What counts as what:
//! - live: paragraph, list item, table cell and heading text; inline code;
//!   code block lines (a command is text a reader sees);
//! - struck: `~~x~~` and `~x~`, and text inside `<del>`, `<s>`, `<strike>`;
//! - comment: `<!-- … -->`, inline or as a block, over any number of lines;
//! - HTML: tags themselves, the text of an HTML block, and text inside an
//!   element other than plain formatting or with an attribute that can hide
//!   it (`style`, `hidden`, `class`, `dir`): see `html.rs`;
//! - marks: a link's or image's destination (not shown, but part of what the
//!   line says), a task box `[x]`;
//! - markup: a line with nothing else (a code fence, a thematic break, a
//!   setext underline, a table's delimiter row, a link reference
//!   definition) is its own raw text.

mod html;
#[cfg(test)]
mod tests;

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use unicode_normalization::UnicodeNormalization;

use html::HtmlState;

/// What a piece of a line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PartKind {
    /// Prose a reader sees.
    Text,
    /// Inline code, or a line of a code block.
    Code,
    /// Struck through: the writer says it is no longer so.
    Struck,
    /// Inside an HTML comment, delimiters included.
    Comment,
    /// HTML: a tag, an HTML block's text, or text an element hides.
    Html,
    /// A link's or image's destination.
    Target,
    /// A task box (`[x]`, `[ ]`).
    Task,
    /// The raw text of a line that holds nothing else.
    Markup,
}

impl PartKind {
    /// Whether a reader sees this as text.
    pub fn is_live(self) -> bool {
        matches!(self, PartKind::Text | PartKind::Code)
    }

    /// Whether this is text that is there but not seen, or not meant.
    pub fn is_hidden(self) -> bool {
        matches!(self, PartKind::Struck | PartKind::Comment | PartKind::Html)
    }
}

/// One piece of a line, in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub kind: PartKind,
    pub text: String,
}

/// The block a line's text belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Block {
    /// Nothing but whitespace.
    Blank,
    /// A paragraph, list item or table row.
    Text,
    /// A heading of this level.
    Heading(u8),
    /// A code block (fenced or indented), not its fences.
    Code,
    /// An HTML block.
    Html,
    /// A line with only markup (see the module's list).
    Markup,
}

/// One line of a body as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// 1-based.
    pub number: usize,
    /// Its bytes in the source, without the line break.
    pub span: Range<usize>,
    pub block: Block,
    pub quote_depth: usize,
    pub parts: Vec<Part>,
    /// The lines (0-based indices) of the headings and list items this line
    /// stands under, outermost first; a list item's own first line is not
    /// under itself.
    pub context: Vec<usize>,
}

impl Line {
    /// The text a reader sees on this line.
    pub fn live(&self) -> String {
        self.parts
            .iter()
            .filter(|p| p.kind.is_live())
            .map(|p| p.text.as_str())
            .collect()
    }

    /// [`Line::live`] with inline code in backticks, as dream's terms mark
    /// a word in backticks as a value.
    pub fn live_with_code_marks(&self) -> String {
        let mut out = String::new();
        for part in self.parts.iter().filter(|p| p.kind.is_live()) {
            if part.kind == PartKind::Code && self.block != Block::Code {
                out.push('`');
                out.push_str(&part.text);
                out.push('`');
            } else {
                out.push_str(&part.text);
            }
        }
        out
    }

    /// This line's fact ([`fact`] of its live text): empty when a reader
    /// sees no text on it.
    pub fn fact(&self) -> String {
        fact(&self.live())
    }

    /// Whether some text on this line is there but not seen, or not meant.
    pub fn hides(&self) -> bool {
        self.parts.iter().any(|p| p.kind.is_hidden())
    }
}

/// Text as a fact, the one definition every fact comparison uses: Unicode
/// NFKC, lower case, whitespace collapsed, a closing full stop (or comma,
/// colon, semicolon, `!`, `?`) removed. Markup is not part of it: read a
/// line first ([`Line::fact`]).
pub fn fact(text: &str) -> String {
    let normalized: String = text.nfkc().collect();
    let words: Vec<&str> = normalized.split_whitespace().collect();
    words
        .join(" ")
        .to_lowercase()
        .trim_end_matches(['.', ',', ';', ':', '!', '?'])
        .trim_end()
        .to_string()
}

/// Every line of `body`, read.
pub fn read(body: &str) -> Vec<Line> {
    Reader::new(body).run()
}

/// The facts of `body`: its lines' non-empty [`Line::fact`]s, in order, with
/// their 1-based line numbers.
pub fn facts(body: &str) -> Vec<(usize, String)> {
    read(body)
        .iter()
        .map(|line| (line.number, line.fact()))
        .filter(|(_, fact)| !fact.is_empty())
        .collect()
}

/// The text of `body` a reader sees, line for line (hidden text left out,
/// inline code in backticks): what dream's terms are made of.
pub fn live_text(body: &str) -> String {
    let lines: Vec<String> = read(body).iter().map(Line::live_with_code_marks).collect();
    lines.join("\n")
}

/// The description a body gives (SPEC §2): the live text of its first
/// heading, else of its first line of text, else its first line of code.
pub fn description(body: &str) -> Option<String> {
    let lines = read(body);
    let first = |wanted: fn(Block) -> bool| {
        lines
            .iter()
            .filter(|line| wanted(line.block))
            .map(|line| line.live().trim().to_string())
            .find(|text| !text.is_empty())
    };
    first(|b| matches!(b, Block::Heading(_)))
        .or_else(|| first(|b| b == Block::Text))
        .or_else(|| first(|b| b == Block::Code))
}

/// The lines (0-based, end exclusive) of every fenced code block of a whole
/// record file that has its closing fence; the frontmatter is not Markdown.
pub fn closed_code_fences(file: &str) -> Vec<Range<usize>> {
    let text = file.strip_prefix('\u{FEFF}').unwrap_or(file);
    let shift = file.len() - text.len();
    let starts = line_starts(file);
    let options = Options::ENABLE_YAML_STYLE_METADATA_BLOCKS | Options::ENABLE_TABLES;
    let mut out = Vec::new();
    let mut fenced = false;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                fenced = matches!(kind, CodeBlockKind::Fenced(_));
            }
            Event::End(TagEnd::CodeBlock) if fenced => {
                let range = range.start + shift..range.end + shift;
                out.extend(closed_fence_lines(file, &starts, range));
            }
            _ => {}
        }
    }
    out
}

/// The lines of the fenced block at `range` when its last line closes it.
fn closed_fence_lines(file: &str, starts: &[usize], range: Range<usize>) -> Option<Range<usize>> {
    let first = line_index(starts, range.start);
    let last = line_index(starts, range.end.saturating_sub(1).max(range.start));
    let opening = file[line_span(file, starts, first)]
        .trim_start_matches('\u{FEFF}')
        .trim_start();
    let closing = file[line_span(file, starts, last)].trim();
    let fence = opening.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let length = opening.chars().take_while(|&c| c == fence).count();
    let closes = last > first
        && closing.chars().all(|c| c == fence)
        && closing.chars().count() >= length.max(3);
    closes.then_some(first..last + 1)
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(at, _)| at + 1))
        .collect()
}

/// The 0-based line holding byte `offset`.
fn line_index(starts: &[usize], offset: usize) -> usize {
    starts
        .partition_point(|&start| start <= offset)
        .saturating_sub(1)
}

/// Line `index`'s bytes without its line break (`\n` or `\r\n`).
fn line_span(text: &str, starts: &[usize], index: usize) -> Range<usize> {
    let start = starts[index];
    let end = starts.get(index + 1).map_or(text.len(), |next| next - 1);
    let end = if text[start..end].ends_with('\r') {
        end - 1
    } else {
        end
    };
    start..end
}

/// The block a line's first piece of text is read in.
#[derive(Clone, Copy)]
enum Open {
    Heading(u8),
    Code,
    Html,
}

struct Reader<'t> {
    text: &'t str,
    starts: Vec<usize>,
    lines: Vec<Option<Line>>,
    open: Vec<Open>,
    /// Whether the code block open now is fenced.
    fenced: bool,
    quote_depth: usize,
    struck: usize,
    images: usize,
    targets: Vec<String>,
    headings: Vec<(u8, usize)>,
    items: Vec<usize>,
    html: HtmlState,
}

impl<'t> Reader<'t> {
    fn new(text: &'t str) -> Reader<'t> {
        let starts = line_starts(text);
        Reader {
            text,
            lines: vec![None; starts.len()],
            starts,
            open: Vec::new(),
            fenced: false,
            quote_depth: 0,
            struck: 0,
            images: 0,
            targets: Vec::new(),
            headings: Vec::new(),
            items: Vec::new(),
            html: HtmlState::default(),
        }
    }

    fn run(mut self) -> Vec<Line> {
        let options =
            Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS | Options::ENABLE_STRIKETHROUGH;
        let text = self.text;
        for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
            self.event(event, range);
        }
        self.finish()
    }

    fn event(&mut self, event: Event<'t>, range: Range<usize>) {
        let line = line_index(&self.starts, range.start);
        match event {
            Event::Start(tag) => self.start(tag, line),
            Event::End(tag) => self.end(tag, range),
            Event::Text(text) => {
                let kind = self.text_kind();
                self.emit(line, kind, &text);
            }
            Event::Code(code) => {
                let kind = match self.text_kind() {
                    PartKind::Text => PartKind::Code,
                    hidden => hidden,
                };
                self.emit(line, kind, &code);
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                let mut pieces = Vec::new();
                self.html.scan(&html, &mut |kind, piece: &str| {
                    pieces.push((kind, piece.to_string()));
                });
                let mut at = line;
                for (kind, piece) in pieces {
                    self.emit(at, kind, &piece);
                    at += piece.matches('\n').count();
                }
            }
            Event::TaskListMarker(done) => {
                self.emit(line, PartKind::Task, if done { "[x]" } else { "[ ]" });
            }
            Event::Rule => self.markup(line),
            _ => {}
        }
    }

    /// What text read now is, by what is open around it.
    fn text_kind(&self) -> PartKind {
        if self.struck > 0 {
            PartKind::Struck
        } else if self.images > 0 || self.html.hiding() {
            PartKind::Html
        } else if matches!(self.open.last(), Some(Open::Code)) {
            PartKind::Code
        } else if matches!(self.open.last(), Some(Open::Html)) {
            PartKind::Html
        } else {
            PartKind::Text
        }
    }

    fn start(&mut self, tag: Tag<'t>, line: usize) {
        match tag {
            Tag::Heading { level, .. } => {
                let level = level as u8;
                self.headings.retain(|&(l, _)| l < level);
                self.open.push(Open::Heading(level));
            }
            Tag::CodeBlock(kind) => {
                self.fenced = matches!(kind, CodeBlockKind::Fenced(_));
                if self.fenced {
                    self.markup(line);
                }
                self.open.push(Open::Code);
            }
            Tag::HtmlBlock => self.open.push(Open::Html),
            Tag::Item => self.items.push(line),
            Tag::BlockQuote(_) => self.quote_depth += 1,
            Tag::Strikethrough => self.struck += 1,
            Tag::Link { dest_url, .. } => self.targets.push(dest_url.to_string()),
            Tag::Image { dest_url, .. } => {
                self.images += 1;
                self.targets.push(dest_url.to_string());
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd, range: Range<usize>) {
        let line = line_index(&self.starts, range.start);
        match tag {
            TagEnd::Heading(level) => {
                self.open.pop();
                self.headings.push((level as u8, line));
            }
            TagEnd::CodeBlock => {
                self.open.pop();
                let closed = closed_fence_lines(self.text, &self.starts, range);
                if let Some(lines) = closed.filter(|_| self.fenced) {
                    self.markup(lines.end - 1);
                }
            }
            TagEnd::HtmlBlock => {
                self.open.pop();
            }
            TagEnd::Item => {
                self.items.pop();
            }
            TagEnd::BlockQuote(_) => self.quote_depth = self.quote_depth.saturating_sub(1),
            TagEnd::Strikethrough => self.struck = self.struck.saturating_sub(1),
            TagEnd::Link => self.target(line),
            TagEnd::Image => {
                self.images = self.images.saturating_sub(1);
                self.target(line);
            }
            _ => {}
        }
    }

    fn target(&mut self, line: usize) {
        if let Some(url) = self.targets.pop().filter(|url| !url.is_empty()) {
            self.emit(line, PartKind::Target, &url);
        }
    }

    /// The line's raw text as its one part, when nothing else is on it.
    fn markup(&mut self, line: usize) {
        if self.lines.get(line).is_some_and(Option::is_none) {
            let raw = self.text[line_span(self.text, &self.starts, line)].trim();
            if !raw.is_empty() {
                self.emit(line, PartKind::Markup, raw);
                if let Some(Some(read)) = self.lines.get_mut(line) {
                    read.block = Block::Markup;
                }
            }
        }
    }

    /// Adds `text` (which may run over several lines) from line `first` on.
    fn emit(&mut self, first: usize, kind: PartKind, text: &str) {
        for (offset, piece) in text.split('\n').enumerate() {
            let piece = piece.strip_suffix('\r').unwrap_or(piece);
            let index = first + offset;
            if piece.is_empty() || index >= self.lines.len() {
                continue;
            }
            let part = Part {
                kind,
                text: piece.to_string(),
            };
            if let Some(line) = &mut self.lines[index] {
                line.parts.push(part);
            } else {
                self.lines[index] = Some(self.new_line(index, part));
            }
        }
    }

    fn new_line(&self, index: usize, part: Part) -> Line {
        let block = match self.open.last() {
            Some(Open::Heading(level)) => Block::Heading(*level),
            Some(Open::Code) => Block::Code,
            Some(Open::Html) => Block::Html,
            None => Block::Text,
        };
        let mut context: Vec<usize> = self.headings.iter().map(|&(_, line)| line).collect();
        context.extend(self.items.iter().copied().filter(|&item| item != index));
        Line {
            number: index + 1,
            span: line_span(self.text, &self.starts, index),
            block,
            quote_depth: self.quote_depth,
            parts: vec![part],
            context,
        }
    }

    /// Lines no event reached: blank, or markup (a setext underline, a
    /// table's delimiter row, a link reference definition), standing where
    /// the line before them stands.
    fn finish(self) -> Vec<Line> {
        let mut out: Vec<Line> = Vec::with_capacity(self.lines.len());
        for (index, line) in self.lines.into_iter().enumerate() {
            let line = line.unwrap_or_else(|| {
                let span = line_span(self.text, &self.starts, index);
                let raw = self.text[span.clone()].trim();
                let before = out.last();
                Line {
                    number: index + 1,
                    span,
                    block: if raw.is_empty() {
                        Block::Blank
                    } else {
                        Block::Markup
                    },
                    quote_depth: before.map_or(0, |l| l.quote_depth),
                    parts: if raw.is_empty() {
                        Vec::new()
                    } else {
                        vec![Part {
                            kind: PartKind::Markup,
                            text: raw.to_string(),
                        }]
                    },
                    context: before.map(|l| l.context.clone()).unwrap_or_default(),
                }
            });
            out.push(line);
        }
        // A body ending in a line break has no line after it.
        if self.text.ends_with('\n') && out.last().is_some_and(|l| l.block == Block::Blank) {
            out.pop();
        }
        out
    }
}
