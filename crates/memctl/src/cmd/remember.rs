//! `memctl remember`: classify, show, confirm, then write under the lock (SPEC §6).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;
use jiff::Timestamp;
use mdstore::lock::{self, StoreLock};
use mdstore::view::StoreView;
use mdstore::write::{self, Candidate, Operation, Plan, Refusal, WriteOptions};
use mdstore::{Source, Store};
use serde_json::json;

use crate::cli::{GlobalArgs, RememberArgs, WriteScope};
use crate::failure::{Exit, Failure};
use crate::index_hook;
use crate::stores::{self, Scope, ScopedStore, WriteTarget};
use crate::ui::{self, Style, Ui};

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
    NotConfirmed,
    DryRun,
}

impl Outcome {
    fn exit(&self) -> Exit {
        match self {
            Outcome::Saved { .. } | Outcome::Noop { .. } | Outcome::DryRun => Exit::Ok,
            Outcome::Refused { exit, .. } => *exit,
            Outcome::Conflict(_) => Exit::Conflict,
            Outcome::NotConfirmed => Exit::NotConfirmed,
        }
    }
}

pub fn run(global: &GlobalArgs, ui: &Ui, args: RememberArgs) -> anyhow::Result<Exit> {
    let now =
        Timestamp::from_second(Timestamp::now().as_second()).unwrap_or_else(|_| Timestamp::now());
    let from_json = args.from_json.is_some();
    let default_scope = match (args.scope, global.global) {
        (Some(WriteScope::Global), _) | (None, true) => Scope::Global,
        _ => Scope::Workspace,
    };
    let candidates = match &args.from_json {
        Some(source) => read_candidates(source)?,
        None => vec![candidate_from_args(&args)?],
    };
    let mut items = Vec::with_capacity(candidates.len());
    for (n, candidate) in candidates.into_iter().enumerate() {
        let scope = match candidate.scope.as_deref() {
            None => default_scope,
            Some("workspace") => Scope::Workspace,
            Some("global") => Scope::Global,
            Some(other) => {
                return Err(Failure::bad_input(format!(
                    "candidate {} ({:?}): unknown scope {other:?}: expected workspace or global",
                    n + 1,
                    candidate.name
                ))
                .into());
            }
        };
        items.push(Item {
            candidate,
            scope,
            plan: None,
            outcome: None,
        });
    }
    refuse_repeated_ids(&items)?;
    let options = WriteOptions {
        force: args.force,
        expect_revision: args.expect_revision,
        refuse_temporary: from_json || args.yes,
        default_source: if from_json {
            Source::Inferred
        } else {
            Source::User
        },
        now,
    };

    // A store that does not exist yet is planned against an empty stand-in
    // (no records, no tombstones: the same classification) and created only
    // when a confirmed write needs it, so that a dry run, a refusal or an
    // unconfirmed run leaves the disk as it was.
    let mut stand_in: Option<tempfile::TempDir> = None;
    let mut store_of: BTreeMap<Scope, ScopedStore> = BTreeMap::new();
    let mut missing: BTreeMap<Scope, PathBuf> = BTreeMap::new();
    for scope in items
        .iter()
        .map(|i| i.scope)
        .collect::<std::collections::BTreeSet<_>>()
    {
        match stores::write_target(global, scope)? {
            WriteTarget::Existing(scoped) => {
                store_of.insert(scope, scoped);
            }
            WriteTarget::Missing { scope, dir } => {
                if !args.dry_run {
                    stores::confirm_creation(scope, &dir, ui, args.yes)?;
                }
                let stand_in_root = match &stand_in {
                    Some(dir) => dir.path().to_path_buf(),
                    None => stand_in
                        .insert(
                            tempfile::tempdir()
                                .context("cannot create a temporary folder to plan in")?,
                        )
                        .path()
                        .to_path_buf(),
                };
                let store = Store::create(&stand_in_root.join(scope.as_str()))
                    .context("cannot create a temporary folder to plan in")?;
                ui.note(&format!(
                    "The {} store {} does not exist yet; saving creates it.",
                    scope.as_str(),
                    dir.display()
                ));
                store_of.insert(scope, ScopedStore { scope, store });
                missing.insert(scope, dir);
            }
        }
    }
    let roots = display_roots(&store_of, &missing);

    // Phase 1: classify and show the plan. A person may take their time to
    // confirm, so a plan they see is made without the lock and made again
    // under it; a `--yes` run takes the lock first and plans once, sparing a
    // second scan of the store.
    let mut held: BTreeMap<Scope, Held> = BTreeMap::new();
    let mut budget_warnings = Vec::new();
    for scope in store_of.keys().copied().collect::<Vec<_>>() {
        let scoped = &store_of[&scope];
        let lock = if args.yes && !args.dry_run && !missing.contains_key(&scope) {
            Some(lock_store(scoped)?)
        } else {
            None
        };
        let view = index_hook::view_for_write(&scoped.store);
        for item in items.iter_mut().filter(|i| i.scope == scope) {
            let plan =
                write::plan(&scoped.store, &view, &item.candidate, &options).map_err(|e| {
                    Failure::bad_input(describe_candidate(
                        &item.candidate,
                        from_json,
                        &e.to_string(),
                    ))
                })?;
            if let Operation::Refused(refusal) = &plan.operation {
                item.outcome = Some(refused(refusal, &plan.id));
            }
            if let Operation::Noop { existing } = &plan.operation {
                item.outcome = Some(noop(&scoped.store, existing, &plan.rel_path));
            }
            item.plan = Some(plan);
        }
        let pending: Vec<&Plan> = items
            .iter()
            .filter(|i| i.scope == scope && i.outcome.is_none())
            .filter_map(|i| i.plan.as_ref())
            .collect();
        if !pending.is_empty()
            && let Some(warning) = write::budget_warning_after(&view, &pending)
        {
            budget_warnings.push(warning);
        }
        if let Some(lock) = lock {
            held.insert(scope, Held { _lock: lock, view });
        }
    }
    if !args.json {
        for item in &items {
            show_plan(ui, item, &roots[&item.scope]);
        }
    }
    for warning in &budget_warnings {
        ui.warn(warning);
    }

    let writes = items.iter().filter(|i| i.outcome.is_none()).count();
    if writes > 0 {
        let confirmed = if args.dry_run {
            false
        } else if args.yes {
            true
        } else if ui.interactive {
            ui.confirm("Save?")?
        } else {
            false
        };
        if args.dry_run {
            set_pending(&mut items, Outcome::DryRun);
        } else if !confirmed {
            set_pending(&mut items, Outcome::NotConfirmed);
        } else {
            let needed: Vec<Scope> = missing
                .keys()
                .copied()
                .filter(|scope| {
                    items
                        .iter()
                        .any(|i| i.scope == *scope && i.outcome.is_none())
                })
                .collect();
            for scope in needed {
                if let Some(dir) = missing.remove(&scope) {
                    store_of.insert(scope, stores::create(scope, &dir, ui)?);
                }
            }
            apply_all(ui, &mut items, &store_of, &options, held)?;
        }
    }
    drop(stand_in);
    report(ui, &items, &display_roots(&store_of, &missing), &args)
}

/// The folder each scope's paths are shown under: the store, or where a
/// missing one would be created.
fn display_roots(
    store_of: &BTreeMap<Scope, ScopedStore>,
    missing: &BTreeMap<Scope, PathBuf>,
) -> BTreeMap<Scope, PathBuf> {
    store_of
        .iter()
        .map(|(scope, scoped)| {
            let root = missing
                .get(scope)
                .map_or_else(|| scoped.store.root().to_path_buf(), Clone::clone);
            (*scope, root)
        })
        .collect()
}

/// Two candidates of one batch for the same record would be shown as two
/// plans for one file, of which only the first could be written: the batch
/// is ambiguous, so it is refused before anything is planned.
fn refuse_repeated_ids(items: &[Item]) -> anyhow::Result<()> {
    let mut first_of: BTreeMap<(Scope, String), usize> = BTreeMap::new();
    for (n, item) in items.iter().enumerate() {
        // Names that do not normalise are reported by the planning itself.
        let Ok(id) = mdstore::id::normalize_name(&item.candidate.name) else {
            continue;
        };
        if let Some(first) = first_of.insert((item.scope, mdstore::id::id_key(&id)), n) {
            return Err(Failure::bad_input(format!(
                "candidates {} ({:?}) and {} ({:?}) are the same record {id:?} in the {} store",
                first + 1,
                items[first].candidate.name,
                n + 1,
                item.candidate.name,
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

/// Phase 2: under each store's lock, classify again and write only what
/// still matches what was shown and confirmed.
fn apply_all(
    ui: &Ui,
    items: &mut [Item],
    store_of: &BTreeMap<Scope, ScopedStore>,
    options: &WriteOptions,
    mut held: BTreeMap<Scope, Held>,
) -> anyhow::Result<()> {
    for (scope, scoped) in store_of {
        if !items
            .iter()
            .any(|i| i.scope == *scope && i.outcome.is_none())
        {
            continue;
        }
        // Plans made under a lock still held stand as they are.
        let (_lock, mut view, planned_under_lock) = match held.remove(scope) {
            Some(Held { _lock, view }) => (_lock, view, true),
            None => (
                lock_store(scoped)?,
                index_hook::view_for_write(&scoped.store),
                false,
            ),
        };
        let mut written = Vec::new();
        for item in items
            .iter_mut()
            .filter(|i| i.scope == *scope && i.outcome.is_none())
        {
            let shown = item.plan.as_ref();
            // Within a batch an earlier write changes the view, so the first
            // plan stands only for the first write.
            let again = match shown {
                Some(plan) if planned_under_lock && written.is_empty() => plan.clone(),
                _ => write::plan(&scoped.store, &view, &item.candidate, options)
                    .map_err(|e| Failure::bad_input(e.to_string()))?,
            };
            item.outcome = Some(match &again.operation {
                Operation::Refused(refusal) => refused(refusal, &again.id),
                Operation::Noop { existing } => noop(&scoped.store, existing, &again.rel_path),
                op if Some(op) != shown.map(|p| &p.operation)
                    || again.new_text != shown.and_then(|p| p.new_text.clone()) =>
                {
                    Outcome::Conflict(format!(
                        "{} changed while this write was being confirmed; nothing was written for it",
                        again.id
                    ))
                }
                op => {
                    let catalog = write::apply(&scoped.store, &mut view, &again)
                        .with_context(|| format!("cannot write {}", again.rel_path.display()))?;
                    if let Some(catalog) = catalog {
                        super::admin::note_preserved(ui, &catalog);
                    }
                    written.push(again.rel_path.clone());
                    Outcome::Saved {
                        revision: match op {
                            Operation::Update { from_revision } => from_revision.saturating_add(1),
                            _ => 1,
                        },
                    }
                }
            });
            item.plan = Some(again);
        }
        index_hook::after_write(&scoped.store, &written);
    }
    Ok(())
}

/// A store's write lock, held from planning to writing, with the view the
/// plans were made from.
struct Held {
    _lock: StoreLock,
    view: StoreView,
}

fn lock_store(scoped: &ScopedStore) -> anyhow::Result<StoreLock> {
    match StoreLock::acquire(scoped.store.root(), lock::timeout_from_env()) {
        Ok(lock) => Ok(lock),
        Err(lock::LockError::Timeout(waited)) => Err(Failure::new(
            Exit::Conflict,
            format!(
                "another memctl process held the write lock of {} for {waited:?}; nothing was written",
                scoped.store.root().display()
            ),
        )
        .with_hint("try again when it is done (MEMCTL_LOCK_TIMEOUT_MS sets the wait)")
        .into()),
        Err(e) => Err(e).context("cannot take the store's write lock"),
    }
}

fn refused(refusal: &Refusal, id: &str) -> Outcome {
    let (exit, message, hint) = match refusal {
        Refusal::Secret(found) => (
            Exit::BadInput,
            format!(
                "{id} looks like it holds a secret ({}); memory is not a place for secrets",
                found
                    .iter()
                    .map(|f| format!("rule {} {}", f.finding.rule, f.place))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some("remove the secret and say where it lives instead (a vault, an env var)".to_string()),
        ),
        Refusal::Temporary(found) => (
            Exit::BadInput,
            format!(
                "{id} reads as temporary ({}); memory is for what stays true",
                found
                    .iter()
                    .map(|f| format!("{:?} {}", f.finding.phrase, f.place))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some("say it without the temporary part, or run interactively to save it after a warning".to_string()),
        ),
        Refusal::Tombstone(tomb) => (
            Exit::Conflict,
            format!(
                "{} was forgotten on {}{}",
                tomb.id,
                tomb.forgotten_at.strftime("%Y-%m-%d %H:%M UTC"),
                tomb.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default()
            ),
            Some("pass --force to remember it again".to_string()),
        ),
        Refusal::LowerTrust { existing, proposed } => (
            Exit::Conflict,
            format!("{id} has source {existing}; a proposal with source {proposed} cannot overwrite it"),
            Some("pass --force if the user really means to replace it, or --source user".to_string()),
        ),
        Refusal::RevisionMismatch { expected, actual } => (
            Exit::Conflict,
            match actual {
                Some(actual) => format!("{id} is at revision {actual}, not {expected}; nothing was written"),
                None => format!("{id} does not exist, so it is not at revision {expected}; nothing was written"),
            },
            Some(format!("read it again with `memctl show {id}` and retry")),
        ),
    };
    Outcome::Refused {
        exit,
        message,
        hint,
    }
}

fn show_plan(ui: &Ui, item: &Item, root: &Path) {
    let Some(plan) = &item.plan else { return };
    let path = root.join(&plan.rel_path);
    let label = |op: &str, style| ui.paint(style, op);
    let mut out = String::new();
    match &plan.operation {
        Operation::Add => {
            out += &format!(
                "{} {} ({} store: {})\n",
                label("ADD", Style::Green),
                plan.id,
                item.scope.as_str(),
                path.display()
            );
            out += plan.new_text.as_deref().unwrap_or_default();
        }
        Operation::Update { from_revision } => {
            out += &format!(
                "{} {} revision {} → {} ({} store: {})\n",
                label("UPDATE", Style::Yellow),
                plan.id,
                from_revision,
                from_revision.saturating_add(1),
                item.scope.as_str(),
                path.display()
            );
            out += &ui::diff(
                ui,
                plan.old_text.as_deref().unwrap_or_default(),
                plan.new_text.as_deref().unwrap_or_default(),
                &format!("{} (revision {from_revision})", plan.id),
                &format!("{} (revision {})", plan.id, from_revision.saturating_add(1)),
            );
        }
        Operation::Noop { existing } => {
            let whom = if *existing == plan.id {
                "this record".to_string()
            } else {
                existing.clone()
            };
            out += &format!(
                "{} {}: the same content is already stored as {whom}; nothing to write\n",
                label("NOOP", Style::Dim),
                plan.id
            );
        }
        Operation::Refused(_) => {
            out += &format!("{} {}\n", label("REFUSED", Style::Red), plan.id);
        }
    }
    let _ = ui::print(&out);
    for warning in &plan.warnings {
        ui.warn(warning);
    }
}

fn report(
    ui: &Ui,
    items: &[Item],
    roots: &BTreeMap<Scope, PathBuf>,
    args: &RememberArgs,
) -> anyhow::Result<Exit> {
    let exit = items
        .iter()
        .filter_map(|i| i.outcome.as_ref())
        .map(Outcome::exit)
        .find(|e| *e != Exit::Ok)
        .unwrap_or(Exit::Ok);
    if args.json {
        let rows: Vec<serde_json::Value> = items
            .iter()
            .map(|item| {
                let plan = item.plan.as_ref();
                let mut row = json!({
                    "name": item.candidate.name,
                    "id": plan.map(|p| p.id.clone()),
                    "scope": item.scope.as_str(),
                    "path": match item.outcome.as_ref() {
                        Some(Outcome::Noop { rel_path, .. }) => Some(roots[&item.scope].join(rel_path)),
                        _ => plan.map(|p| roots[&item.scope].join(&p.rel_path)),
                    },
                    "warnings": plan.map(|p| p.warnings.clone()).unwrap_or_default(),
                });
                let (status, extra) = match item.outcome.as_ref() {
                    Some(Outcome::Saved { revision }) => (
                        "saved",
                        json!({"revision": revision, "operation": operation_name(plan)}),
                    ),
                    Some(Outcome::Noop { existing, .. }) => ("noop", json!({"existing": existing})),
                    Some(Outcome::Refused { message, .. }) => {
                        ("refused", json!({"reason": message}))
                    }
                    Some(Outcome::Conflict(message)) => ("conflict", json!({"reason": message})),
                    Some(Outcome::NotConfirmed) => {
                        ("not-confirmed", json!({"operation": operation_name(plan)}))
                    }
                    Some(Outcome::DryRun) | None => {
                        ("dry-run", json!({"operation": operation_name(plan)}))
                    }
                };
                row["status"] = json!(status);
                row["exit_code"] = json!(item.outcome.as_ref().map_or(0, |o| o.exit() as u8));
                if let (Some(row), Some(extra)) = (row.as_object_mut(), extra.as_object()) {
                    row.extend(extra.clone());
                }
                row
            })
            .collect();
        ui::print(&(serde_json::to_string_pretty(&rows)? + "\n"))?;
        return Ok(exit);
    }
    for item in items {
        let id = item
            .plan
            .as_ref()
            .map_or(item.candidate.name.as_str(), |p| p.id.as_str());
        match item.outcome.as_ref() {
            Some(Outcome::Saved { revision }) => {
                ui.note(&format!(
                    "Saved {id} (revision {revision}) in the {} store.",
                    item.scope.as_str()
                ));
            }
            Some(Outcome::Refused { message, hint, .. }) => {
                print_error(ui, message, hint.as_deref())
            }
            Some(Outcome::Conflict(message)) => {
                print_error(ui, message, Some("run the command again"))
            }
            Some(Outcome::NotConfirmed) => {}
            Some(Outcome::DryRun) => ui.note(&format!("Dry run: {id} was not written.")),
            Some(Outcome::Noop { .. }) | None => {}
        }
    }
    if items
        .iter()
        .any(|i| matches!(i.outcome, Some(Outcome::NotConfirmed)))
    {
        if ui.interactive {
            print_error(ui, "not saved: declined at the prompt", None);
        } else {
            print_error(
                ui,
                "not saved: there is no terminal to confirm on",
                Some("pass --yes to save without asking, or --dry-run to only see the plan"),
            );
        }
    }
    Ok(exit)
}

fn operation_name(plan: Option<&Plan>) -> &'static str {
    match plan.map(|p| &p.operation) {
        Some(Operation::Add) => "add",
        Some(Operation::Update { .. }) => "update",
        Some(Operation::Noop { .. }) => "noop",
        Some(Operation::Refused(_)) | None => "refused",
    }
}

pub fn print_error(ui: &Ui, message: &str, hint: Option<&str>) {
    eprintln!("{} {message}", ui.paint(Style::Red, "error:"));
    if let Some(hint) = hint {
        eprintln!("{} {hint}", ui.paint(Style::Cyan, "hint:"));
    }
}

fn describe_candidate(candidate: &Candidate, from_json: bool, message: &str) -> String {
    if from_json {
        format!("candidate {:?}: {message}", candidate.name)
    } else {
        message.to_string()
    }
}

fn candidate_from_args(args: &RememberArgs) -> anyhow::Result<Candidate> {
    let body = match args.body.as_deref() {
        Some("-") => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read the body from standard input")?;
            Some(text)
        }
        other => other.map(str::to_string),
    };
    let name = match (&args.name, &args.description) {
        (Some(name), _) => name.clone(),
        (None, Some(description)) => name_from_description(description),
        (None, None) => {
            return Err(Failure::bad_input("remember needs --name (or a --description to derive one from)")
                .with_hint("memctl remember --name prefer-pytest --type feedback --description \"Tests use pytest\" \"New tests use pytest.\"")
                .into());
        }
    };
    Ok(Candidate {
        name,
        record_type: args.record_type.map(Into::into),
        description: args.description.clone(),
        body,
        source: args.source.map(Into::into),
        expires: args.expires.clone(),
        tags: args.tags.clone(),
        scope: None,
    })
}

/// A name from the first words of a description: `Tests use pytest` → `tests-use-pytest`.
fn name_from_description(description: &str) -> String {
    let words: Vec<String> = description
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(6)
        .map(str::to_lowercase)
        .collect();
    words.join("-").chars().take(60).collect()
}

fn read_candidates(source: &str) -> anyhow::Result<Vec<Candidate>> {
    let (label, text) = if source == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read candidates from standard input")?;
        ("standard input".to_string(), text)
    } else {
        let text = std::fs::read_to_string(source)
            .map_err(|e| Failure::bad_input(format!("--from-json {source}: {e}")))?;
        (source.to_string(), text)
    };
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        Many(Vec<Candidate>),
        One(Box<Candidate>),
    }
    // Parse twice on error: untagged enums hide the real message and position.
    match serde_json::from_str::<OneOrMany>(&text) {
        Ok(OneOrMany::Many(many)) => Ok(many),
        Ok(OneOrMany::One(one)) => Ok(vec![*one]),
        Err(_) => {
            let err = serde_json::from_str::<Vec<Candidate>>(&text)
                .err()
                .map(|e| format!("{label}:{}:{}: {e}", e.line(), e.column()))
                .unwrap_or_else(|| format!("{label}: not a JSON array of candidates"));
            Err(Failure::bad_input(err)
                .with_hint("expected [{\"name\", \"type\", \"description\", \"body\", \"scope\"?, \"source\"?, \"expires\"?, \"tags\"?}]")
                .into())
        }
    }
}
