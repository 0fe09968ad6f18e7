//! `memctl man`: the man page, rendered by clap_mangen from the parser that
//! gives `--help`, so the two cannot differ.

use anyhow::Context;
use clap::CommandFactory;

use crate::cli::{Cli, ManArgs};
use crate::failure::{Exit, Failure};

pub fn run(args: ManArgs) -> anyhow::Result<Exit> {
    let mut memctl = Cli::command();
    memctl.build();
    if let Some(dir) = &args.dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        clap_mangen::generate_to(memctl, dir)
            .with_context(|| format!("cannot write the pages into {}", dir.display()))?;
        return Ok(Exit::Ok);
    }
    let page = match &args.command {
        None => clap_mangen::Man::new(memctl),
        Some(name) => {
            let sub = memctl.find_subcommand(name).cloned().ok_or_else(|| {
                Failure::bad_input(format!("memctl has no command {name:?}"))
                    .with_hint("`memctl --help` lists them")
            })?;
            clap_mangen::Man::new(sub).title(format!("memctl-{name}"))
        }
    };
    let mut out = Vec::new();
    page.render(&mut out)?;
    crate::ui::print(&String::from_utf8_lossy(&out))?;
    Ok(Exit::Ok)
}
