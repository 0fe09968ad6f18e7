/*!
`memctl`: long-term memory for coding agents, kept as Markdown files people
own. This binary is a thin layer over the `mdagent` library (the use cases)
and the types of `mdstore` and `mdindex` it hands back: argument parsing,
prompts, output and exit codes (SPEC §10), and the MCP server's protocol.
*/
#![forbid(unsafe_code)]

mod cli;
mod cmd;
mod failure;
mod mcp;
mod ui;

use std::process::ExitCode;

use clap::Parser;
use mdstore::redact;

use crate::cli::{Cli, Command};
use crate::failure::Exit;
use crate::ui::Ui;

const FOUND_STORE_ONLY: &str = "--found-store is only for the hook's jobs";

fn main() -> ExitCode {
    let args = cli::protect_search_query(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(err) => return ExitCode::from(parse_failure(&err, &args) as u8),
    };
    let config = cli.global.config();
    let ui = Ui::new(&cli.global, config.columns());
    if let Some(body) = cli::body_looking_like_an_option(&cli, &args) {
        let message = redact::arguments(&format!("unknown option '{body}' for remember"), &args);
        let hint = redact::arguments(
            &format!("a body that starts with - goes after --: memctl remember ... -- '{body}'"),
            &args,
        );
        ui.error(&message, Some(&hint));
        return ExitCode::from(Exit::BadInput as u8);
    }
    // Only a hook's jobs take a found store: `init` or `setup` would make it a chosen one.
    let job = matches!(
        cli.command,
        Command::Watch(_) | Command::Extract(_) | Command::Dream(_)
    );
    if cli.global.found_store.is_some() && !(job || matches!(cli.command, Command::List(_))) {
        ui.error(FOUND_STORE_ONLY, Some("use --store DIR"));
        return ExitCode::from(Exit::BadInput as u8);
    }
    let exit = match run(cli, &config, &ui) {
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

fn run(cli: Cli, config: &mdagent::Config, ui: &Ui) -> anyhow::Result<Exit> {
    // After a merge, checkout or pull, MEMORY.md catches up with the records
    // before a command uses them. `check` and `status` report on the store
    // as it is, and `init` regenerates it anyway.
    let catalogs = matches!(
        cli.command,
        Command::Remember(_)
            | Command::Forget(_)
            | Command::List(_)
            | Command::Show(_)
            | Command::Edit(_)
            | Command::Search(_)
            | Command::Extract(_)
            | Command::Review(_)
            | Command::Mcp
            | Command::Dream(_)
    );
    if catalogs || matches!(cli.command, Command::Context(_)) {
        let prepared = mdagent::freshen::before_command(config, catalogs);
        for repaired in &prepared.repaired {
            ui.warn(&format!("repaired: {repaired}"));
        }
        for regenerated in prepared.regenerated.iter().filter(|_| ui.verbose) {
            ui.note(&format!(
                "Regenerated {}: git changed the records (a merge, checkout or pull).",
                regenerated.display()
            ));
        }
    }
    match cli.command {
        Command::Init(args) => cmd::init::run(config, ui, args),
        Command::Remember(args) => cmd::remember::run(config, ui, args),
        Command::Forget(args) => cmd::forget::run(config, ui, args),
        Command::List(args) => cmd::list::run(config, ui, args),
        Command::Show(args) => cmd::show::run(config, ui, args),
        Command::Edit(args) => cmd::edit::run(config, ui, args),
        Command::Log(args) => cmd::log::run(config, ui, args),
        Command::Check(args) => cmd::check::run(config, ui, args),
        Command::Status(args) => cmd::status::run(config, ui, &args),
        Command::Completions(args) => cmd::completions::run(args),
        Command::Search(args) => cmd::search::run(config, ui, args),
        Command::Reindex(args) => cmd::reindex::run(config, ui, args),
        Command::Watch(args) => cmd::watch::run(config, ui, &args),
        Command::Extract(args) => cmd::extract::run(config, ui, args),
        Command::Review(args) => cmd::review::run(config, ui, args),
        Command::Mcp => mcp::run(config, ui),
        Command::Dream(args) => cmd::dream::run(config, ui, args),
        Command::Context(args) => cmd::context::run(config, ui, args),
        Command::Hook(args) => Ok(cmd::hook::run(config, &args)),
        Command::Setup(args) => cmd::setup::run(config, ui, &args),
        Command::Model(args) => cmd::model::run(config, ui, args),
        Command::Man(args) => cmd::man::run(args),
    }
}

/// Prints an error with its causes and hint, any secret among the
/// arguments hidden (`invalid name "…"`, `no record "…"`); returns its exit
/// code.
fn report(ui: &Ui, err: &anyhow::Error, args: &[std::ffi::OsString]) -> Exit {
    let (exit, message, hint) = failure::classify(err);
    let hint = hint.map(|hint| redact::arguments(&hint, args));
    ui.error(&redact::arguments(&message, args), hint.as_deref());
    exit
}
