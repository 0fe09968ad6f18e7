//! `memctl search`: the query language over every store's index (SPEC §5).

use anyhow::Context as _;
use mdagent::Config;
use mdagent::records::hit_json;
use mdagent::stores::{self, Scope, ScopedStore};
use mdindex::Hit;
use mdindex::query::{Query, QueryError};
use mdstore::RecordType;

use super::reindex::note_rebuilt;
use crate::cli::{SearchArgs, SearchScope};
use crate::failure::{Exit, Failure};
use crate::ui::{self, ProgressBar, Style, Ui};

pub fn run(config: &Config, ui: &Ui, args: SearchArgs) -> anyhow::Result<Exit> {
    let text = args.query.join(" ");
    let types: Vec<RecordType> = args.record_type.map(Into::into).into_iter().collect();
    let query = mdagent::search::parse(&text, &types).map_err(|e| query_failure(&text, e))?;
    let wanted = wanted_scopes(config, args.scope, &query);
    let stores: Vec<ScopedStore> = stores::read_stores(config)?
        .into_iter()
        .filter(|s| wanted.contains(&s.scope))
        .collect();
    if stores.is_empty() {
        return Err(no_store_to_search(config, &wanted)?.into());
    }
    let cache = config.cache_dir();
    let mut per_store: Vec<(Scope, Vec<Hit>)> = Vec::new();
    let mut said_temporary = false;
    let mut model = super::model::in_force(config, ui);
    let asked = mdagent::search::Asked {
        query: &query,
        text: &text,
        limit: args.limit,
        types: &types,
    };
    for scoped in &stores {
        let mut bar = ProgressBar::new(ui);
        let progress = &mut |p| bar.update(p);
        let (store, model_ref) = (&scoped.store, model.as_deref());
        let outcome = mdagent::search::search_store(store, cache, &asked, model_ref, progress)
            .map_err(|e| search_failure(&text, e))
            .with_context(|| {
                format!(
                    "cannot search the {} store {}",
                    scoped.scope.as_str(),
                    scoped.store.root().display()
                )
            })?;
        bar.finish();
        match &outcome.temporary_index {
            // The temporary index is always built: no rebuild line for it.
            Some(why) if !said_temporary => {
                said_temporary = true;
                ui.warn(&format!(
                    "the index cannot be kept in the cache folder ({why}); answered from a temporary index"
                ));
            }
            Some(_) => {}
            None => {
                if let Some(report) = &outcome.rebuilt {
                    note_rebuilt(scoped, report);
                }
            }
        }
        if let Some(notice) = outcome.sync.notice() {
            ui.warn(&notice);
        }
        if let Some(failure) = &outcome.semantic_failed {
            // Said once: the other stores are searched by words alone.
            ui.warn(&mdagent::semantic::off_because(failure));
            model = None;
        }
        per_store.push((scoped.scope, outcome.hits));
    }
    // Stores are listed workspace first: ties go to the nearer store.
    let hits = mdindex::merge_ranked(per_store, args.limit);

    if args.json {
        print_json(&hits)?;
    } else {
        print_human(ui, &hits, stores.len() > 1, &text)?;
    }
    Ok(if hits.is_empty() {
        Exit::NothingOrProblems
    } else {
        Exit::Ok
    })
}

/// `--json`: every field whole, one array.
fn print_json(hits: &[(Scope, Hit)]) -> anyhow::Result<()> {
    let rows: Vec<_> = hits.iter().map(|(scope, h)| hit_json(*scope, h)).collect();
    ui::print_json(&rows)?;
    Ok(())
}

/// Hits as a person reads them, or one line saying nothing matched.
fn print_human(
    ui: &Ui,
    hits: &[(Scope, Hit)],
    label_scopes: bool,
    text: &str,
) -> anyhow::Result<()> {
    let mut out = String::new();
    for (scope, hit) in hits {
        out += &render_hit(ui, *scope, hit, label_scopes);
    }
    ui::print(&out)?;
    if hits.is_empty() {
        // A query holding a secret is not echoed (SPEC §6).
        let query = if mdstore::guard::secrets::find_secrets(text).is_empty() {
            // Escaped and cut: a 100 KB query is not echoed whole.
            format!("\"{}\"", mdstore::escape::for_message(text, 80))
        } else {
            "the query".to_string()
        };
        ui.note(&format!("No records match {query}."));
    }
    Ok(())
}

fn wanted_scopes(config: &Config, arg: Option<SearchScope>, query: &Query) -> Vec<Scope> {
    if config.global {
        return vec![Scope::Global];
    }
    let asked: Option<&[Scope]> = arg.map(|arg| match arg {
        SearchScope::Workspace => &[Scope::Workspace][..],
        SearchScope::Global => &[Scope::Global][..],
        SearchScope::All => &[Scope::Workspace, Scope::Global][..],
    });
    mdagent::search::wanted_scopes(asked, query)
}

/// Why none of the `wanted` stores can be searched, naming the store asked for.
fn no_store_to_search(config: &Config, wanted: &[Scope]) -> anyhow::Result<Failure> {
    Ok(match wanted {
        [Scope::Global] => Failure::bad_input(format!(
            "no global store to search: {} does not exist",
            stores::global_dir(config)?.display()
        ))
        .with_hint("create it with `memctl init --global`"),
        [Scope::Workspace] => Failure::bad_input("no workspace store to search here")
            .with_hint("run `memctl init` in your project's root, or pass --store DIR"),
        _ => Failure::bad_input("no store to search here").with_hint(
            "run `memctl init` in your project's root, pass --store DIR, or create the global store with `memctl init --global`",
        ),
    })
}

fn render_hit(ui: &Ui, scope: Scope, hit: &Hit, label_scope: bool) -> String {
    let kind = hit.record_type.as_deref().unwrap_or("-");
    let age = match hit.age_days {
        Some(0) => "today".to_string(),
        Some(1) => "1 day ago".to_string(),
        Some(days) => format!("{days} days ago"),
        None => "age unknown".to_string(),
    };
    let scope = if label_scope {
        format!("{} · ", scope.as_str())
    } else {
        String::new()
    };
    let snippet = if ui.color_out {
        let mut text = String::new();
        let mut at = 0;
        for mark in &hit.snippet.marks {
            text += &ui::shown(&hit.snippet.text[at..mark.start]);
            text += &ui.paint(Style::Yellow, &ui::shown(&hit.snippet.text[mark.clone()]));
            at = mark.end;
        }
        text + &ui::shown(&hit.snippet.text[at..])
    } else {
        ui::shown(&hit.snippet.bracketed()).into_owned()
    };
    // Indented by two columns under the id.
    let room = ui.width.saturating_sub(2);
    format!(
        "{} {}\n  {}\n  {}\n\n",
        ui.paint(Style::Bold, &ui::shown(&hit.id)),
        ui.paint(Style::Dim, &format!("({scope}{kind}, {age})")),
        ui::fit(&ui::shown(&hit.description), room),
        snippet
    )
}

/// A query that cannot be searched for: bad usage (exit 2), naming it.
fn query_failure(text: &str, e: QueryError) -> Failure {
    let hint = mdagent::search::query_hint(&e, true);
    Failure::bad_input(format!("search {text:?}: {e}")).with_hint(hint)
}

/// A search error; the query's own problems are bad usage.
fn search_failure(text: &str, e: mdindex::Error) -> anyhow::Error {
    match e {
        mdindex::Error::Query(e) => query_failure(text, e).into(),
        e => e.into(),
    }
}
