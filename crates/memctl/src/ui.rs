//! Terminal output: colour, messages on stderr, the confirmation prompt,
//! text from record files made safe to print and fitted to the terminal.

use std::borrow::Cow;
use std::io::{self, IsTerminal, Write};
use std::path::Path;

use anstream::ColorChoice as StreamChoice;
use anstream::stream::RawStream;
use anstyle::AnsiColor;
use dialoguer::console::{Key, Term};
use mdindex::Progress;
use mdstore::escape::{escape_controls, escape_controls_keep_lines, escape_json_controls};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::cli::{ColorChoice, GlobalArgs};

/// The width human output is fitted to when stdout is not a terminal and
/// `$COLUMNS` does not say: wide enough for a description to be read whole
/// in most cases, narrow enough for a log line.
const DEFAULT_WIDTH: usize = 100;

/// How this run talks to the user.
#[derive(Clone, Debug)]
pub struct Ui {
    /// Colour on stdout (results) and on stderr (notes, warnings, errors),
    /// decided per stream: `memctl list | less` keeps coloured warnings.
    pub color_out: bool,
    pub color_err: bool,
    pub quiet: bool,
    pub verbose: bool,
    /// Both standard input and standard error are terminals: a person can be asked.
    pub interactive: bool,
    /// Columns human output on stdout is fitted to.
    pub width: usize,
}

/// A use case's notes and warnings on the command line: stderr, notes
/// silenced by `--quiet`.
impl mdagent::face::Tell for Ui {
    fn note(&self, text: &str) {
        Ui::note(self, text);
    }
    fn warn(&self, text: &str) {
        Ui::warn(self, text);
    }
}

/// The person at the terminal, when there is one.
impl mdagent::face::Ask for Ui {
    fn confirm(&self, question: &str) -> io::Result<bool> {
        Ui::confirm(self, question)
    }
}

impl Ui {
    /// The output `args` ask for; `columns` is `$COLUMNS`, for output that
    /// goes to no terminal.
    pub fn new(args: &GlobalArgs, columns: Option<usize>) -> Ui {
        // anstream decides from --color, then NO_COLOR, CLICOLOR_FORCE,
        // CLICOLOR, TERM and whether the stream is a terminal.
        match args.color {
            ColorChoice::Always => StreamChoice::Always,
            ColorChoice::Never => StreamChoice::Never,
            ColorChoice::Auto => StreamChoice::Auto,
        }
        .write_global();
        Ui {
            color_out: wants_color(&io::stdout()),
            color_err: wants_color(&io::stderr()),
            quiet: args.quiet,
            verbose: args.verbose,
            interactive: io::stdin().is_terminal() && io::stderr().is_terminal(),
            width: output_width(columns),
        }
    }

    /// `text` in `style` for stdout.
    pub fn paint(&self, style: Style, text: &str) -> String {
        paint_if(self.color_out, style, text)
    }

    /// `text` in `style` for stderr.
    pub fn paint_err(&self, style: Style, text: &str) -> String {
        paint_if(self.color_err, style, text)
    }

    /// An informational line on stderr; silenced by `-q`.
    pub fn note(&self, text: &str) {
        if !self.quiet {
            eprintln!("{text}");
        }
    }

    /// A warning on stderr; never silenced. Warnings quote paths and
    /// fields of files, so control characters in them are escaped.
    pub fn warn(&self, text: &str) {
        eprintln!(
            "{} {}",
            self.paint_err(Style::Yellow, "warning:"),
            escape_controls_keep_lines(text)
        );
    }

    /// An error and its hint on stderr; never silenced. Escaped like [`Ui::warn`].
    pub fn error(&self, message: &str, hint: Option<&str>) {
        eprintln!(
            "{} {}",
            self.paint_err(Style::Red, "error:"),
            escape_controls_keep_lines(message)
        );
        if let Some(hint) = hint {
            eprintln!(
                "{} {}",
                self.paint_err(Style::Cyan, "hint:"),
                escape_controls_keep_lines(hint)
            );
        }
    }

    /// Tells the user where a `MEMORY.md` that memctl did not write was
    /// kept before it was replaced (SPEC §3: never replaced silently). A
    /// warning, so that `-q` does not hide it.
    /// What a write found a killed writer had left and finished or undone
    /// when it took the lock (`mdstore::recover`), one warning each.
    pub fn warn_repaired(&self, root: &Path, recovered: &mdstore::recover::Recovered) {
        mdagent::face::warn_repaired(self, root, recovered);
    }

    pub fn warn_preserved(&self, kept: &Path) {
        self.warn(&mdagent::face::catalog_kept_message(kept));
    }

    /// [`Ui::warn_preserved`] for a catalogue a write regenerated.
    pub fn note_catalog(&self, catalog: &mdstore::catalog::Catalog) {
        if let Some(kept) = &catalog.preserved {
            self.warn_preserved(kept);
        }
    }

    /// Says that `nothing` happened because the person declined, or, with no
    /// terminal to ask on, how to go without asking (`hint`).
    pub fn not_confirmed(&self, nothing: &str, hint: &str) {
        if self.interactive {
            self.error(&format!("{nothing}: declined at the prompt"), None);
        } else {
            self.error(
                &format!("{nothing}: there is no terminal to confirm on"),
                Some(hint),
            );
        }
    }

    /// Asks `question [y/N]` on the terminal; `false` unless the answer is
    /// yes. Ctrl-D (end of input), Enter, `n`, `q` and Escape all mean no,
    /// and so does a key the terminal cannot name (what it answers for
    /// ever once it is no terminal); other keys are ignored. Hand-written over the terminal's keys rather
    /// than `dialoguer::Confirm`, which ignores Ctrl-D and so waits forever
    /// for an answer a person already gave.
    pub fn confirm(&self, question: &str) -> io::Result<bool> {
        if !self.interactive {
            return Ok(false);
        }
        let term = Term::stderr();
        term.write_str(&format!("{question} [y/N] "))?;
        term.flush()?;
        let yes = loop {
            match term.read_key() {
                Ok(Key::Char('y' | 'Y')) => break true,
                Ok(
                    Key::Char(END_OF_INPUT | 'n' | 'N' | 'q')
                    | Key::Enter
                    | Key::Escape
                    | Key::Unknown,
                ) => {
                    break false;
                }
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => break false,
                Err(e) => return Err(e),
                Ok(_) => {}
            }
        };
        term.write_line(if yes { "yes" } else { "no" })?;
        Ok(yes)
    }
}

/// Ctrl-D: the terminal, in the raw mode a key is read in, passes it on as
/// this character rather than ending the input.
const END_OF_INPUT: char = '\u{4}';

fn wants_color(stream: &impl RawStream) -> bool {
    anstream::AutoStream::choice(stream) != StreamChoice::Never
}

fn paint_if(color: bool, style: Style, text: &str) -> String {
    if color {
        let style = style.anstyle();
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

/// The terminal's width when stdout is one, else `$COLUMNS`, else
/// [`DEFAULT_WIDTH`].
fn output_width(columns: Option<usize>) -> usize {
    let stdout = io::stdout();
    if stdout.is_terminal()
        && let Some((terminal_size::Width(columns), _)) = terminal_size::terminal_size_of(&stdout)
    {
        return usize::from(columns);
    }
    columns.unwrap_or(DEFAULT_WIDTH)
}

#[derive(Clone, Copy, Debug)]
pub enum Style {
    Bold,
    Red,
    Green,
    Yellow,
    Cyan,
    Dim,
}

impl Style {
    fn anstyle(self) -> anstyle::Style {
        match self {
            Style::Bold => anstyle::Style::new().bold(),
            Style::Red => AnsiColor::Red.on_default(),
            Style::Green => AnsiColor::Green.on_default(),
            Style::Yellow => AnsiColor::Yellow.on_default(),
            Style::Cyan => AnsiColor::Cyan.on_default(),
            Style::Dim => anstyle::Style::new().dimmed(),
        }
    }
}

/// A name, description, tag or path from a record file as it may be printed:
/// control characters escaped (`\x1b`), one rule with `MEMORY.md`'s.
pub fn shown(text: &str) -> Cow<'_, str> {
    escape_controls(text)
}

/// A path as it may be printed: a file name can hold control characters too.
pub fn shown_path(path: &Path) -> String {
    escape_controls(&path.display().to_string()).into_owned()
}

/// A whole record file as it may be printed: lines and tabs kept, every
/// other control character escaped.
pub fn shown_file(text: &str) -> Cow<'_, str> {
    escape_controls_keep_lines(text)
}

/// Columns `text` takes on a terminal (CJK is two a character).
pub fn width(text: &str) -> usize {
    text.width()
}

/// `text` padded with spaces to `columns` display columns.
pub fn pad(text: &str, columns: usize) -> String {
    let mut out = text.to_string();
    out.extend(std::iter::repeat_n(
        ' ',
        columns.saturating_sub(width(text)),
    ));
    out
}

/// `text` in at most `columns` display columns, ending in `…` when cut.
pub fn fit(text: &str, columns: usize) -> Cow<'_, str> {
    if width(text) <= columns {
        return Cow::Borrowed(text);
    }
    let room = columns.saturating_sub(1);
    let mut used = 0;
    let mut kept = String::new();
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        kept.push(c);
    }
    Cow::Owned(format!("{}…", kept.trim_end()))
}

/// A unified diff of two texts, coloured when stdout takes colour.
pub fn diff(ui: &Ui, old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    // The old text may be a hand-written file holding terminal escapes.
    let (old, new) = (shown_file(old), shown_file(new));
    let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(old_name, new_name)
        .to_string();
    if !ui.color_out {
        return text;
    }
    text.lines()
        .map(|line| {
            let style = match line.as_bytes().first() {
                Some(b'+') => Some(Style::Green),
                Some(b'-') => Some(Style::Red),
                Some(b'@') => Some(Style::Cyan),
                _ => None,
            };
            match style {
                Some(style) => ui.paint(style, line) + "\n",
                None => format!("{line}\n"),
            }
        })
        .collect()
}

/// `1 record`, `2 records`.
pub fn count<N: std::fmt::Display + PartialEq + From<u8>>(n: N, one: &str, many: &str) -> String {
    let word = if n == N::from(1) { one } else { many };
    format!("{n} {word}")
}

/// Stores under this many records rebuild without a progress bar.
const PROGRESS_BAR_FROM: usize = 2_000;

/// A progress bar on a terminal for large rebuilds; nothing otherwise.
pub struct ProgressBar {
    enabled: bool,
    bar: Option<indicatif::ProgressBar>,
}

impl ProgressBar {
    pub fn new(ui: &Ui) -> ProgressBar {
        ProgressBar {
            enabled: !ui.quiet && std::io::stderr().is_terminal(),
            bar: None,
        }
    }

    pub fn update(&mut self, progress: Progress) {
        if !self.enabled || progress.total < PROGRESS_BAR_FROM {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new(progress.total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "indexing {bar:40} {pos}/{len} records ({eta} left)",
            ) {
                bar.set_style(style);
            }
            bar
        });
        bar.set_position(progress.done as u64);
    }

    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// Writes to stdout, treating a closed pipe (`memctl list | head`) as done.
pub fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Prints `value` as pretty JSON, with [`escape_json_controls`].
pub fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    let text = escape_json_controls(&serde_json::to_string_pretty(value)?);
    Ok(print(&(text + "\n"))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_takes_two_columns_when_padding() {
        assert_eq!(pad("한국", 6), "한국  ");
        assert_eq!(pad("ab", 6), "ab    ");
        assert_eq!(pad("toolong", 3), "toolong");
    }

    #[test]
    fn long_description_is_cut_to_the_columns() {
        assert_eq!(fit("short", 10), "short");
        assert_eq!(fit("exactly-10", 10), "exactly-10");
        assert_eq!(fit("one two three", 9), "one two…");
        // A wide character that would cross the edge is left out whole.
        assert_eq!(fit("ab한국어", 5), "ab한…");
        assert_eq!(width(&fit(&"설명".repeat(100), 31)), 31);
    }

    #[test]
    fn painting_is_per_stream() {
        assert_eq!(paint_if(false, Style::Red, "x"), "x");
        assert_eq!(paint_if(true, Style::Red, "x"), "\u{1b}[31mx\u{1b}[0m");
        assert_eq!(paint_if(true, Style::Bold, "x"), "\u{1b}[1mx\u{1b}[0m");
    }

    #[test]
    fn terminal_escape_in_an_updated_file_is_shown_escaped_in_the_diff() {
        let ui = Ui {
            color_out: false,
            color_err: false,
            quiet: false,
            verbose: false,
            interactive: false,
            width: DEFAULT_WIDTH,
        };
        let shown = diff(&ui, "a \u{1b}[2J\n", "b\n", "old", "new");
        assert!(shown.contains("-a \\x1b[2J\n+b\n"), "{shown}");
    }
}
