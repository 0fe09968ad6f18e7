/*!
The memctl benchmark program (run on demand by `bench/run.sh`; never part of
the test suite). It generates stores of 1,000, 10,000 and 100,000 records,
times whole `memctl` processes on them against baselines measured in the same
run (a bare FTS5 table, ripgrep), and writes docs/BENCHMARKS.md.

Usage: `memctl-bench --memctl target/release/memctl [--sizes 1000,10000] [--generator own|mixed]
[--out docs/BENCHMARKS.md] [--corpus DIR]`

`--generator own` (the default) writes the ~1 KB word-salad records of
src/generate.rs; `mixed` the prose, languages and faults of src/mixed.rs.
*/
#![forbid(unsafe_code)]

mod generate;
mod measure;
mod mixed;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::measure::{Bench, Generator, secs};

struct Options {
    memctl: PathBuf,
    sizes: Vec<usize>,
    out: PathBuf,
    corpus: Option<PathBuf>,
    generator: Generator,
}

fn parse_args() -> anyhow::Result<Options> {
    let mut options = Options {
        memctl: PathBuf::from("target/release/memctl"),
        sizes: vec![1_000, 10_000, 100_000],
        out: PathBuf::from("docs/BENCHMARKS.md"),
        corpus: Some(PathBuf::from("../shared/corpora/frontmatter-wild")),
        generator: Generator::Own,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--memctl" => options.memctl = PathBuf::from(value()?),
            "--out" => options.out = PathBuf::from(value()?),
            "--corpus" => options.corpus = Some(PathBuf::from(value()?)),
            "--generator" => options.generator = Generator::parse(&value()?)?,
            "--sizes" => {
                options.sizes = value()?
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .replace('_', "")
                            .parse()
                            .with_context(|| format!("--sizes: bad number {s:?}"))
                    })
                    .collect::<anyhow::Result<_>>()?;
            }
            other => bail!(
                "unknown argument {other:?} (see the doc comment of crates/bench/src/main.rs)"
            ),
        }
    }
    Ok(options)
}

fn main() -> anyhow::Result<()> {
    let options = parse_args()?;
    let bench = Bench::new(&options.memctl)?;
    let mut report = String::new();
    writeln!(report, "# Benchmarks\n")?;
    writeln!(
        report,
        "Written by `bench/run.sh` (the program is `crates/bench`). Every figure is a whole `memctl` process \
         (release build) unless it says otherwise, the median of several runs, measured in one run against \
         baselines on the same data.\n"
    )?;
    writeln!(report, "{}\n", measure::machine_description())?;
    writeln!(
        report,
        "Stores written by the `{}` generator (`--generator`; crates/bench/src/main.rs says what each writes).\n",
        options.generator.name()
    )?;

    let mut rows = Vec::new();
    for &n in &options.sizes {
        eprintln!("== {n} records");
        rows.push(bench.size(n, options.generator)?);
    }
    report += &measure::size_tables(&rows);

    if let Some(corpus) = options.corpus.as_deref().filter(|c| c.is_dir()) {
        report += &corpus_section(&bench, corpus)?;
    } else {
        report += "\n## frontmatter-wild corpus\n\nThe corpus was absent in this run.\n";
    }
    std::fs::write(&options.out, &report)
        .with_context(|| format!("cannot write {}", options.out.display()))?;
    eprintln!("wrote {}", options.out.display());
    print!("{report}");
    Ok(())
}

fn corpus_section(bench: &Bench, corpus: &Path) -> anyhow::Result<String> {
    let store = bench.work().join("corpus");
    let mut files = 0;
    for entry in walkdir::WalkDir::new(corpus).min_depth(2) {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy();
        if entry.file_type().is_file() && name.ends_with(".md") {
            let rel = entry.path().strip_prefix(corpus)?;
            let target = store.join(rel);
            std::fs::create_dir_all(target.parent().context("corpus file without a folder")?)?;
            std::fs::copy(entry.path(), &target)?;
            files += 1;
        }
    }
    let list = bench.median(5, &store, &["list"])?;
    let check = bench.median(5, &store, &["check"])?;
    let reindex = bench.median_fresh_index(3, &store, &["reindex"])?;
    Ok(format!(
        "\n## frontmatter-wild corpus\n\n{files} real files (238 with frontmatter strict YAML rejects), copied into a store.\n\n\
         | command | median |\n|---|---|\n| `list` | {} |\n| `check` (reads every file whole) | {} |\n| `reindex` | {} |\n",
        secs(list),
        secs(check),
        secs(reindex)
    ))
}
