//! Terminal output: colour, messages on stderr, the confirmation prompt.

use std::io::{self, IsTerminal, Write};

use crate::cli::{ColorChoice, GlobalArgs};

/// How this run talks to the user.
#[derive(Clone, Debug)]
pub struct Ui {
    pub color: bool,
    pub quiet: bool,
    pub verbose: bool,
    /// Both standard input and standard error are terminals: a person can be asked.
    pub interactive: bool,
}

impl Ui {
    pub fn new(args: &GlobalArgs) -> Ui {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = match args.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => !no_color && io::stdout().is_terminal(),
        };
        Ui {
            color,
            quiet: args.quiet,
            verbose: args.verbose,
            interactive: io::stdin().is_terminal() && io::stderr().is_terminal(),
        }
    }

    pub fn paint(&self, style: Style, text: &str) -> String {
        if self.color {
            format!("\x1b[{}m{text}\x1b[0m", style.code())
        } else {
            text.to_string()
        }
    }

    /// An informational line on stderr; silenced by `-q`.
    pub fn note(&self, text: &str) {
        if !self.quiet {
            eprintln!("{text}");
        }
    }

    /// A warning on stderr; never silenced.
    pub fn warn(&self, text: &str) {
        eprintln!("{} {text}", self.paint(Style::Yellow, "warning:"));
    }

    /// Asks `question [y/N]` on the terminal; `false` unless the answer is yes.
    pub fn confirm(&self, question: &str) -> io::Result<bool> {
        if !self.interactive {
            return Ok(false);
        }
        dialoguer::Confirm::new()
            .with_prompt(question)
            .default(false)
            .interact()
            .map_err(|e| match e {
                dialoguer::Error::IO(e) => e,
            })
    }
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
    fn code(self) -> &'static str {
        match self {
            Style::Bold => "1",
            Style::Red => "31",
            Style::Green => "32",
            Style::Yellow => "33",
            Style::Cyan => "36",
            Style::Dim => "2",
        }
    }
}

/// A unified diff of two texts, coloured when `ui.color`.
pub fn diff(ui: &Ui, old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(old_name, new_name)
        .to_string();
    if !ui.color {
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

/// Writes to stdout, treating a closed pipe (`memctl list | head`) as done.
pub fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
