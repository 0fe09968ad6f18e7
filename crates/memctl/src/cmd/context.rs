//! `memctl context`: what an agent sees before a turn (SPEC §8). The
//! policy, `MEMORY.md` at session start, and the records judged relevant
//! to the prompt (`mdindex::relevance`), within a budget of characters.

use std::collections::HashSet;

use anyhow::Context as _;
use mdindex::Hit;
use mdindex::relevance::{self, THRESHOLD};

use super::context_render::{self as render, Catalogue, Context, POLICY, Recalled};
use crate::cli::{ContextArgs, GlobalArgs};
use crate::failure::{Exit, Failure};
use crate::stores::{self, ScopedStore};
use crate::ui::{self, Ui};

/// Characters of output by default: Claude Code shows a hook's output of
/// more than 10,000 characters only as a short preview.
pub const DEFAULT_BUDGET: usize = 9_000;

/// What to gather.
#[derive(Debug, Default)]
pub struct Ask<'a> {
    pub prompt: Option<&'a str>,
    pub session_start: bool,
    pub max: usize,
    /// Keys (`scope:id`) not to show again.
    pub already_shown: HashSet<String>,
}

pub fn run(global: &GlobalArgs, ui: &Ui, args: ContextArgs) -> anyhow::Result<Exit> {
    if args.hook.is_some() {
        return Ok(super::context_hook::run(global, &args));
    }
    if args.query.is_none() && !args.session_start {
        return Err(Failure::bad_input("context needs something to recall for")
            .with_hint("pass --query TEXT, --session-start, or --hook claude-code")
            .into());
    }
    let ask = Ask {
        prompt: args.query.as_deref(),
        session_start: args.session_start,
        max: args.max,
        already_shown: HashSet::new(),
    };
    let context = gather(global, &ask)?;
    for warning in &context.warnings {
        ui.warn(warning);
    }
    let budget = args.budget.unwrap_or(DEFAULT_BUDGET);
    let out = if args.json {
        let context = render::fit(context, budget, &|c| {
            render::json(c).map_or(usize::MAX, |t| t.chars().count())
        });
        render::json(&context)?
    } else {
        let context = render::fit(context, budget, &|c| render::readable(c).chars().count());
        render::readable(&context)
    };
    ui::print(&out)?;
    Ok(Exit::Ok)
}

/// The context for `ask` from every store this folder reads (none: empty).
pub fn gather(global: &GlobalArgs, ask: &Ask<'_>) -> anyhow::Result<Context> {
    let stores = stores::read_stores(global)?;
    let mut context = Context {
        policy: POLICY,
        ..Context::default()
    };
    if ask.session_start {
        for scoped in &stores {
            if let Some(catalogue) = catalogue(scoped)? {
                context.catalogues.push(catalogue);
            }
        }
    }
    if let Some(query) = ask.prompt.and_then(relevance::prompt_query) {
        context.records = recall(&stores, &query, ask, &mut context.warnings)?;
    }
    Ok(context)
}

/// A store's `MEMORY.md`, if it has one with any text.
fn catalogue(scoped: &ScopedStore) -> anyhow::Result<Option<Catalogue>> {
    let path = scoped.store.catalog_path();
    let bytes = mdstore::catalog::disk::read_bounded(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(bytes
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        // memctl's own first line says the file is generated: nothing an
        // agent needs.
        .map(|text| match text.split_once('\n') {
            Some((_, rest)) if mdstore::catalog::disk::is_generated(&text) => rest.to_string(),
            _ => text,
        })
        .filter(|text| !text.trim().is_empty())
        .map(|text| hide_secret_lines(&text))
        .map(|text| Catalogue {
            scope: scoped.scope.as_str(),
            text,
        }))
}

/// The records of `stores` that pass the relevance threshold for `query`,
/// best first, at most `ask.max`, none already shown.
fn recall(
    stores: &[ScopedStore],
    query: &mdindex::query::Query,
    ask: &Ask<'_>,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Vec<Recalled>> {
    let cache = mdindex::cache_dir_from_env();
    let candidates = (ask.max * 2).max(10);
    let mut per_store: Vec<(&ScopedStore, Vec<Hit>)> = Vec::new();
    for scoped in stores {
        let outcome = mdindex::recall_store(
            &scoped.store,
            &cache,
            query,
            candidates,
            &THRESHOLD,
            &mut |_| {},
        )
        .with_context(|| {
            format!(
                "cannot search the {} store {}",
                scoped.scope.as_str(),
                scoped.store.root().display()
            )
        })?;
        if let Some(why) = &outcome.temporary_index {
            warnings.push(format!(
                "the index of the {} store cannot be kept in the cache folder ({why}); answered from a temporary index, rebuilt for every prompt",
                scoped.scope.as_str()
            ));
        }
        let relevant = outcome
            .hits
            .into_iter()
            .filter(|hit| {
                !ask.already_shown
                    .contains(&key(scoped.scope.as_str(), &hit.id))
            })
            .collect();
        per_store.push((scoped, relevant));
    }
    mdindex::merge_ranked(per_store, ask.max)
        .into_iter()
        .filter_map(|(scoped, hit)| recalled(scoped, hit).transpose())
        .collect()
}

/// The key of a record in session state.
pub fn key(scope: &str, id: &str) -> String {
    format!("{scope}:{id}")
}

/// A hit as shown, its content read from the file (`None` if the file
/// went away since the search).
fn recalled(scoped: &ScopedStore, hit: Hit) -> anyhow::Result<Option<Recalled>> {
    let Some(rel) = scoped.store.record_rel_path(&hit.path) else {
        return Ok(None);
    };
    let Ok(record) = scoped.store.read_record(&rel) else {
        return Ok(None);
    };
    let body = record.body.trim();
    let mut content = if body.is_empty() {
        hit.description.clone()
    } else {
        format!("{}\n\n{body}", hit.description)
    };
    // A hand-written record may hold a secret (`check` reports it); it is
    // never handed to an agent, whose context may be logged or sent on.
    if let Some(found) = mdstore::guard::secrets::find_secrets(&content).first() {
        content = format!(
            "(The text of this record is not shown: it looks like it holds a secret ({found}). \
             Run `memctl check` to find it.)"
        );
    }
    Ok(Some(Recalled {
        source: hit.source,
        id: hit.id,
        record_type: hit.record_type,
        age_days: hit.age_days,
        freshness: render::freshness(hit.age_days),
        content,
        scope: scoped.scope.as_str(),
    }))
}

/// `text` with every line that looks like it holds a secret replaced by a
/// note naming the rule.
fn hide_secret_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        match mdstore::guard::secrets::find_secrets(line).first() {
            Some(found) => {
                out += &format!(
                    "(a line hidden: it looks like it holds a secret (rule {}))",
                    found.rule
                );
            }
            None => out += line,
        }
        out.push('\n');
    }
    out
}
