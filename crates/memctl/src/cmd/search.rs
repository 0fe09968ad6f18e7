//! `memctl search`, `reindex` and `watch`: the commands over the index (SPEC §4, §5).

use std::io::IsTerminal;

use mdindex::query::{self, Query};
use mdindex::{Hit, Index, Progress, RebuildCause, RebuildReport, WatchNote, Watcher};
use mdstore::RecordType;
use serde_json::json;

use crate::cli::{GlobalArgs, ReindexArgs, SearchArgs, SearchScope};
use crate::failure::{Exit, Failure};
use crate::stores::{self, Scope, ScopedStore};
use crate::ui::{self, Style, Ui};

/// Stores under this many records rebuild without a progress bar.
const PROGRESS_BAR_FROM: usize = 2_000;

pub fn search(global: &GlobalArgs, ui: &Ui, args: SearchArgs) -> anyhow::Result<Exit> {
    let text = args.query.join(" ");
    let query = query::parse(&text);
    let wanted = wanted_scopes(global, args.scope, &query);
    let stores: Vec<ScopedStore> = stores::read_stores(global)?
        .into_iter()
        .filter(|s| wanted.contains(&s.scope))
        .collect();
    if stores.is_empty() {
        return Err(no_store_to_search(&wanted)?.into());
    }
    let cache = mdindex::cache_dir_from_env();
    let types: Vec<RecordType> = args.record_type.map(Into::into).into_iter().collect();
    let mut hits: Vec<(Scope, Hit)> = Vec::new();
    for scoped in &stores {
        let mut bar = ProgressBar::new(ui);
        let outcome = mdindex::search_store(
            &scoped.store,
            &cache,
            &query,
            args.limit,
            &types,
            &mut |p| bar.update(p),
        )
        .map_err(index_error(format!(
            "cannot search the {} store {}",
            scoped.scope.as_str(),
            scoped.store.root().display()
        )))?;
        bar.finish();
        if let Some(report) = &outcome.rebuilt {
            note_rebuilt(ui, scoped, report);
        }
        if let Some(notice) = outcome.sync.notice() {
            ui.warn(&notice);
        }
        // BM25 scores depend on each store's own statistics (FTS5 floors the
        // weight of a word found in half a small store's records), so they
        // are made relative to each store's best before stores are merged.
        let best = outcome.hits.iter().map(|h| h.score).fold(0.0_f64, f64::max);
        hits.extend(outcome.hits.into_iter().map(|mut h| {
            if best > 0.0 {
                h.score /= best;
            }
            (scoped.scope, h)
        }));
    }
    // Ties (each store's best is 1) go to the workspace, the nearer store.
    hits.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then(a.0.cmp(&b.0)));
    hits.truncate(args.limit);

    if args.json {
        let rows: Vec<_> = hits
            .iter()
            .map(|(scope, h)| {
                json!({
                    "id": h.id,
                    "name": h.name,
                    "type": h.record_type,
                    "scope": scope.as_str(),
                    "path": h.path,
                    "description": h.description,
                    "snippet": h.snippet.bracketed(),
                    "score": h.score,
                    "updated": h.updated,
                    "age_days": h.age_days,
                    // As `show` and `list` say, and `--expect-revision` accepts.
                    "revision": h.revision.unwrap_or(1),
                    "source": h.source,
                })
            })
            .collect();
        ui::print(&(serde_json::to_string_pretty(&rows)? + "\n"))?;
    } else {
        let mut out = String::new();
        for (scope, hit) in &hits {
            out += &render_hit(ui, *scope, hit, stores.len() > 1);
        }
        ui::print(&out)?;
        if hits.is_empty() {
            // A query holding a secret is not echoed (SPEC §6).
            let query = if mdstore::guard::secrets::find_secrets(&text).is_empty() {
                format!("{text:?}")
            } else {
                "the query".to_string()
            };
            ui.note(&format!("No records match {query}."));
        }
    }
    Ok(if hits.is_empty() {
        Exit::NothingOrProblems
    } else {
        Exit::Ok
    })
}

fn wanted_scopes(global: &GlobalArgs, arg: Option<SearchScope>, query: &Query) -> Vec<Scope> {
    if global.global {
        return vec![Scope::Global];
    }
    match arg {
        Some(SearchScope::Workspace) => return vec![Scope::Workspace],
        Some(SearchScope::Global) => return vec![Scope::Global],
        Some(SearchScope::All) => return vec![Scope::Workspace, Scope::Global],
        None => {}
    }
    if query.scopes.is_empty() {
        return vec![Scope::Workspace, Scope::Global];
    }
    query
        .scopes
        .iter()
        .map(|s| match s {
            query::Scope::Workspace => Scope::Workspace,
            query::Scope::Global => Scope::Global,
        })
        .collect()
}

/// Why none of the `wanted` stores can be searched, naming the store asked for.
fn no_store_to_search(wanted: &[Scope]) -> anyhow::Result<Failure> {
    Ok(match wanted {
        [Scope::Global] => Failure::bad_input(format!(
            "no global store to search: {} does not exist",
            stores::global_dir()?.display()
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
    let snippet = if ui.color {
        let mut text = String::new();
        let mut at = 0;
        for mark in &hit.snippet.marks {
            text += &hit.snippet.text[at..mark.start];
            text += &ui.paint(Style::Yellow, &hit.snippet.text[mark.clone()]);
            at = mark.end;
        }
        text + &hit.snippet.text[at..]
    } else {
        hit.snippet.bracketed()
    };
    format!(
        "{} {}\n  {}\n  {}\n\n",
        ui.paint(Style::Bold, &hit.id),
        ui.paint(Style::Dim, &format!("({scope}{kind}, {age})")),
        hit.description,
        snippet
    )
}

/// An index error under `context`. It is flattened into one message because
/// mdindex's messages already end with their cause, which the error report
/// would otherwise print a second time.
pub(crate) fn index_error(
    context: impl std::fmt::Display,
) -> impl FnOnce(mdindex::Error) -> anyhow::Error {
    move |e| anyhow::anyhow!("{context}: {e}")
}

/// `1 record`, `2 records`.
pub(crate) fn count<N: std::fmt::Display + PartialEq + From<u8>>(
    n: N,
    one: &str,
    many: &str,
) -> String {
    let word = if n == N::from(1) { one } else { many };
    format!("{n} {word}")
}

fn note_rebuilt(ui: &Ui, scoped: &ScopedStore, report: &RebuildReport) {
    eprintln!(
        "index rebuilt ({} store): {}; {} indexed{}",
        scoped.scope.as_str(),
        report.cause,
        count(report.indexed, "record", "records"),
        if report.skipped.is_empty() {
            String::new()
        } else {
            format!(", {} skipped (see `memctl check`)", report.skipped.len())
        }
    );
    let _ = ui;
}

pub fn reindex(global: &GlobalArgs, ui: &Ui, args: ReindexArgs) -> anyhow::Result<Exit> {
    let stores = stores::read_stores(global)?;
    if stores.is_empty() {
        return Err(Failure::bad_input("no store to index here")
            .with_hint("run `memctl init` in your project's root, or pass --store DIR")
            .into());
    }
    let cache = mdindex::cache_dir_from_env();
    let mut exit = Exit::Ok;
    for scoped in &stores {
        let root = scoped.store.root().display().to_string();
        if args.check {
            let mut out = String::new();
            let opened = Index::open_existing(&scoped.store, &cache)
                .map_err(index_error(format!("cannot open the index of {root}")))?;
            match opened {
                Err(cause) => {
                    out += &format!("{root}: the index cannot be used: {cause}\n");
                    exit = Exit::NothingOrProblems;
                }
                Ok(index) => {
                    let report = index
                        .check()
                        .map_err(index_error(format!("cannot compare the index of {root}")))?;
                    for difference in &report.differences {
                        out += &format!("{root}: {difference}\n");
                    }
                    if !report.is_clean() {
                        exit = Exit::NothingOrProblems;
                    }
                    ui.note(&format!(
                        "{} store: {}, {} between index and files",
                        scoped.scope.as_str(),
                        count(report.records, "record", "records"),
                        count(report.differences.len(), "difference", "differences")
                    ));
                }
            }
            ui::print(&out)?;
            continue;
        }
        let mut bar = ProgressBar::new(ui);
        let opened = Index::open(&scoped.store, &cache, &mut |p| bar.update(p))
            .map_err(index_error(format!("cannot open the index of {root}")))?;
        let report = match opened.rebuilt {
            Some(report) => report,
            None => {
                let mut index = opened.index;
                index
                    .rebuild(RebuildCause::Requested, &mut |p| bar.update(p))
                    .map_err(index_error(format!("cannot rebuild the index of {root}")))?
            }
        };
        bar.finish();
        let mut out = format!(
            "{} store {root}: indexed {}, skipped {}\n",
            scoped.scope.as_str(),
            count(report.indexed, "record", "records"),
            report.skipped.len()
        );
        for skipped in &report.skipped {
            out += &format!(
                "  skipped {}: {}\n",
                scoped.store.root().join(&skipped.rel_path).display(),
                skipped.reason
            );
        }
        ui::print(&out)?;
    }
    Ok(exit)
}

pub fn watch(global: &GlobalArgs, ui: &Ui) -> anyhow::Result<Exit> {
    let scope = if global.global {
        Scope::Global
    } else {
        Scope::Workspace
    };
    let scoped = stores::read_stores(global)?
        .into_iter()
        .find(|s| s.scope == scope)
        .ok_or_else(|| {
            Failure::bad_input(format!("no {} store to watch here", scope.as_str()))
                .with_hint("run `memctl init` in your project's root, or pass --store DIR")
        })?;
    let cache = mdindex::cache_dir_from_env();
    let verbose = ui.verbose;
    let started = Watcher::start(&scoped.store, &cache, move |note| match note {
        WatchNote::Problem(problem) => eprintln!("warning: {problem}"),
        WatchNote::Rescan { why } if verbose => eprintln!("rescan: {why}"),
        WatchNote::Rebuilt(report) => eprintln!(
            "index rebuilt: {}; {} indexed",
            report.cause,
            count(report.indexed, "record", "records")
        ),
        WatchNote::Marked { paths } if verbose => eprintln!("marked {paths} paths dirty"),
        WatchNote::Applied(report) if verbose && report.changed() => eprintln!(
            "re-read: {} added, {} updated, {} removed",
            report.added, report.updated, report.removed
        ),
        _ => {}
    })
    .map_err(|e| match e {
        mdindex::Error::WatcherRunning { store, .. } => anyhow::Error::from(
            Failure::new(
                Exit::Conflict,
                format!("a watcher already runs for {}", store.display()),
            )
            .with_hint("one watcher per store is enough; stop the other one first"),
        ),
        e => index_error("cannot start the watcher")(e),
    })?;
    if let Some(report) = &started.rebuilt {
        note_rebuilt(ui, &scoped, report);
    }
    // Always printed (even with -q): scripts wait for this line.
    eprintln!(
        "Watching {} for changes; searches now re-read only what changed. Ctrl-C stops.",
        scoped.store.root().display()
    );
    started.watcher.wait().map_err(index_error(format!(
        "the watcher of {} stopped",
        scoped.store.root().display()
    )))?;
    Ok(Exit::Ok)
}

/// A progress bar on a terminal for large rebuilds; nothing otherwise.
struct ProgressBar {
    enabled: bool,
    bar: Option<indicatif::ProgressBar>,
}

impl ProgressBar {
    fn new(ui: &Ui) -> ProgressBar {
        ProgressBar {
            enabled: !ui.quiet && std::io::stderr().is_terminal(),
            bar: None,
        }
    }

    fn update(&mut self, progress: Progress) {
        if !self.enabled || progress.total < PROGRESS_BAR_FROM {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new(progress.total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "indexing {bar:40} {pos}/{len} records ({eta} left)",
            ) {
                bar.set_style(style);
            }
            bar
        });
        bar.set_position(progress.done as u64);
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
