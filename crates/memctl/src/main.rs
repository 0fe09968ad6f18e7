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
mod stores;
mod ui;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::failure::Exit;
use crate::ui::Ui;

fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(cli::protect_search_query(std::env::args_os().collect())) {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() {
                Exit::BadInput
            } else {
                Exit::Ok
            };
            let _ = err.print();
            return ExitCode::from(code as u8);
        }
    };
    let ui = Ui::new(&cli.global);
    let exit = match run(cli, &ui) {
        Ok(exit) => exit,
        Err(err) => report(&ui, &err),
    };
    ExitCode::from(exit as u8)
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
    }
}

/// Prints an error with its causes and hint; returns its exit code.
fn report(ui: &Ui, err: &anyhow::Error) -> Exit {
    let (exit, message, hint) = failure::classify(err);
    ui.error(&message, hint.as_deref());
    exit
}
