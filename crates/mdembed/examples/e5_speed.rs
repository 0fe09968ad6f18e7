//! How long the e5 port takes on one core, then on two: loading the model,
//! one short prompt, one passage of 400 characters (median of several runs
//! each).
//!
//!     cargo run --release -p mdembed --example e5_speed -- path/to/e5-small-q4.bin
//!
//! docs/EMBEDDINGS.md has the figures it printed.

use std::path::PathBuf;
use std::time::Instant;

use mdembed::e5::{E5, Kind};

fn median_ms(mut runs: Vec<f64>) -> f64 {
    runs.sort_by(f64::total_cmp);
    runs[runs.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path: PathBuf = std::env::args_os()
        .nth(1)
        .ok_or("usage: e5_speed path/to/e5-small-q4.bin")?
        .into();
    for threads in [1, 2] {
        let start = Instant::now();
        let model = E5::open(&path)?.with_threads(threads);
        let load = start.elapsed().as_secs_f64() * 1e3;
        println!("{threads} thread(s): load {load:.0} ms");
        measure(&model);
    }
    Ok(())
}

fn measure(model: &E5) {
    let prompts = [
        "how do we deploy the app?",
        "数据库连接池的配置在哪里？",
        "テストが失敗したときはどうすればいいですか",
        "배포 전에 무엇을 확인해야 하나요?",
        "fix the flaky test in auth_test.go",
        "why does cargo build fail on CI but not locally?",
    ];
    let passage = "Deploy via make release from a clean checkout of the tag: the script builds the \
        containers, pushes them to the registry, applies the database migrations inside a \
        transaction and shifts traffic to the new version ten percent at a time while watching \
        the error rate. If the error rate rises above half a percent the script shifts all \
        traffic back and the on-call engineer opens an incident. Never deploy on a Friday.";
    let time = |text: &str, kind: Kind, runs: usize| {
        let times = (0..runs)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(model.embed(text, kind));
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        median_ms(times)
    };
    let short: Vec<f64> = prompts.iter().map(|p| time(p, Kind::Query, 5)).collect();
    println!(
        "short prompt ({} to {} pieces): median {:.1} ms (per prompt: {:?})",
        prompts
            .iter()
            .map(|p| model.tokenize(p, Kind::Query).len())
            .min()
            .unwrap_or(0)
            + 2,
        prompts
            .iter()
            .map(|p| model.tokenize(p, Kind::Query).len())
            .max()
            .unwrap_or(0)
            + 2,
        median_ms(short.clone()),
        short.iter().map(|t| format!("{t:.1}")).collect::<Vec<_>>()
    );
    println!(
        "passage of {} characters ({} pieces): median {:.1} ms",
        passage.chars().count(),
        model.tokenize(passage, Kind::Passage).len() + 2,
        time(passage, Kind::Passage, 7)
    );
}
