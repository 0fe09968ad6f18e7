/*!
`memctl`: long-term memory for coding agents, kept as Markdown files people
own. This binary is a thin layer over the `mdstore` and `mdindex` libraries:
argument parsing, prompts, output and exit codes (SPEC §10).
*/
#![forbid(unsafe_code)]

mod cli;
mod cmd;
mod failure;
mod index_hook;
mod model_cmd;
mod stores;
mod ui;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::failure::Exit;
use crate::ui::Ui;

fn main() -> ExitCode {
    let args = cli::protect_search_query(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(err) => return ExitCode::from(parse_failure(&err, &args) as u8),
    };
    let ui = Ui::new(&cli.global);
    if let Some(body) = cli::body_looking_like_an_option(&cli, &args) {
        let message = cli::hide_secrets(&format!("unknown option '{body}' for remember"), &args);
        let hint = cli::hide_secrets(
            &format!("a body that starts with - goes after --: memctl remember ... -- '{body}'"),
            &args,
        );
        ui.error(&message, Some(&hint));
        return ExitCode::from(Exit::BadInput as u8);
    }
    let exit = match run(cli, &ui) {
        Ok(exit) => exit,
        Err(err) => report(&ui, &err, &args),
    };
    ExitCode::from(exit as u8)
}

/// Prints clap's message for bad arguments (or `--help`, `--version`),
/// hiding any secret among the arguments; returns the exit code.
fn parse_failure(err: &clap::Error, args: &[std::ffi::OsString]) -> Exit {
    if !err.use_stderr() {
        let _ = err.print();
        return Exit::Ok;
    }
    match cli::redacted_error(err, args) {
        Some(text) => eprint!("{text}"),
        None => {
            let _ = err.print();
        }
    }
    Exit::BadInput
}

fn run(cli: Cli, ui: &Ui) -> anyhow::Result<Exit> {
    let global = &cli.global;
    match cli.command {
        Command::Init(args) => cmd::admin::init(global, ui, args),
        Command::Remember(args) => cmd::remember::run(global, ui, args),
        Command::Forget(args) => cmd::forget::run(global, ui, args),
        Command::List(args) => cmd::read::list(global, ui, args),
        Command::Show(args) => cmd::read::show(global, ui, args),
        Command::Edit(args) => cmd::edit::run(global, ui, args),
        Command::Check => cmd::admin::check(global, ui),
        Command::Status => cmd::admin::status(global, ui),
        Command::Completions(args) => cmd::admin::completions(args),
        Command::Search(args) => cmd::search::search(global, ui, args),
        Command::Reindex(args) => cmd::search::reindex(global, ui, args),
        Command::Watch => cmd::search::watch(global, ui),
        Command::Dream(args) => cmd::dream::run(global, ui, args),
    }
}

/// Prints an error with its causes and hint, any secret among the
/// arguments hidden (`invalid name "…"`, `no record "…"`); returns its exit
/// code.
fn report(ui: &Ui, err: &anyhow::Error, args: &[std::ffi::OsString]) -> Exit {
    let (exit, message, hint) = failure::classify(err);
    let hint = hint.map(|hint| cli::hide_secrets(&hint, args));
    ui.error(&cli::hide_secrets(&message, args), hint.as_deref());
    exit
}
