//! `memctl completions SHELL`: shell completions, from clap.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::failure::Exit;
use crate::ui;

pub fn run(args: CompletionsArgs) -> anyhow::Result<Exit> {
    let mut command = Cli::command();
    let mut buffer = Vec::new();
    clap_complete::generate(args.shell, &mut command, "memctl", &mut buffer);
    ui::print(&String::from_utf8_lossy(&buffer))?;
    Ok(Exit::Ok)
}
