//! `memctl dream`: orient, plan (from the rules or a model command),
//! validate, show, confirm, apply, report (SPEC §7). The logic is
//! `mddream`'s; this module chooses the stores, talks to the user and maps
//! errors to exit codes.

mod render;

use jiff::Timestamp;
use mddream::plan::Plan;
use mddream::validate::{self, ValidateOptions};
use mdstore::redact::{self, Keep};

use mdagent::Config;
use mdagent::dream::auto::{self as dream_auto, Admission};
use mdagent::dream::model::{self as dream_model, DreamModelError};
use mdagent::dream::{self, Oriented};
use mdagent::lifecycle::{Job, reports};
use mdagent::model::cmd::ModelCmdError;
use mdagent::stores::{self, ScopedStore};

use crate::cli::DreamArgs;
use crate::failure::{self, Exit, Failure};
use crate::ui::{self, Ui};
use mdagent::Kind;

pub fn run(config: &Config, ui: &Ui, args: DreamArgs) -> anyhow::Result<Exit> {
    let background = args.background;
    let result = dream(config, ui, args);
    // Started by a hook, a dream is watched by no one: its failure is told
    // at the next session start.
    if background
        && let Err(e) = &result
        && let Some(first) = stores::read_stores(config)
            .ok()
            .and_then(|s| s.into_iter().next())
    {
        let (_, message, _) = failure::classify(e);
        reports::record(
            config,
            &first,
            Job::Dream,
            &format!("dream --auto failed: {message}; run `memctl dream` to see the plan"),
        );
    }
    result
}

fn dream(config: &Config, ui: &Ui, args: DreamArgs) -> anyhow::Result<Exit> {
    // As search does: the workspace store and the global store (`--global`:
    // only that one).
    let mut stores = stores::read_stores(config)?;
    // A workspace store named as the global store's own folder is one
    // store: its lock taken twice would wait for itself.
    stores.dedup_by(|later, earlier| later.store.root() == earlier.store.root());
    if stores.is_empty() {
        // A hook runs `dream --auto` in every project, with a store or not.
        if args.auto {
            ui.note("Skipped: there is no store here.");
            return Ok(Exit::Ok);
        }
        return Err(Failure::bad_input("there is no store to dream on")
            .with_hint("run `memctl init` in your project, or pass --store DIR")
            .into());
    }
    // Read before the model is asked: a bad value must not cost a call.
    let lock_timeout = config.lock_timeout()?;
    let now = mdstore::clock::now();
    let Some((_held, gates)) = admit(config, ui, &stores, &args, now)? else {
        return Ok(Exit::Ok);
    };
    let oriented = dream::orient(&stores);
    let mut plan = match &args.llm_cmd {
        Some(command) => {
            let mut asking =
                |call: &str| ui.note(&format!("Asking the model command for a plan{call}…"));
            let records = &oriented.records;
            dream_model::plan(
                config,
                command,
                records,
                args.max_delete_pct,
                now,
                &mut asking,
            )
            .map_err(model_failure)?
        }
        None => mddream::gather::gather(&oriented.records, now),
    };
    if args.auto {
        plan = dream_auto::unattended(plan);
    }
    // A model may name `Pytest-A` for `pytest-a`: what is shown, validated
    // and applied names the store's record.
    validate::resolve_ids(&mut plan, &oriented.records);
    let options = ValidateOptions {
        max_delete_pct: args.max_delete_pct,
    };
    let verdict = validate::validate(&plan, &oriented.records, &options);
    // A rejected plan is shown too: the person sees what was proposed and
    // which operation broke which rule.
    show(ui, &args, &plan, &oriented)?;
    if let Err(rejection) = verdict {
        return Err(rejected(&plan, &rejection, &args));
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
        let kept_before = dream::preserved_copies(&stores);
        let applied =
            dream::apply_plan(config, &plan, &oriented.records, &stores, now, lock_timeout)?;
        for kept in dream::preserved_copies(&stores).difference(&kept_before) {
            ui.warn_preserved(kept);
        }
        dream::commit_to_git(
            config,
            ui,
            args.commit,
            &plan,
            &applied,
            &stores,
            &oriented.records,
        );
        Some(applied)
    } else {
        return Ok(Exit::NotConfirmed);
    };
    gates
        .unwrap_or_else(|| dream_auto::Gates::load(config, &stores))
        .dreamt();
    if args.background
        && let Some(message) = dream::background_summary(&plan, applied.as_ref(), &stores)
    {
        reports::record(config, &stores[0], Job::Dream, &message);
    }
    if !ui.quiet || args.json {
        render::report(&args, &plan, applied.as_ref(), &oriented)?;
    }
    Ok(Exit::Ok)
}

/// The dream lock and, with `--auto`, the gates: `None` when this run is
/// to skip (another dream runs, or a gate is closed), having said why.
fn admit(
    config: &Config,
    ui: &Ui,
    stores: &[ScopedStore],
    args: &DreamArgs,
    now: Timestamp,
) -> anyhow::Result<Option<(Option<dream_auto::DreamLock>, Option<dream_auto::Gates>)>> {
    match dream_auto::admit(config, stores, args.auto, args.dry_run, now)? {
        Admission::Run { lock, gates } => Ok(Some((lock, gates))),
        Admission::Busy if args.auto => {
            ui.note("Skipped: another dream is running on this store.");
            Ok(None)
        }
        Admission::Busy => Err(Failure::new(
            Kind::Conflict,
            "another dream is running on this store; nothing was written",
        )
        .with_hint("wait for it to finish and run dream again")
        .into()),
        Admission::Closed(why) => {
            ui.note(&format!("Skipped: {why}."));
            Ok(None)
        }
    }
}

/// A plan the model command could not give: a record too large to send
/// (2), a runner that cannot be started (2), fails or hangs (5), or an
/// answer that is not a plan (2).
fn model_failure(err: DreamModelError) -> anyhow::Error {
    let failure = match err {
        DreamModelError::TooLarge(e) => Failure::bad_input(format!(
            "--llm-cmd: {e}; nothing was sent and nothing was written"
        ))
        .with_hint(
            "shorten that record, or raise MEMCTL_LLM_MAX_INPUT_CHARS if the model takes more",
        ),
        DreamModelError::Runner(err) => {
            let hint = match err {
                ModelCmdError::Timeout(_) => "MEMCTL_LLM_TIMEOUT_SECS sets how long it may take",
                ModelCmdError::OutputHeld(_) => mdagent::model::cmd::OUTPUT_HELD_HINT,
                ModelCmdError::Empty | ModelCmdError::Unsplittable(_) => {
                    "give the runner's command line, such as --llm-cmd \"claude -p\""
                }
                _ => {
                    "try the command by hand: it must read the input on stdin and print only a JSON plan"
                }
            };
            Failure::new(err.kind(), format!("--llm-cmd: {err}; nothing was written"))
            .with_hint(hint)
        }
        DreamModelError::Env(e) => {
            Failure::bad_input(format!("{e}; nothing was sent and nothing was written"))
                .with_hint(e.hint().unwrap_or_default())
        }
        e @ DreamModelError::NamesWithheld { .. } => {
            Failure::bad_input(format!("--llm-cmd: {e}; nothing was written")).with_hint(
                "a plan may act only on the records it was sent; run again, or change that record by hand",
            )
        }
        e @ (DreamModelError::Answer { .. } | DreamModelError::Wrapped { .. }) => {
            Failure::bad_input(format!("--llm-cmd: {e}; nothing was written")).with_hint(
                "the runner must print only the JSON plan (see `memctl dream` in the user guide)",
            )
        }
    };
    failure.into()
}

/// The plan as a person reads it, or as JSON for `--dry-run --json`; secrets hidden.
/// With `--yes -q` nobody reads it (as `remember --yes -q`): not shown.
fn show(ui: &Ui, args: &DreamArgs, plan: &Plan, oriented: &Oriented) -> anyhow::Result<()> {
    if ui.quiet && args.yes && !args.dry_run && !args.json {
        return Ok(());
    }
    if args.json && args.dry_run {
        render::print_json(plan)?;
    } else if !args.json {
        ui::print(&redact::lines(
            &render::plan(ui, plan, oriented),
            Keep::Indent,
        ))?;
    }
    Ok(())
}

fn confirmed(ui: &Ui, args: &DreamArgs) -> anyhow::Result<bool> {
    if args.yes || args.auto || (ui.interactive && ui.confirm("Apply this plan?")?) {
        return Ok(true);
    }
    ui.not_confirmed(
        "nothing was written",
        "pass --yes to apply without asking, or --dry-run to only see the plan",
    );
    Ok(false)
}

/// A plan that failed validation: the rule, the operation, and that nothing
/// was written. A dry run is a check of the plan: one that would be refused
/// is what it found (exit 1, SPEC §10), not bad usage.
fn rejected(plan: &Plan, rejection: &validate::Rejection, args: &DreamArgs) -> anyhow::Error {
    let max_delete_pct = args.max_delete_pct;
    let origin = match plan.origin {
        mddream::plan::Origin::Rules => "the rules' plan",
        mddream::plan::Origin::Model => "the model's plan",
    };
    // A dry run found what it checks for: problems (exit 1), not a failure.
    let kind = if args.dry_run {
        Kind::Problems
    } else {
        mdagent::explain::plan_rejection(rejection)
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
    let (verb, written) = if args.dry_run {
        ("would be rejected", "this was a dry run")
    } else {
        ("was rejected", "nothing was written")
    };
    Failure::new(
        kind,
        format!(
            "{origin} {verb}: {}; {written}",
            ui::shown(&rejection.to_string())
        ),
    )
    .with_hint(hint)
    .into()
}
