//! `memctl dream`: orient, plan (from the rules or a model command),
//! validate, show, confirm, apply, report (SPEC §7). The logic is
//! `mddream`'s; this module chooses the stores, talks to the user and maps
//! errors to exit codes.

mod auto;
mod llm;
mod render;

use std::collections::BTreeSet;
use std::path::PathBuf;

use jiff::Timestamp;
use mddream::apply::{self, ApplyError, ApplyOptions, Target};
use mddream::plan::{Plan, Scope};
use mddream::records::{self, Broken, DreamRecord};
use mddream::validate::{self, ValidateOptions};

use crate::cli::{DreamArgs, GlobalArgs};
use crate::failure::{Exit, Failure};
use crate::index_hook::IndexSink;
use crate::stores::{self, ScopedStore};
use crate::ui::{self, Ui};

/// What orienting found in every store dreamt on.
pub struct Oriented {
    pub records: Vec<DreamRecord>,
    pub broken: Vec<Broken>,
}

pub fn run(global: &GlobalArgs, ui: &Ui, args: DreamArgs) -> anyhow::Result<Exit> {
    let stores = dream_stores(global)?;
    // Whole seconds, as every other write's timestamps.
    let now =
        Timestamp::from_second(Timestamp::now().as_second()).unwrap_or_else(|_| Timestamp::now());
    // A dry run writes nothing, so it needs no lock and no gate.
    let _held = if args.dry_run {
        None
    } else {
        match auto::DreamLock::take(&stores)? {
            Some(lock) => Some(lock),
            None if args.auto => {
                ui.note("Skipped: another dream is running on this store.");
                return Ok(Exit::Ok);
            }
            None => {
                return Err(Failure::new(
                    Exit::Conflict,
                    "another dream is running on this store; nothing was written",
                )
                .with_hint("wait for it to finish and run dream again")
                .into());
            }
        }
    };
    let mut gates = None;
    if args.auto {
        let mut state = auto::Gates::load(&stores);
        if let Some(why) = state.check(&stores, now)? {
            ui.note(&format!("Skipped: {why}."));
            return Ok(Exit::Ok);
        }
        gates = Some(state);
    }
    let oriented = orient(&stores);
    let mut plan = match &args.llm_cmd {
        Some(command) => llm::plan(ui, command, &oriented.records, &args, now)?,
        None => mddream::gather::gather(&oriented.records, now),
    };
    if args.auto {
        plan = auto::unattended(plan);
    }
    let options = ValidateOptions {
        max_delete_pct: args.max_delete_pct,
    };
    let verdict = validate::validate(&plan, &oriented.records, &options);
    // A rejected plan is shown too: the person sees what was proposed and
    // which operation broke which rule.
    if args.json && args.dry_run {
        render::print_json(&plan)?;
    } else if !args.json {
        ui::print(&render::hide_secret_lines(&render::plan(
            ui, &plan, &oriented,
        )))?;
    }
    if let Err(rejection) = verdict {
        return Err(rejected(&plan, &rejection, args.max_delete_pct));
    }
    if args.json && args.dry_run {
        return Ok(Exit::Ok);
    }
    if args.dry_run {
        ui.note("Dry run: nothing was written.");
        return Ok(Exit::Ok);
    }
    let applied = if plan.operations.is_empty() {
        None
    } else if confirmed(ui, &args)? {
        let kept_before = preserved_copies(&stores);
        let applied = apply_plan(&plan, &stores, now)?;
        for kept in preserved_copies(&stores).difference(&kept_before) {
            super::admin::note_preserved_at(ui, kept);
        }
        Some(applied)
    } else {
        return Ok(Exit::NotConfirmed);
    };
    gates.unwrap_or_else(|| auto::Gates::load(&stores)).dreamt();
    render::report(&args, &plan, applied.as_ref(), &oriented)?;
    Ok(Exit::Ok)
}

/// The stores dream reads, as search does: the workspace store and the
/// global store (`--global`: only that one).
fn dream_stores(global: &GlobalArgs) -> anyhow::Result<Vec<ScopedStore>> {
    let stores = stores::read_stores(global)?;
    if stores.is_empty() {
        return Err(Failure::bad_input("there is no store to dream on")
            .with_hint("run `memctl init` in your project, or pass --store DIR")
            .into());
    }
    Ok(stores)
}

pub fn plan_scope(scope: stores::Scope) -> Scope {
    match scope {
        stores::Scope::Workspace => Scope::Workspace,
        stores::Scope::Global => Scope::Global,
    }
}

fn orient(stores: &[ScopedStore]) -> Oriented {
    let mut oriented = Oriented {
        records: Vec::new(),
        broken: Vec::new(),
    };
    for scoped in stores {
        let loaded = records::load(&scoped.store, plan_scope(scoped.scope));
        oriented.records.extend(loaded.records);
        oriented.broken.extend(loaded.broken);
    }
    oriented
}

/// The copies of hand-made `MEMORY.md` files in the stores
/// (`MEMORY.md.before-memctl`, `-2`…): a new one after applying is a
/// hand-made index the plan's `MEMORY.md` replaced, which the user is told of.
fn preserved_copies(stores: &[ScopedStore]) -> BTreeSet<PathBuf> {
    stores
        .iter()
        .filter_map(|scoped| std::fs::read_dir(scoped.store.root()).ok())
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(mdstore::catalog::disk::PRESERVED_FILE))
        })
        .collect()
}

fn confirmed(ui: &Ui, args: &DreamArgs) -> anyhow::Result<bool> {
    if args.yes || args.auto || (ui.interactive && ui.confirm("Apply this plan?")?) {
        return Ok(true);
    }
    if ui.interactive {
        ui.error("nothing was written: declined at the prompt", None);
    } else {
        ui.error(
            "nothing was written: there is no terminal to confirm on",
            Some("pass --yes to apply without asking, or --dry-run to only see the plan"),
        );
    }
    Ok(false)
}

/// A plan that failed validation: the rule, the operation, and that nothing
/// was written.
fn rejected(plan: &Plan, rejection: &validate::Rejection, max_delete_pct: f64) -> anyhow::Error {
    let origin = match plan.origin {
        mddream::plan::Origin::Rules => "the rules' plan",
        mddream::plan::Origin::Model => "the model's plan",
    };
    // SPEC §10: a lower-trust overwrite and a revision mismatch are conflicts.
    let exit = match rejection.kind {
        validate::Rule::LowerTrust | validate::Rule::Revision => Exit::Conflict,
        _ => Exit::BadInput,
    };
    let hint = match (rejection.kind, plan.origin) {
        (validate::Rule::RemovalLimit, _) => format!(
            "pass a --max-delete-pct above {max_delete_pct} if the plan above is right, or retire some records by hand first"
        ),
        (validate::Rule::Revision, mddream::plan::Origin::Rules) => {
            "a record changed meanwhile: run memctl dream again".to_string()
        }
        (_, mddream::plan::Origin::Model) => {
            "run again (a model answers differently each time), or without --llm-cmd for the rules' plan".to_string()
        }
        (_, mddream::plan::Origin::Rules) => {
            "the rules proposed something they must not: please report it with the plan above".to_string()
        }
    };
    Failure::new(
        exit,
        format!(
            "{origin} was rejected: {}; nothing was written",
            ui::shown(&rejection.to_string())
        ),
    )
    .with_hint(hint)
    .into()
}

fn apply_plan(
    plan: &Plan,
    stores: &[ScopedStore],
    now: Timestamp,
) -> anyhow::Result<apply::Applied> {
    let mut sinks: Vec<IndexSink<'_>> = stores.iter().map(|s| IndexSink(&s.store)).collect();
    let mut targets: Vec<Target<'_>> = stores
        .iter()
        .zip(sinks.iter_mut())
        .map(|(scoped, sink)| Target {
            scope: plan_scope(scoped.scope),
            store: &scoped.store,
            sink,
        })
        .collect();
    let options = ApplyOptions {
        lock_timeout: mdstore::lock::timeout_from_env(),
        now,
    };
    apply::apply(plan, &mut targets, &options).map_err(apply_failure)
}

/// SPEC §10's exit code for each way applying can fail (the error says
/// that the files were left or restored as they were).
fn apply_failure(err: ApplyError) -> anyhow::Error {
    let exit = match err.exit_code() {
        2 => Exit::BadInput,
        4 => Exit::Conflict,
        _ => Exit::Internal,
    };
    let hint = match &err {
        // The store lock's own message and hint (failure.rs).
        ApplyError::Lock(_) => return anyhow::Error::from(err),
        ApplyError::Conflict { .. } => {
            Some("run memctl dream again to plan from the store as it is now")
        }
        ApplyError::Unrestored { .. } => {
            Some("`git status` and `memctl check` show what is left to repair")
        }
        ApplyError::Refused { .. } | ApplyError::Io { .. } => None,
    };
    let failure = Failure::new(exit, ui::shown(&err.to_string()));
    match hint {
        Some(hint) => failure.with_hint(hint).into(),
        None => failure.into(),
    }
}
