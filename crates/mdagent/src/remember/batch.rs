//! A batch of candidates a person confirms: planned, shown, confirmed,
//! then written through one transaction per store. `memctl remember`,
//! `extract` and `review` run it; what they show and ask is their
//! [`Face`]'s.

use std::collections::BTreeMap;
use std::path::PathBuf;

use mdstore::Store;
use mdstore::guard::secrets::{quoted_or_hidden, secret_note};
use mdstore::txn::{Transaction, WriteError};
use mdstore::view::StoreView;
use mdstore::write::{self, Candidate, Operation, Plan, PlanError, WriteOptions};

use super::outcome::Outcome;
use super::say::{Parsed, describe_plan_error, hide_secret_name, label_candidate};
use super::targets;
use crate::face::{Ask, warn_catalog_kept, warn_repaired};
use crate::stores::{Scope, ScopedStore};
use crate::write_failure::WriteFailure;
use crate::{Config, Kind, index_sink};

/// How a batch of candidates is planned, confirmed and written.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// The store written to when a candidate names none (else the default
    /// scope: the workspace store if there is one).
    pub scope: Option<Scope>,
    pub expect_revision: Option<u64>,
    /// Overwrite a tombstone or a more trusted record (a person's choice).
    pub force: bool,
    /// Confirmed beforehand: write without asking.
    pub yes: bool,
    pub dry_run: bool,
    /// Commit what was saved to git (else only as `.memctl.toml` says).
    pub commit: bool,
    /// The candidates came as JSON (from an agent, a transcript): such
    /// candidates are refused alone, are `inferred` unless they say
    /// otherwise, and may not be temporary.
    pub from_json: bool,
}

/// What a batch needs from the face that runs it, beyond asking and
/// telling: showing the plans, and what became of them.
pub trait Face: Ask {
    /// Shows the plans of the candidates still pending, before they are
    /// confirmed or, in a dry run, instead of being written.
    fn show_plans(&self, items: &[Item], roots: &BTreeMap<Scope, PathBuf>);
    /// Says what became of each candidate, before what was saved is
    /// committed to git.
    fn report(&self, done: &Done) -> std::io::Result<()>;
}

/// One candidate's journey: its plan, then what happened.
#[derive(Clone, Debug)]
pub struct Item {
    pub candidate: Candidate,
    pub scope: Scope,
    pub plan: Option<Plan>,
    pub outcome: Option<Outcome>,
}

impl Item {
    /// The note shown instead of the name, and of the id and path made of
    /// it, when the name holds a secret: SPEC §6 forbids echoing a secret,
    /// and that candidate is refused for it anyway.
    pub fn name_note(&self) -> Option<String> {
        secret_note(&self.candidate.name)
    }

    /// The plan's warnings, but for those about a name that holds a secret
    /// (`name "…" is stored as "…"`): hidden, they say nothing.
    pub fn shown_warnings(&self) -> Vec<String> {
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
    pub fn hide_name(&self, text: &str) -> String {
        let Some(note) = self.name_note() else {
            return text.to_string();
        };
        let hidden = hide_secret_name(&self.candidate.name, text);
        match &self.plan {
            Some(plan) if !plan.id.is_empty() => hidden.replace(&plan.id, &note),
            _ => hidden,
        }
    }

    /// The record's id as the plan made it, else the name given.
    pub fn id(&self) -> &str {
        self.plan
            .as_ref()
            .map_or(self.candidate.name.as_str(), |p| p.id.as_str())
    }

    /// The outcome in one word, as a face's JSON reports it.
    pub fn status_name(&self) -> &'static str {
        Outcome::status_name(self.outcome.as_ref())
    }
}

/// What a batch came to.
#[derive(Debug)]
pub struct Done {
    pub items: Vec<Item>,
    /// The folder each scope's paths are shown under: the store, or where
    /// a missing one was (or would be) created.
    pub roots: BTreeMap<Scope, PathBuf>,
    /// What was saved, and what could not be said in a `MEMORY.md`.
    pub catalog_failures: Vec<String>,
}

impl Done {
    /// The kind of the first candidate that did not go well, else of an
    /// internal failure when a `MEMORY.md` could not be written; `None`
    /// when all went well.
    pub fn kind(&self) -> Option<Kind> {
        self.items
            .iter()
            .filter_map(|i| i.outcome.as_ref())
            .find_map(Outcome::kind)
            .or_else(|| (!self.catalog_failures.is_empty()).then_some(Kind::Internal))
    }

    /// Each candidate's outcome in one word.
    pub fn statuses(&self) -> Vec<&'static str> {
        self.items.iter().map(Item::status_name).collect()
    }
}

/// Classifies `parsed`, has `face` show the plans and confirm them (unless
/// `batch.yes`), writes what still matches what was shown, has `face`
/// report it, then commits it to git when asked or configured.
pub fn run_batch(
    config: &Config,
    face: &dyn Face,
    batch: &Batch,
    parsed: Vec<Parsed>,
) -> Result<Done, WriteFailure> {
    let mut items = items(config, batch, parsed);
    refuse_repeated_ids(&items)?;
    let options = write_options(batch);
    let targets = targets::open_targets(config, face, batch, &items)?;
    let roots = targets.display_roots();

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
            warn_repaired(face, store.root(), txn.recovered());
            plan_scope(&mut items, *scope, store, batch.from_json, |c| {
                txn.plan(c, &options)
            })?;
            budget_warnings.extend(budget_warning(&items, *scope, txn.view()));
            held.insert(*scope, txn);
        } else {
            let view = index_sink::view_for_write(config.cache_dir(), store);
            plan_scope(&mut items, *scope, store, batch.from_json, |c| {
                write::plan(store, &view, c, &options)
            })?;
            budget_warnings.extend(budget_warning(&items, *scope, &view));
        }
    }
    face.show_plans(&items, &roots);
    for warning in &budget_warnings {
        face.warn(warning);
    }
    let mut created = BTreeMap::new();
    if items.iter().any(|i| i.outcome.is_none()) {
        if batch.dry_run {
            set_pending(&mut items, &Outcome::DryRun);
        } else if !(batch.yes || confirmed(face, "Save?")?) {
            set_pending(&mut items, &Outcome::NotConfirmed);
        } else {
            created = targets.create_needed(&items, face)?;
        }
    }
    let writing = Writing {
        config,
        face,
        store_of: &targets.store_of,
        created: &created,
        options: &options,
    };
    let catalog_failures = writing.apply_all(&mut items, held)?;
    let done = Done {
        items,
        roots,
        catalog_failures,
    };
    face.report(&done)
        .map_err(|e| WriteFailure::io("cannot report what was written", e))?;
    for (scope, scoped) in &targets.store_of {
        if let Some((message, paths)) = saved_in(&done.items, *scope) {
            let store = &created.get(scope).unwrap_or(scoped).store;
            crate::git::commit::after_write(
                config,
                face,
                store.root(),
                batch.commit,
                &message,
                &paths,
            );
        }
    }
    Ok(done)
}

/// `question` asked of the face; a terminal that fails is an I/O failure.
pub(super) fn confirmed(face: &dyn Ask, question: &str) -> Result<bool, WriteFailure> {
    face.confirm(question)
        .map_err(|e| WriteFailure::io("cannot read the answer", e))
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
        .map(|(verb, ids)| format!("{verb} {}", crate::git::commit::names(&ids)))
        .collect();
    (!parts.is_empty()).then(|| (format!("remember: {}", parts.join("; ")), paths))
}

/// The run's candidates, each with its store. A JSON candidate that cannot
/// be read, or names an unknown scope, is refused alone; one set aside by
/// `extract` is reported as dropped.
fn items(config: &Config, batch: &Batch, parsed: Vec<Parsed>) -> Vec<Item> {
    let default_scope = batch
        .scope
        .unwrap_or_else(|| crate::stores::default_scope(config));
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
                    Outcome::BadInput(unreadable.message)
                }),
            ),
        };
        let scope = match candidate.scope.as_deref() {
            None => default_scope,
            Some("workspace") => Scope::Workspace,
            Some("global") => Scope::Global,
            Some(other) => {
                outcome = Some(Outcome::BadInput(format!(
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
    WriteOptions {
        force: batch.force,
        expect_revision: batch.expect_revision,
        refuse_temporary: batch.from_json || batch.yes,
        default_source: if batch.from_json {
            mdstore::Source::Inferred
        } else {
            mdstore::Source::User
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
) -> Result<(), WriteFailure> {
    for (n, item) in items.iter_mut().enumerate() {
        if item.scope != scope || item.outcome.is_some() {
            continue;
        }
        let plan = match plan_one(&item.candidate) {
            Ok(plan) => plan,
            Err(e) if from_json => {
                item.outcome = Some(Outcome::BadInput(item.hide_name(&format!(
                    "{}: {}",
                    label_candidate(n, Some(&item.candidate.name)),
                    describe_plan_error(&e, true)
                ))));
                continue;
            }
            Err(e) => return Err(WriteFailure::bad_input(describe_plan_error(&e, false))),
        };
        match &plan.operation {
            Operation::Refused(refusal) => {
                item.outcome = Some(Outcome::Refused(refusal.clone()));
            }
            Operation::Noop { existing } => {
                item.outcome = Some(Outcome::noop(store, existing, &plan.rel_path));
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
fn refuse_repeated_ids(items: &[Item]) -> Result<(), WriteFailure> {
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
            return Err(WriteFailure::bad_input(format!(
                "candidates {} ({}) and {} ({}) are the same record {} in the {} store",
                first + 1,
                quoted_or_hidden(&items[first].candidate.name),
                n + 1,
                quoted_or_hidden(&item.candidate.name),
                secret_note(&item.candidate.name).unwrap_or_else(|| format!("{id:?}")),
                item.scope.as_str()
            ))
            .with_hint("give each record once per batch; nothing was written"));
        }
    }
    Ok(())
}

fn set_pending(items: &mut [Item], outcome: &Outcome) {
    for item in items.iter_mut().filter(|i| i.outcome.is_none()) {
        item.outcome = Some(outcome.clone());
    }
}

/// Phase 2's stores and settings.
struct Writing<'s> {
    config: &'s Config,
    face: &'s dyn Face,
    store_of: &'s BTreeMap<Scope, ScopedStore>,
    /// The stores created for this write, in place of their stand-ins.
    created: &'s BTreeMap<Scope, ScopedStore>,
    options: &'s WriteOptions,
}

impl<'s> Writing<'s> {
    /// Phase 2: one transaction per store writes what still matches what
    /// was shown and confirmed; transactions held since planning are
    /// committed even with nothing to write, so that a NOOP re-run repairs
    /// a stale MEMORY.md. Returns what could not be said in `MEMORY.md`.
    fn apply_all(
        &self,
        items: &mut [Item],
        mut held: BTreeMap<Scope, Transaction<'s>>,
    ) -> Result<Vec<String>, WriteFailure> {
        let mut catalog_failures = Vec::new();
        for (scope, scoped) in self.store_of {
            let pending = items
                .iter()
                .any(|i| i.scope == *scope && i.outcome.is_none());
            let store = &self.created.get(scope).unwrap_or(scoped).store;
            let mut txn = match held.remove(scope) {
                Some(txn) => txn,
                None if pending => {
                    let timeout = self.config.lock_timeout()?;
                    let txn = index_sink::begin(self.config, store, timeout)?;
                    warn_repaired(self.face, store.root(), txn.recovered());
                    txn
                }
                None => continue,
            };
            for (n, item) in items.iter_mut().enumerate() {
                if item.scope == *scope && item.outcome.is_none() {
                    write_item(&mut txn, item, self.options, n);
                }
            }
            let committed = txn.commit(&mut index_sink::IndexSink::new(self.config, store));
            match &committed.catalog {
                Ok(Some(catalog)) => warn_catalog_kept(self.face, catalog),
                Ok(None) => {}
                Err(e) => catalog_failures.push(catalog_failure(*scope, &committed.changed, e)),
            }
        }
        Ok(catalog_failures)
    }
}

fn write_item(txn: &mut Transaction<'_>, item: &mut Item, options: &WriteOptions, n: usize) {
    let shown = item.plan.take();
    let outcome = match txn.write(&item.candidate, options, shown.as_ref()) {
        Ok(step) => {
            let outcome = Outcome::of_step(txn.store(), &step);
            item.plan = Some(step.plan);
            outcome
        }
        // Input was checked when the plan was shown; what fails now is the
        // store under the lock (a file in the way).
        Err(WriteError::Plan(e)) => {
            item.plan = shown;
            Outcome::BadInput(item.hide_name(&format!(
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
