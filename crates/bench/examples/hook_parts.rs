//! Where the hook's time goes with the encoder on: each piece of
//! `memctl context`'s path timed in process, on a store and cache that
//! `context_bench --keep DIR` left (docs/BENCHMARKS.md, issue 24). Run on
//! demand, never as a test:
//!
//! `target/release/examples/hook_parts DIR/store-10000 DIR/cache-10000 MODEL PROMPT`

use std::path::Path;
use std::time::Instant;

use anyhow::Context as _;
use mdindex::relevance::THRESHOLD;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [store, cache, model, prompt] = args.as_slice() else {
        anyhow::bail!("usage: hook_parts STORE CACHE MODEL PROMPT");
    };
    let cache = Path::new(cache);
    let started = Instant::now();
    let model = mdembed::Model::open(Path::new(model))?;
    lap("open the model", started);
    let started = Instant::now();
    model.embed(prompt)?;
    lap("embed the prompt", started);
    let store = mdstore::Store::open(Path::new(store))?;
    let query = mdindex::relevance::prompt_query(prompt).context("no query in the prompt")?;
    let semantic = mdindex::Semantic {
        model: &model,
        text: prompt,
        deadline: None,
    };
    for _ in 0..3 {
        let started = Instant::now();
        mdindex::recall_store(&store, cache, &query, 10, &THRESHOLD, &mut |_| {})?;
        lap("recall_store (words)", started);
        let started = Instant::now();
        let outcome =
            mdindex::hybrid_search_store(&store, cache, &query, 10, &[], semantic, &mut |_| {})?;
        lap("hybrid_search_store", started);
        anyhow::ensure!(outcome.semantic_failed.is_none(), "the model failed");
        let started = Instant::now();
        let background = mdagent::context::meaning::background_vectors(&model, cache, None)
            .map_err(anyhow::Error::msg)?;
        lap("background vectors", started);
        let started = Instant::now();
        let prompt = model.embed(prompt)?;
        mdagent::context::meaning::to_background(&prompt, &background);
        lap("embed again, cosines to the background", started);
    }
    Ok(())
}

fn lap(what: &str, started: Instant) {
    println!("{what}: {:.1} ms", started.elapsed().as_secs_f64() * 1000.0);
}
