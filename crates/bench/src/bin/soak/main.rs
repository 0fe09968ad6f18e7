/*!
The soak program (issue 9, proof 3; run on demand, never a test): concurrent
writers (`remember` new and update, `edit` through an `$EDITOR` script,
`forget`), searchers (each checking that a record a writer saved is found),
`dream --yes` now and then when the binary has it, and a watcher, all against
one store of `--records` generated records for `--minutes`. It reports every
operation's count and slowest run, classifies every non-zero exit, and at
the end checks that the files, the index (`reindex --check`), `MEMORY.md`
(`check`) and what each writer knows it saved all agree. docs/RELIABILITY.md
has the figures.

Usage: `memctl-soak --memctl target/release/memctl [--records 10000] [--minutes 10]
[--writers 3] [--searchers 2] [--dream-every 60] [--dir DIR]`
*/
#![forbid(unsafe_code)]

#[path = "../../generate.rs"]
#[allow(
    dead_code,
    reason = "the benchmark's generator; the soak uses part of it"
)]
mod generate;
mod run;
mod tally;
mod workers;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};

/// What the command line asks for.
pub struct Options {
    pub memctl: PathBuf,
    pub records: usize,
    pub duration: Duration,
    pub writers: usize,
    pub searchers: usize,
    pub dream_every: Duration,
    pub dir: Option<PathBuf>,
}

fn parse_args() -> anyhow::Result<Options> {
    let mut options = Options {
        memctl: PathBuf::from("target/release/memctl"),
        records: 10_000,
        duration: Duration::from_secs(600),
        writers: 3,
        searchers: 2,
        dream_every: Duration::from_secs(60),
        dir: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .with_context(|| format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<u64>()
                .with_context(|| format!("{flag} {value:?}: not a number"))
        };
        match flag.as_str() {
            "--memctl" => options.memctl = PathBuf::from(&value),
            "--records" => options.records = number()? as usize,
            "--minutes" => options.duration = Duration::from_secs(number()? * 60),
            "--seconds" => options.duration = Duration::from_secs(number()?),
            "--writers" => options.writers = number()? as usize,
            "--searchers" => options.searchers = number()? as usize,
            "--dream-every" => options.dream_every = Duration::from_secs(number()?),
            "--dir" => options.dir = Some(PathBuf::from(&value)),
            _ => bail!(
                "unknown argument {flag:?}; see the usage at the top of crates/bench/src/bin/soak/main.rs"
            ),
        }
    }
    if !options.memctl.is_file() {
        bail!(
            "{}: no memctl binary there; build it with `cargo build --release -p memctl`",
            options.memctl.display()
        );
    }
    Ok(options)
}

fn main() -> anyhow::Result<()> {
    let options = parse_args()?;
    let report = run::soak(&options)?;
    println!("{report}");
    if !report.agrees() {
        std::process::exit(1);
    }
    Ok(())
}
