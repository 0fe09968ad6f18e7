//! Leave-one-folder-out choice of the relevance threshold, through the
//! library (fast: one search a prompt, no process): for each real folder,
//! the threshold is chosen on the other sets' prompts (`sweep::choose`: the
//! best worst margin to the targets) and the folder is then measured once
//! with it, through recall, the path `memctl context` takes. Prints each
//! fold's choice and its held-out figures next to the threshold in use.
//! Nothing is changed: choosing `relevance::THRESHOLD` stays a decision
//! made in mdindex, with these figures in view.
//!
//! `cargo run --release -p memctl-bench --bin relevance_sweep [-- --tune-on real,own,dev]
//! [--dump FILE]` (the roles of the sets tuned on, all three by default;
//! `--dump` also writes every prompt's candidates and their evidence as
//! JSON, to study features outside the grid).
#![forbid(unsafe_code)]

use std::time::Instant;

use anyhow::{Context as _, bail};
use mdindex::relevance::{THRESHOLD, Threshold};
use memctl_bench::context::{self, EvalStore, Figures, Prompt, SHOWN};
use memctl_bench::sets::{self, LabelledSet, Role};
use memctl_bench::sweep::{self, JudgedSet, SWEEP_CANDIDATES};

/// A set judged once, with what `search --limit 5` returns for each prompt.
struct Ready {
    set: LabelledSet,
    store: EvalStore,
    judged: JudgedSet,
    search: Vec<Vec<String>>,
}

fn main() -> anyhow::Result<()> {
    let started = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (tune_on, dump) = arguments(&args)?;
    let found = sets::find(&sets::fixtures_root())?;
    for skipped in &found.skipped {
        eprintln!("SKIPPED: {skipped}");
    }
    let mut ready = Vec::new();
    for set in found.sets {
        eprintln!("{}: judging {} prompts", set.name, set.prompts.len());
        ready.push(prepare(set)?);
    }
    if let Some(path) = dump {
        let rows: Vec<serde_json::Value> = ready.iter().flat_map(dumped).collect();
        std::fs::write(path, serde_json::to_string(&rows)?)
            .with_context(|| format!("cannot write {path}"))?;
    }
    in_use(&ready)?;
    leave_one_out(&ready, &tune_on)?;
    eprintln!("done in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// For each real folder, the choice on the other sets and the folder's
/// figures under it; then what each choice does on the sets it was made on.
fn leave_one_out(ready: &[Ready], tune_on: &[Role]) -> anyhow::Result<()> {
    println!("\n## Leave one real folder out\n");
    println!(
        "Tuned on the other sets of roles {:?}; the held-out folder measured once through recall.\n",
        tune_on.iter().map(|r| r.as_str()).collect::<Vec<_>>()
    );
    println!(
        "| held out | tuned on | chosen: min specificity, min coverage, strong specificity, min rarest, min top gap, top specificity | worst margin tuned on | hit@5 | quiet | shown | search hit@5 | context − search | in use: hit@5 | in use: quiet |"
    );
    println!("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut on_tuning = String::new();
    for held in ready.iter().filter(|r| r.set.role == Role::Real) {
        let tuning: Vec<&JudgedSet> = ready
            .iter()
            .filter(|r| r.set.name != held.set.name && tune_on.contains(&r.set.role))
            .map(|r| &r.judged)
            .collect();
        if tuning.is_empty() {
            bail!(
                "nothing to tune {} on: no other set of roles {tune_on:?}",
                held.set.name
            );
        }
        let (chosen, worst) = sweep::choose(&tuning);
        let measured = recalled(held, &chosen)?;
        let current = recalled(held, &THRESHOLD)?;
        let search = search_figures(held);
        let names: Vec<&str> = tuning.iter().map(|j| j.name.as_str()).collect();
        println!(
            "| {} | {} | {} | {worst:.3} | {:.3} | {:.3} | {:.2} | {:.3} | {:+.3} | {:.3} | {:.3} |",
            held.set.name,
            names.join(", "),
            describe(&chosen),
            measured.hit_at_5,
            measured.quiet,
            measured.shown_per_prompt,
            search.hit_at_5,
            measured.hit_at_5 - search.hit_at_5,
            current.hit_at_5,
            current.quiet
        );
        for set in &tuning {
            let f = context::figures(&set.judged, &chosen);
            on_tuning += &format!(
                "| {} | {} | {:.3} | {:.3} | {:.2} |\n",
                held.set.name, set.name, f.hit_at_5, f.quiet, f.shown_per_prompt
            );
        }
    }
    println!("\nEach fold's choice on the sets it was tuned on (sweep path):\n");
    println!("| held out | tuned on | hit@5 | quiet | shown |");
    println!("|---|---|---:|---:|---:|");
    print!("{on_tuning}");
    Ok(())
}

/// `--tune-on real,own,dev` and `--dump FILE`, in any order.
fn arguments(args: &[String]) -> anyhow::Result<(Vec<Role>, Option<&str>)> {
    let mut tune_on = vec![Role::Real, Role::Own, Role::Dev];
    let mut dump = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--tune-on" => {
                let list = args
                    .next()
                    .context("--tune-on needs a list: real,own,dev")?;
                tune_on = roles(list)?;
            }
            "--dump" => dump = Some(args.next().context("--dump needs a file")?.as_str()),
            other => bail!("unknown argument {other:?} (only --tune-on ROLES, --dump FILE)"),
        }
    }
    Ok((tune_on, dump))
}

fn roles(list: &str) -> anyhow::Result<Vec<Role>> {
    list.split(',')
        .map(|name| {
            [Role::Real, Role::Own, Role::Dev]
                .into_iter()
                .find(|r| r.as_str() == name)
                .with_context(|| format!("--tune-on: {name:?} is none of real, own, dev"))
        })
        .collect()
}

/// Every prompt of a set judged, as JSON: its labels, what search returns
/// and each candidate's evidence (an infinite gap as null).
fn dumped(r: &Ready) -> Vec<serde_json::Value> {
    r.judged
        .judged
        .iter()
        .zip(&r.search)
        .map(|((prompt, candidates), search)| {
            let candidates: Vec<serde_json::Value> = candidates
                .iter()
                .map(|(id, e)| {
                    serde_json::json!({
                        "id": id, "specificity": e.specificity, "coverage": e.coverage,
                        "gap": e.gap.is_finite().then_some(e.gap), "matched": e.matched,
                        "head_specificity": e.head_specificity,
                        "rarest": e.rarest,
                    })
                })
                .collect();
            serde_json::json!({
                "set": r.set.name, "role": r.set.role.as_str(), "prompt": prompt.text,
                "lang": prompt.lang, "kind": prompt.kind.map(|k| k.as_str()),
                "long": prompt.long, "dev": prompt.dev, "relevant": prompt.relevant,
                "search": search, "candidates": candidates,
            })
        })
        .collect()
}

fn prepare(set: LabelledSet) -> anyhow::Result<Ready> {
    let store = EvalStore::new(&set.store, &[])?;
    let mut judged = Vec::new();
    let mut search = Vec::new();
    for prompt in &set.prompts {
        judged.push((prompt.clone(), store.judge(&prompt.text, SWEEP_CANDIDATES)?));
        search.push(store.search(&prompt.text, SHOWN)?);
    }
    let judged = JudgedSet {
        name: set.name.clone(),
        judged,
    };
    Ok(Ready {
        set,
        store,
        judged,
        search,
    })
}

/// The threshold in use on every set, through recall.
fn in_use(ready: &[Ready]) -> anyhow::Result<()> {
    println!(
        "## The threshold in use ({}), through the library\n",
        describe(&THRESHOLD)
    );
    println!(
        "| set | prompts | search hit@5 | context hit@5 | context − search | quiet | shown | shown per negative | sweep path: hit@5 | sweep path: quiet |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in ready {
        let f = recalled(r, &THRESHOLD)?;
        let s = search_figures(r);
        let fast = context::figures(&r.judged.judged, &THRESHOLD);
        println!(
            "| {} ({}) | {} | {:.3} | {:.3} | {:+.3} | {:.3} | {:.2} | {:.2} | {:.3} | {:.3} |",
            r.set.name,
            r.set.role.as_str(),
            r.set.prompts.len(),
            s.hit_at_5,
            f.hit_at_5,
            f.hit_at_5 - s.hit_at_5,
            f.quiet,
            f.shown_per_prompt,
            f.shown_per_negative,
            fast.hit_at_5,
            fast.quiet
        );
    }
    Ok(())
}

/// What recall under `threshold` shows for each prompt of `r`.
fn recalled(r: &Ready, threshold: &Threshold) -> anyhow::Result<Figures> {
    let mut shown: Vec<(&Prompt, Vec<String>)> = Vec::new();
    for prompt in &r.set.prompts {
        let ids = r
            .store
            .recall(&prompt.text, threshold)?
            .into_iter()
            .take(SHOWN)
            .map(|(id, _)| id)
            .collect();
        shown.push((prompt, ids));
    }
    Ok(Figures::of(
        shown.iter().map(|(p, ids)| (*p, ids.as_slice())),
    ))
}

fn search_figures(r: &Ready) -> Figures {
    Figures::of(
        r.set
            .prompts
            .iter()
            .zip(&r.search)
            .map(|(p, ids)| (p, ids.as_slice())),
    )
}

fn describe(t: &Threshold) -> String {
    format!(
        "{:.1}, {:.1}, {:.1}, {:.1}, {:.2}, {:.1}",
        t.min_specificity,
        t.min_coverage,
        t.strong_specificity,
        t.min_rarest,
        t.min_top_gap,
        t.top_specificity
    )
}
