//! `memctl remember`: classify, show, confirm, then write through one
//! transaction per store (SPEC §6). The protocol itself (lock, re-planning,
//! the conflict rule, MEMORY.md) is `mdstore::txn`'s; this module parses,
//! renders and confirms.

pub mod input;
mod output;
mod targets;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mdagent::Config;
use mdagent::index_sink;
use mdagent::remember::{Parsed, describe_plan_error, label_candidate};
use mdagent::stores::{Scope, ScopedStore};
use mdstore::guard::secrets::{quoted_or_hidden, secret_note};
use mdstore::txn::{self, Transaction, WriteError};
use mdstore::view::StoreView;
use mdstore::write::{self, Candidate, Operation, Plan, PlanError, WriteOptions};
use mdstore::{Source, Store};

use crate::cli::{RememberArgs, WriteScope};
use crate::failure::{Exit, Failure};
use crate::ui::Ui;

/// One candidate's journey: its plan, then what happened.
struct Item {
    candidate: Candidate,
    scope: Scope,
    plan: Option<Plan>,
    outcome: Option<Outcome>,
}

#[derive(Clone, Debug)]
enum Outcome {
    Saved {
        revision: u64,
    },
    /// The content is stored as `existing`, in the file at `rel_path`.
    Noop {
        existing: String,
        rel_path: PathBuf,
    },
    Refused {
        exit: Exit,
        message: String,
        hint: Option<String>,
    },
    Conflict(String),
    /// An I/O error while writing it; nothing of it was written.
    Failed(String),
    NotConfirmed,
    DryRun,
    /// Set aside before planning, and why (`extract`: a current-task candidate).
    Dropped(String),
}

impl Item {
    /// The note shown instead of the name, and of the id and path made of
    /// it, when the name holds a secret: SPEC §6 forbids echoing a secret,
    /// and that candidate is refused for it anyway.
    fn name_note(&self) -> Option<String> {
        secret_note(&self.candidate.name)
    }

    /// The plan's warnings, but for those about a name that holds a secret
    /// (`name "…" is stored as "…"`): hidden, they say nothing.
    fn shown_warnings(&self) -> Vec<String> {
        let Some(plan) = &self.plan else {
            return Vec::new();
        };
        let hidden = self.name_note().is_some();
        plan.warnings
            .iter()
            .filter(|w| !(hidden && w.contains(&self.candidate.name)))
            .map(|w| self.hide_name(w))
            .collect()
    }

    /// `text` with the candidate's name and id replaced by [`Self::name_note`].
    fn hide_name(&self, text: &str) -> String {
        let Some(note) = self.name_note() else {
            return text.to_string();
        };
        let hidden = text.replace(&self.candidate.name, &note);
        match &self.plan {
            Some(plan) if !plan.id.is_empty() => hidden.replace(&plan.id, &note),
            _ => hidden,
        }
    }
}

impl Outcome {
    fn exit(&self) -> Exit {
        match self {
            Outcome::Saved { .. }
            | Outcome::Noop { .. }
            | Outcome::DryRun
            | Outcome::Dropped(_) => Exit::Ok,
            Outcome::Refused { exit, .. } => *exit,
            Outcome::Conflict(_) => Exit::Conflict,
            Outcome::Failed(_) => Exit::Internal,
            Outcome::NotConfirmed => Exit::NotConfirmed,
        }
    }

    fn bad_input(message: String) -> Outcome {
        Outcome::Refused {
            exit: Exit::BadInput,
            message,
            hint: None,
        }
    }
}

/// How a batch of candidates is planned, shown and written: as
/// `remember`'s options say, or as `extract` asks.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// The store written to when a candidate names none (else the global
    /// store with `--global`, else the workspace store).
    pub scope: Option<Scope>,
    pub expect_revision: Option<u64>,
    pub force: bool,
    pub yes: bool,
    pub dry_run: bool,
    pub commit: bool,
    /// What the candidates were read from when they came as JSON
    /// (`--from-json`, a transcript): such candidates are refused alone,
    /// are `inferred` unless they say otherwise, and may not be temporary.
    pub from_json: Option<String>,
    /// Report each candidate's outcome as JSON.
    pub json: bool,
    /// Print nothing, plan or report: the rows are returned to the caller
    /// (`review --json` adds to them).
    pub rows_only: bool,
    /// Shown to be asked about (`review`): no "Dry run: … was not written."
    /// after the plan.
    pub plan_only: bool,
}

impl Batch {
    /// `remember`'s options.
    pub fn of(args: &RememberArgs) -> Batch {
        Batch {
            scope: args.scope.map(|scope| match scope {
                WriteScope::Workspace => Scope::Workspace,
                WriteScope::Global => Scope::Global,
            }),
            expect_revision: args.expect_revision,
            force: args.force,
            yes: args.yes,
            dry_run: args.dry_run,
            commit: args.commit,
            from_json: args.from_json.clone(),
            json: args.json,
            rows_only: false,
            plan_only: false,
        }
    }

    /// Candidates read as JSON from `label`, with every other option off.
    pub fn from_json(label: String) -> Batch {
        Batch {
            from_json: Some(label),
            ..Batch::default()
        }
    }
}

pub fn run(config: &Config, ui: &Ui, args: RememberArgs) -> anyhow::Result<Exit> {
    let parsed = match &args.from_json {
        Some(source) => input::read_candidates(source)?,
        None => vec![Ok(input::candidate_from_args(&args)?)],
    };
    Ok(run_batch(config, ui, &Batch::of(&args), parsed)?.0)
}

/// Classifies, shows, confirms and writes `parsed` as `batch` says
/// (`extract` hands its candidates over here, as if read by `--from-json`).
/// Returns the exit code and each candidate's status as `--json` names it.
pub fn run_batch(
    config: &Config,
    ui: &Ui,
    batch: &Batch,
    parsed: Vec<Parsed>,
) -> anyhow::Result<(Exit, Vec<&'static str>)> {
    run_batch_rows(config, ui, batch, parsed).map(|(exit, statuses, _)| (exit, statuses))
}

/// [`run_batch`], with each candidate's row as `--json` gives it.
pub fn run_batch_rows(
    config: &Config,
    ui: &Ui,
    batch: &Batch,
    parsed: Vec<Parsed>,
) -> anyhow::Result<(Exit, Vec<&'static str>, Vec<serde_json::Value>)> {
    let from_json = batch.from_json.is_some();
    let mut items = items(config, batch, parsed);
    refuse_repeated_ids(&items)?;
    let options = write_options(batch);
    let targets = targets::open_targets(config, ui, batch, &items)?;
    let roots = targets::display_roots(&targets.store_of, &targets.missing);

    // Phase 1: classify and show. A person may take their time to confirm,
    // so a plan they see is made without the lock and made again under it;
    // a `--yes` run plans in the transaction it then writes through, sparing
    // a second scan of the store.
    let mut held: BTreeMap<Scope, Transaction<'_>> = BTreeMap::new();
    let mut budget_warnings = Vec::new();
    for (scope, scoped) in &targets.store_of {
        let store = &scoped.store;
        if batch.yes && !batch.dry_run && !targets.missing.contains_key(scope) {
            let mut txn = index_sink::begin(config, store, config.lock_timeout()?)?;
            ui.warn_repaired(store.root(), txn.recovered());
            plan_scope(&mut items, *scope, store, from_json, |c| {
                txn.plan(c, &options)
            })?;
            budget_warnings.extend(budget_warning(&items, *scope, txn.view()));
            held.insert(*scope, txn);
        } else {
            let view = index_sink::view_for_write(config.cache_dir(), store);
            plan_scope(&mut items, *scope, store, from_json, |c| {
                write::plan(store, &view, c, &options)
            })?;
            budget_warnings.extend(budget_warning(&items, *scope, &view));
        }
    }
    if !batch.json && !batch.rows_only {
        // A plan is shown to be confirmed or, in a dry run, read; `-q` with
        // `--yes` asks for neither, so only its warnings and errors remain.
        let plan_wanted = !(ui.quiet && batch.yes && !batch.dry_run);
        for item in &items {
            if let Some(root) = roots.get(&item.scope) {
                output::show_plan(ui, item, root, plan_wanted);
            }
        }
    }
    for warning in &budget_warnings {
        ui.warn(warning);
    }
    let mut created = BTreeMap::new();
    if items.iter().any(|i| i.outcome.is_none()) {
        if batch.dry_run {
            set_pending(&mut items, Outcome::DryRun);
        } else if !(batch.yes || (ui.interactive && ui.confirm("Save?")?)) {
            set_pending(&mut items, Outcome::NotConfirmed);
        } else {
            created = targets::create_needed(&targets, &items, ui)?;
        }
    }
    let catalog_failures = apply_all(
        config,
        ui,
        &mut items,
        held,
        &targets.store_of,
        &created,
        &options,
    )?;
    let rows = output::json_rows(&items, &roots);
    let exit = if batch.rows_only {
        output::exit_of(&items, &catalog_failures)
    } else {
        output::report(ui, &items, &roots, batch, &catalog_failures)?
    };
    for (scope, scoped) in &targets.store_of {
        if let Some((message, paths)) = saved_in(&items, *scope) {
            let store = &created.get(scope).unwrap_or(scoped).store;
            let root = store.root();
            mdagent::git::commit::after_write(config, ui, root, batch.commit, &message, &paths);
        }
    }
    Ok((exit, items.iter().map(output::status_name).collect(), rows))
}

/// What was saved in `scope`'s store, for a commit: its message
/// (`remember: add a, b; update c`) and the files.
fn saved_in(items: &[Item], scope: Scope) -> Option<(String, Vec<PathBuf>)> {
    let (mut added, mut updated, mut paths) = (Vec::new(), Vec::new(), Vec::new());
    for item in items.iter().filter(|i| i.scope == scope) {
        if let (Some(Outcome::Saved { .. }), Some(plan)) = (&item.outcome, &item.plan) {
            paths.push(plan.rel_path.clone());
            match plan.operation {
                Operation::Add => added.push(plan.id.clone()),
                _ => updated.push(plan.id.clone()),
            }
        }
    }
    let parts: Vec<String> = [("add", added), ("update", updated)]
        .into_iter()
        .filter(|(_, ids)| !ids.is_empty())
        .map(|(verb, ids)| format!("{verb} {}", mdagent::git::commit::names(&ids)))
        .collect();
    (!parts.is_empty()).then(|| (format!("remember: {}", parts.join("; ")), paths))
}

/// The run's candidates, each with its store. A JSON candidate that cannot
/// be read, or names an unknown scope, is refused alone; one set aside by
/// `extract` is reported as dropped.
fn items(config: &Config, batch: &Batch, parsed: Vec<Parsed>) -> Vec<Item> {
    let default_scope = batch
        .scope
        .unwrap_or_else(|| mdagent::stores::default_scope(config));
    let mut items = Vec::with_capacity(parsed.len());
    for (n, parsed) in parsed.into_iter().enumerate() {
        let (candidate, mut outcome) = match parsed {
            Ok(candidate) => (candidate, None),
            Err(unreadable) => (
                Candidate {
                    name: unreadable.name,
                    ..Candidate::default()
                },
                Some(if unreadable.dropped {
                    Outcome::Dropped(unreadable.message)
                } else {
                    Outcome::bad_input(unreadable.message)
                }),
            ),
        };
        let scope = match candidate.scope.as_deref() {
            None => default_scope,
            Some("workspace") => Scope::Workspace,
            Some("global") => Scope::Global,
            Some(other) => {
                outcome = Some(Outcome::bad_input(format!(
                    "{}: unknown scope {}: expected workspace or global",
                    label_candidate(n, Some(&candidate.name)),
                    quoted_or_hidden(other)
                )));
                default_scope
            }
        };
        items.push(Item {
            candidate,
            scope,
            plan: None,
            outcome,
        });
    }
    items
}

fn write_options(batch: &Batch) -> WriteOptions {
    let from_json = batch.from_json.is_some();
    WriteOptions {
        force: batch.force,
        expect_revision: batch.expect_revision,
        refuse_temporary: from_json || batch.yes,
        default_source: if from_json {
            Source::Inferred
        } else {
            Source::User
        },
        // Fixed for the run: a plan made again under the lock renders the
        // same bytes as the one shown.
        now: mdstore::clock::now(),
    }
}

/// Plans every pending candidate of `scope`. From the command line a
/// candidate that cannot be classified fails the run; from JSON, only itself.
fn plan_scope(
    items: &mut [Item],
    scope: Scope,
    store: &Store,
    from_json: bool,
    mut plan_one: impl FnMut(&Candidate) -> Result<Plan, PlanError>,
) -> anyhow::Result<()> {
    for (n, item) in items.iter_mut().enumerate() {
        if item.scope != scope || item.outcome.is_some() {
            continue;
        }
        let plan = match plan_one(&item.candidate) {
            Ok(plan) => plan,
            Err(e) if from_json => {
                item.outcome = Some(Outcome::bad_input(item.hide_name(&format!(
                    "{}: {}",
                    label_candidate(n, Some(&item.candidate.name)),
                    describe_plan_error(&e, true)
                ))));
                continue;
            }
            Err(e) => return Err(Failure::bad_input(describe_plan_error(&e, false)).into()),
        };
        match &plan.operation {
            Operation::Refused(refusal) => {
                item.outcome = Some(output::refused(refusal, &plan.id));
            }
            Operation::Noop { existing } => {
                item.outcome = Some(noop(store, existing, &plan.rel_path));
            }
            Operation::Add | Operation::Update { .. } => {}
        }
        item.plan = Some(plan);
    }
    Ok(())
}

/// SPEC §3's warning before a write that takes `MEMORY.md` past 90% of its budget.
fn budget_warning(items: &[Item], scope: Scope, view: &StoreView) -> Option<String> {
    let pending: Vec<&Plan> = items
        .iter()
        .filter(|i| i.scope == scope && i.outcome.is_none())
        .filter_map(|i| i.plan.as_ref())
        .collect();
    if pending.is_empty() {
        return None;
    }
    write::budget_warning_after(view, &pending)
}

/// Two candidates of one batch for the same record would be shown as two
/// plans for one file, of which only the first could be written: the batch
/// is ambiguous, so it is refused before anything is planned.
fn refuse_repeated_ids(items: &[Item]) -> anyhow::Result<()> {
    let mut first_of: BTreeMap<(Scope, String), usize> = BTreeMap::new();
    for (n, item) in items.iter().enumerate() {
        if matches!(item.outcome, Some(Outcome::Dropped(_))) {
            continue;
        }
        // Names that do not normalise are reported by the planning itself.
        let Ok(id) = mdstore::id::normalize_name(&item.candidate.name) else {
            continue;
        };
        if let Some(first) = first_of.insert((item.scope, mdstore::id::id_key(&id)), n) {
            return Err(Failure::bad_input(format!(
                "candidates {} ({}) and {} ({}) are the same record {} in the {} store",
                first + 1,
                quoted_or_hidden(&items[first].candidate.name),
                n + 1,
                quoted_or_hidden(&item.candidate.name),
                secret_note(&item.candidate.name).unwrap_or_else(|| format!("{id:?}")),
                item.scope.as_str()
            ))
            .with_hint("give each record once per batch; nothing was written")
            .into());
        }
    }
    Ok(())
}

/// A NOOP, pointing at the file that already holds the content (another
/// record's, when it is stored under another id).
fn noop(store: &Store, existing: &str, own_rel_path: &Path) -> Outcome {
    let rel_path = store
        .find(existing)
        .map_or_else(|| own_rel_path.to_path_buf(), |entry| entry.rel_path);
    Outcome::Noop {
        existing: existing.to_string(),
        rel_path,
    }
}

fn set_pending(items: &mut [Item], outcome: Outcome) {
    for item in items.iter_mut().filter(|i| i.outcome.is_none()) {
        item.outcome = Some(outcome.clone());
    }
}

/// Phase 2: one transaction per store writes what still matches what was
/// shown and confirmed; transactions held since planning are committed even
/// with nothing to write, so that a NOOP re-run repairs a stale MEMORY.md.
/// Returns what could not be said in `MEMORY.md`.
fn apply_all<'s>(
    config: &'s Config,
    ui: &Ui,
    items: &mut [Item],
    mut held: BTreeMap<Scope, Transaction<'s>>,
    store_of: &'s BTreeMap<Scope, ScopedStore>,
    created: &'s BTreeMap<Scope, ScopedStore>,
    options: &WriteOptions,
) -> anyhow::Result<Vec<String>> {
    let mut catalog_failures = Vec::new();
    for (scope, scoped) in store_of {
        let pending = items
            .iter()
            .any(|i| i.scope == *scope && i.outcome.is_none());
        let store = &created.get(scope).unwrap_or(scoped).store;
        let mut txn = match held.remove(scope) {
            Some(txn) => txn,
            None if pending => {
                let txn = index_sink::begin(config, store, config.lock_timeout()?)?;
                ui.warn_repaired(store.root(), txn.recovered());
                txn
            }
            None => continue,
        };
        for (n, item) in items.iter_mut().enumerate() {
            if item.scope == *scope && item.outcome.is_none() {
                write_item(&mut txn, item, options, n);
            }
        }
        let committed = txn.commit(&mut index_sink::IndexSink::new(config, store));
        match &committed.catalog {
            Ok(Some(catalog)) => ui.note_catalog(catalog),
            Ok(None) => {}
            Err(e) => catalog_failures.push(catalog_failure(*scope, &committed.changed, e)),
        }
    }
    Ok(catalog_failures)
}

fn write_item(txn: &mut Transaction<'_>, item: &mut Item, options: &WriteOptions, n: usize) {
    let shown = item.plan.take();
    let outcome = match txn.write(&item.candidate, options, shown.as_ref()) {
        Ok(step) => {
            let outcome = step_outcome(txn.store(), &step);
            item.plan = Some(step.plan);
            outcome
        }
        // Input was checked when the plan was shown; what fails now is the
        // store under the lock (a file in the way).
        Err(WriteError::Plan(e)) => {
            item.plan = shown;
            Outcome::bad_input(item.hide_name(&format!(
                "{}: {e}",
                label_candidate(n, Some(&item.candidate.name))
            )))
        }
        Err(e @ WriteError::Io { .. }) => {
            item.plan = shown;
            Outcome::Failed(e.to_string())
        }
    };
    item.outcome = Some(outcome);
}

fn step_outcome(store: &Store, step: &txn::Step) -> Outcome {
    match &step.outcome {
        txn::Outcome::Saved { revision } => Outcome::Saved {
            revision: *revision,
        },
        txn::Outcome::Noop { existing } => noop(store, existing, &step.plan.rel_path),
        txn::Outcome::Refused(refusal) => output::refused(refusal, &step.plan.id),
        txn::Outcome::Conflict => Outcome::Conflict(format!(
            "{} changed while this write was being confirmed; nothing was written for it",
            step.plan.id
        )),
    }
}

/// What was saved and what was not, when `MEMORY.md` could not be written.
fn catalog_failure(scope: Scope, saved: &[PathBuf], error: &std::io::Error) -> String {
    let saved = if saved.is_empty() {
        String::new()
    } else {
        let paths: Vec<String> = saved.iter().map(|p| p.display().to_string()).collect();
        format!("saved {}; ", paths.join(", "))
    };
    format!(
        "{saved}the {} store's MEMORY.md could not be updated: {error}",
        scope.as_str()
    )
}
