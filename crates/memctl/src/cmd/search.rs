//! `memctl search`: the query language over every store's index (SPEC §5).

use mdagent::Config;
use mdagent::records::hit_json;
use mdagent::search::{self, Request, SearchError};
use mdagent::stores::{Scope, ScopedStore};
use mdindex::query::QueryError;
use mdindex::{Hit, Progress, RebuildReport};
use mdstore::RecordType;

use super::reindex::note_rebuilt;
use crate::cli::{SearchArgs, SearchScope};
use crate::failure::{Exit, Failure};
use crate::ui::{self, ProgressBar, Style, Ui};

pub fn run(config: &Config, ui: &Ui, args: SearchArgs) -> anyhow::Result<Exit> {
    let text = args.query.join(" ");
    let types: Vec<RecordType> = args.record_type.map(Into::into).into_iter().collect();
    let scopes: Option<&[Scope]> = args.scope.map(|arg| match arg {
        SearchScope::Workspace => &[Scope::Workspace][..],
        SearchScope::Global => &[Scope::Global][..],
        SearchScope::All => &[Scope::Workspace, Scope::Global][..],
    });
    let request = Request {
        text: &text,
        types: &types,
        limit: args.limit,
        scopes,
    };
    let mut face = CliFace {
        ui,
        bar: ProgressBar::new(ui),
    };
    let found = search::search(config, &request, &mut face).map_err(|e| failure(&text, e))?;
    let hits = found.hits;
    if args.json {
        print_json(&hits)?;
    } else {
        print_human(ui, &hits, found.stores.len() > 1, &text)?;
    }
    Ok(if hits.is_empty() {
        Exit::NothingOrProblems
    } else {
        Exit::Ok
    })
}

/// What is said while stores are searched: a progress bar while an index
/// is rebuilt, a line when it was, warnings.
struct CliFace<'a> {
    ui: &'a Ui,
    bar: ProgressBar,
}

impl search::Face for CliFace<'_> {
    fn progress(&mut self, progress: Progress) {
        self.bar.update(progress);
    }

    fn searched(&mut self, scoped: &ScopedStore, rebuilt: Option<&RebuildReport>) {
        self.bar.finish();
        if let Some(report) = rebuilt {
            note_rebuilt(scoped, report);
        }
    }

    fn warn(&mut self, line: &str) {
        self.ui.warn(line);
    }
}

/// A search that gave no answer, as the CLI says it.
fn failure(text: &str, e: SearchError) -> anyhow::Error {
    match e {
        SearchError::Query(e) => query_failure(text, e).into(),
        SearchError::Stores(e) => e.into(),
        // The table in `mdagent::explain` knows a missing store's hint.
        e @ (SearchError::NoStore { .. } | SearchError::Store { .. }) => e.into(),
    }
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

fn render_hit(ui: &Ui, scope: Scope, hit: &Hit, label_scope: bool) -> String {
    let kind = hit.record_type.map_or("-", |t| t.as_str());
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
    let hint = search::query_hint(&e, true);
    Failure::bad_input(format!("search {text:?}: {e}")).with_hint(hint)
}
