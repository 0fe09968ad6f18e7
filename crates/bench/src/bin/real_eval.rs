//! The figures of docs/CONTEXT.md "Real folders": every labelled set of
//! `crates/bench/fixtures/` (real folders, our own Korean and Chinese
//! stores, the old development set) asked through the real binary,
//! `memctl search --limit 5 --json` and `memctl context --query --json`
//! for each prompt, each store a fresh copy with its own cache. The same
//! prompts are asked through the library too, and any answer where the two
//! differ is printed (the binary's figures are the ones reported).
//!
//! `cargo build --release -p memctl && cargo run --release -p memctl-bench --bin real_eval`
//! (`--misses` also lists every prompt context gets wrong: do not tune
//! while reading the held-out folders' misses.)
#![forbid(unsafe_code)]

use std::path::Path;
use std::time::Instant;

use anyhow::Context as _;
use mdindex::relevance::THRESHOLD;
use memctl_bench::binary::{self, Answer, BinaryStore};
use memctl_bench::context::{EvalStore, SHOWN};
use memctl_bench::report::{self, Measured, Outcome};
use memctl_bench::sets::{self, LabelledSet};

fn main() -> anyhow::Result<()> {
    let started = Instant::now();
    let show_misses = std::env::args().any(|a| a == "--misses");
    let exe = binary::release_binary()?;
    let found = sets::find(&sets::fixtures_root())?;
    let mut agreement = Agreement::default();
    let mut measured = Vec::new();
    for set in &found.sets {
        eprintln!("{}: {} prompts", set.name, set.prompts.len());
        measured.push(measure(&exe, set, &mut agreement)?);
    }
    println!("{}", report::tables(&measured));
    agreement.print();
    for skipped in &found.skipped {
        println!("- SKIPPED: {skipped}");
    }
    for set in &found.sets {
        for problem in sets::label_problems(set) {
            println!("- label problem: {problem}");
        }
    }
    if show_misses {
        println!("\n## Misses of context\n");
        for set in &measured {
            print!("{}", report::misses(set));
        }
    }
    println!(
        "\nMeasured with {} in {:.0} s.",
        exe.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Where the binary and the library answered differently.
#[derive(Default)]
struct Agreement {
    prompts: usize,
    search_differs: Vec<String>,
    context_differs: Vec<String>,
    /// Prompts where `context` left out records the judgement passed (its
    /// budget of characters), and how many of those were relevant.
    cut_prompts: usize,
    cut_records: usize,
    cut_relevant: usize,
    refused: Vec<String>,
}

impl Agreement {
    fn print(&self) {
        println!(
            "Binary and library: of {} prompts, `search` differed on {} and `context` on {}; \
             `context` left out {} records the judgement passed, on {} prompts ({} of them relevant), \
             for its budget of 9,000 characters; `search` refused {} prompts (counted as showing nothing).\n",
            self.prompts,
            self.search_differs.len(),
            self.context_differs.len(),
            self.cut_records,
            self.cut_prompts,
            self.cut_relevant,
            self.refused.len()
        );
        for line in self
            .search_differs
            .iter()
            .chain(&self.context_differs)
            .chain(&self.refused)
        {
            println!("- {line}");
        }
    }
}

/// One set through the binary (the figures) and the library (the check).
fn measure(exe: &Path, set: &LabelledSet, agreement: &mut Agreement) -> anyhow::Result<Measured> {
    let binary = BinaryStore::new(exe, &set.store)?;
    let library = EvalStore::new(&set.store, &[])?;
    let mut outcomes = Vec::new();
    for (at, prompt) in set.prompts.iter().enumerate() {
        let name = format!("{} prompt {at}", set.name);
        let search = binary.search(&prompt.text, SHOWN).context(name.clone())?;
        let context = binary.context(&prompt.text, None).context(name.clone())?;
        let library_search = library.search(&prompt.text, SHOWN).context(name.clone())?;
        let passed: Vec<String> = library
            .recall(&prompt.text, &THRESHOLD)
            .context(name.clone())?
            .into_iter()
            .take(SHOWN)
            .map(|(id, _)| id)
            .collect();
        agreement.prompts += 1;
        if let Answer::Refused(why) = &search {
            agreement
                .refused
                .push(format!("{name}: search refused it: {why}"));
        }
        if search.ids() != library_search.as_slice() {
            agreement.search_differs.push(format!(
                "{name}: search gave {:?}, the library {library_search:?}",
                search.ids()
            ));
        }
        let shown = context.ids();
        if shown != passed.as_slice() {
            if is_subsequence(shown, &passed) {
                let cut: Vec<&String> = passed.iter().filter(|id| !shown.contains(id)).collect();
                agreement.cut_prompts += 1;
                agreement.cut_records += cut.len();
                agreement.cut_relevant +=
                    cut.iter().filter(|id| prompt.relevant.contains(id)).count();
            } else {
                agreement.context_differs.push(format!(
                    "{name}: context showed {shown:?}, the library passed {passed:?}"
                ));
            }
        }
        outcomes.push(Outcome {
            prompt: prompt.clone(),
            search: search.ids().to_vec(),
            context: shown.to_vec(),
        });
    }
    Ok(Measured {
        name: set.name.clone(),
        role: set.role,
        outcomes,
    })
}

/// Whether `part` is `whole` with some items left out, in order.
fn is_subsequence(part: &[String], whole: &[String]) -> bool {
    let mut rest = whole.iter();
    part.iter().all(|id| rest.any(|w| w == id))
}
