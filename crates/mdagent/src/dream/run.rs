//! `memctl dream`'s whole sequence as one use case (SPEC §7), whichever
//! face runs it: the stores, the dream lock and `--auto`'s gates, orient, a
//! plan from the rules or a model command, its ids resolved and the plan
//! validated, shown and confirmed through the face ([`DreamFace`]),
//! applied, committed when asked, the gates marked, and, run in the
//! background, what it did or why it failed kept for the next session
//! start. The face parses its arguments, shows the plan and renders the
//! report; it never orders these steps itself.

use std::io;
use std::path::Path;

use jiff::Timestamp;
use mddream::apply::{Applied, ApplyError};
use mddream::plan::{Origin, Plan};
use mddream::validate::{self, Rejection, Rule, ValidateOptions};
use mdstore::escape::escape_controls;

use super::Oriented;
use super::auto::{self, Admission, DreamAutoError, Gates};
use super::model::{self as dream_model, DreamModelError};
use crate::config::ConfigError;
use crate::face::Tell;
use crate::lifecycle::{Job, reports};
use crate::model::cmd::{ModelCmdError, OUTPUT_HELD_HINT};
use crate::stores::{self, ScopedStore, StoreError};
use crate::{Config, Kind};

/// What a face asks of a dream (its command line's switches).
#[derive(Clone, Copy, Debug)]
pub struct DreamRequest<'a> {
    /// Ask this model command for the plan instead of the rules.
    pub llm_cmd: Option<&'a str>,
    /// At most this share of the records may be retired.
    pub max_delete_pct: f64,
    /// Unattended: `--auto`'s gates and policy, nobody to confirm.
    pub auto: bool,
    /// Plan, validate and show; write nothing.
    pub dry_run: bool,
    /// Commit the stores' changed files to git afterwards.
    pub commit: bool,
    /// Started by a hook: what it did or why it failed is kept for the
    /// next session start.
    pub background: bool,
}

/// What a dream needs from the face that runs it, beside [`Tell`].
pub trait DreamFace: Tell {
    /// The plan before anything is written. A plan that breaks a rule is
    /// shown too: the person sees what was proposed, then which operation
    /// broke which rule.
    fn show(&self, plan: &Plan, oriented: &Oriented) -> io::Result<()>;
    /// Whether to apply `plan` (`false`: nothing is written; the face says
    /// why). Never asked when unattended.
    fn confirm(&self, plan: &Plan) -> io::Result<bool>;
    /// A `MEMORY.md` memctl did not write, whose text is now kept at `kept`.
    fn preserved(&self, kept: &Path);
}

/// How a dream ended, when it did not fail.
pub enum Dreamt {
    /// Nothing to do now (unattended with no store, another dream running,
    /// or a gate closed): said why through [`Tell::note`].
    Skipped,
    /// Nobody confirmed the plan: nothing was written.
    NotConfirmed,
    /// The plan, valid; `applied` is `None` for a dry run or an empty plan.
    Planned {
        plan: Plan,
        applied: Option<Applied>,
        oriented: Oriented,
    },
}

/// Why a dream stopped; nothing was written unless the message says so.
#[derive(Debug, thiserror::Error)]
pub enum DreamError {
    #[error("there is no store to dream on")]
    NoStore,
    #[error("another dream is running on this store; nothing was written")]
    Busy,
    #[error("{}", model_message(.0))]
    Model(DreamModelError),
    /// The plan broke a rule. A dry run is a check of the plan: one that
    /// would be refused is what it found (exit 1, SPEC §10), not bad usage.
    #[error("{}", rejected_message(.origin, .rejection, *.dry_run))]
    Rejected {
        origin: Origin,
        rejection: Rejection,
        dry_run: bool,
        max_delete_pct: f64,
    },
    #[error(transparent)]
    Stores(#[from] StoreError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Auto(#[from] DreamAutoError),
    #[error(transparent)]
    Apply(#[from] ApplyError),
    /// The face could not show the plan or ask.
    #[error(transparent)]
    Face(#[from] io::Error),
}

impl DreamError {
    /// The error this one wraps, which [`crate::explain()`] explains instead.
    pub fn wrapped(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DreamError::Stores(e) => Some(e),
            DreamError::Config(e) => Some(e),
            DreamError::Auto(e) => Some(e),
            DreamError::Apply(e) => Some(e),
            DreamError::Face(e) => Some(e),
            DreamError::NoStore
            | DreamError::Busy
            | DreamError::Model(_)
            | DreamError::Rejected { .. } => None,
        }
    }

    /// The kind of failure of an error that is not [`DreamError::wrapped`].
    pub fn kind(&self) -> Kind {
        match self {
            DreamError::NoStore => Kind::BadInput,
            DreamError::Busy => Kind::Conflict,
            DreamError::Model(DreamModelError::Runner(e)) => e.kind(),
            DreamError::Model(_) => Kind::BadInput,
            DreamError::Rejected { dry_run: true, .. } => Kind::Problems,
            DreamError::Rejected { rejection, .. } => crate::explain::plan_rejection(rejection),
            _ => Kind::Internal,
        }
    }

    /// What to do about it.
    pub fn hint(&self) -> Option<String> {
        let hint = match self {
            DreamError::NoStore => "run `memctl init` in your project, or pass --store DIR",
            DreamError::Busy => "wait for it to finish and run dream again",
            DreamError::Model(e) => return model_hint(e),
            DreamError::Rejected {
                origin,
                rejection,
                max_delete_pct,
                ..
            } => return Some(rejected_hint(*origin, rejection, *max_delete_pct)),
            _ => return None,
        };
        Some(hint.to_string())
    }
}

/// Runs a dream as `request` says, through `face`. Started by a hook, a
/// dream is watched by no one: its failure is kept for the next session
/// start to say.
pub fn run(
    config: &Config,
    face: &dyn DreamFace,
    request: &DreamRequest<'_>,
) -> Result<Dreamt, DreamError> {
    let result = dream(config, face, request);
    if request.background
        && let Err(e) = &result
        && let Some(first) = stores::read_stores(config)
            .ok()
            .and_then(|s| s.into_iter().next())
    {
        let message = crate::explain::message_of(e);
        reports::record(
            config,
            &first,
            Job::Dream,
            &format!("dream --auto failed: {message}; run `memctl dream` to see the plan"),
        );
    }
    result
}

fn dream(
    config: &Config,
    face: &dyn DreamFace,
    request: &DreamRequest<'_>,
) -> Result<Dreamt, DreamError> {
    // As search does: the workspace store and the global store (`--global`:
    // only that one).
    let mut stores = stores::read_stores(config)?;
    // A workspace store named as the global store's own folder is one
    // store: its lock taken twice would wait for itself.
    stores.dedup_by(|later, earlier| later.store.root() == earlier.store.root());
    if stores.is_empty() {
        // A hook runs `dream --auto` in every project, with a store or not.
        if request.auto {
            face.note("Skipped: there is no store here.");
            return Ok(Dreamt::Skipped);
        }
        return Err(DreamError::NoStore);
    }
    // Read before the model is asked: a bad value must not cost a call.
    let lock_timeout = config.lock_timeout()?;
    let now = mdstore::clock::now();
    let Some((_held, gates)) = admit(config, face, &stores, request, now)? else {
        return Ok(Dreamt::Skipped);
    };
    let oriented = super::orient(&stores);
    let plan = validated_plan(config, face, request, &oriented, now)?;
    if request.dry_run {
        return Ok(Dreamt::Planned {
            plan,
            applied: None,
            oriented,
        });
    }
    let applied = if plan.operations.is_empty() {
        None
    } else if request.auto || face.confirm(&plan)? {
        let kept_before = super::preserved_copies(&stores);
        let applied =
            super::apply_plan(config, &plan, &oriented.records, &stores, now, lock_timeout)?;
        for kept in super::preserved_copies(&stores).difference(&kept_before) {
            face.preserved(kept);
        }
        let records = &oriented.records;
        super::commit_to_git(
            config,
            face,
            request.commit,
            &plan,
            &applied,
            &stores,
            records,
        );
        Some(applied)
    } else {
        return Ok(Dreamt::NotConfirmed);
    };
    gates
        .unwrap_or_else(|| Gates::load(config, &stores))
        .dreamt();
    if request.background
        && let Some(message) = super::background_summary(&plan, applied.as_ref(), &stores)
    {
        reports::record(config, &stores[0], Job::Dream, &message);
    }
    Ok(Dreamt::Planned {
        plan,
        applied,
        oriented,
    })
}

/// The plan from the rules or the model command, made unattended for
/// `--auto`, its ids spelt as the store spells them, shown, and validated.
fn validated_plan(
    config: &Config,
    face: &dyn DreamFace,
    request: &DreamRequest<'_>,
    oriented: &Oriented,
    now: Timestamp,
) -> Result<Plan, DreamError> {
    let records = &oriented.records;
    let mut plan = match request.llm_cmd {
        Some(command) => {
            let mut asking =
                |call: &str| face.note(&format!("Asking the model command for a plan{call}…"));
            let max = request.max_delete_pct;
            dream_model::plan(config, command, records, max, now, &mut asking)
                .map_err(DreamError::Model)?
        }
        None => mddream::gather::gather(records, now),
    };
    if request.auto {
        plan = auto::unattended(plan);
    }
    // A model may name `Pytest-A` for `pytest-a`: what is shown, validated
    // and applied names the store's record.
    validate::resolve_ids(&mut plan, records);
    let options = ValidateOptions {
        max_delete_pct: request.max_delete_pct,
    };
    let verdict = validate::validate(&plan, records, &options);
    face.show(&plan, oriented)?;
    match verdict {
        Ok(()) => Ok(plan),
        Err(rejection) => Err(DreamError::Rejected {
            origin: plan.origin,
            rejection,
            dry_run: request.dry_run,
            max_delete_pct: request.max_delete_pct,
        }),
    }
}

/// What a running dream holds: the lock (none for a dry run) and,
/// unattended, the gates to mark when done.
type Held = (Option<auto::DreamLock>, Option<Gates>);

/// The dream lock and, unattended, the gates: `None` when this run is to
/// skip (another dream runs, or a gate is closed), having said why.
fn admit(
    config: &Config,
    face: &dyn DreamFace,
    stores: &[ScopedStore],
    request: &DreamRequest<'_>,
    now: Timestamp,
) -> Result<Option<Held>, DreamError> {
    match auto::admit(config, stores, request.auto, request.dry_run, now)? {
        Admission::Run { lock, gates } => Ok(Some((lock, gates))),
        Admission::Busy if request.auto => {
            face.note("Skipped: another dream is running on this store.");
            Ok(None)
        }
        Admission::Busy => Err(DreamError::Busy),
        Admission::Closed(why) => {
            face.note(&format!("Skipped: {why}."));
            Ok(None)
        }
    }
}

/// A plan the model command could not give: a record too large to send, a
/// runner that cannot be started, fails or hangs, or an answer that is not
/// a plan.
fn model_message(error: &DreamModelError) -> String {
    match error {
        DreamModelError::TooLarge(e) => {
            format!("--llm-cmd: {e}; nothing was sent and nothing was written")
        }
        DreamModelError::Env(e) => format!("{e}; nothing was sent and nothing was written"),
        e => format!("--llm-cmd: {e}; nothing was written"),
    }
}

fn model_hint(error: &DreamModelError) -> Option<String> {
    let hint = match error {
        DreamModelError::TooLarge(_) => {
            "shorten that record, or raise MEMCTL_LLM_MAX_INPUT_CHARS if the model takes more"
        }
        DreamModelError::Runner(e) => match e {
            ModelCmdError::Timeout(_) => "MEMCTL_LLM_TIMEOUT_SECS sets how long it may take",
            ModelCmdError::OutputHeld(_) => OUTPUT_HELD_HINT,
            ModelCmdError::Empty | ModelCmdError::Unsplittable(_) => {
                "give the runner's command line, such as --llm-cmd \"claude -p\""
            }
            _ => {
                "try the command by hand: it must read the input on stdin and print only a JSON plan"
            }
        },
        DreamModelError::Env(e) => return e.hint(),
        DreamModelError::NamesWithheld { .. } => {
            "a plan may act only on the records it was sent; run again, or change that record by hand"
        }
        DreamModelError::Answer { .. } | DreamModelError::Wrapped { .. } => {
            "the runner must print only the JSON plan (see `memctl dream` in the user guide)"
        }
    };
    Some(hint.to_string())
}

/// A plan that failed validation: whose plan, the rule and the operation,
/// and that nothing was written.
fn rejected_message(origin: &Origin, rejection: &Rejection, dry_run: bool) -> String {
    let origin = match origin {
        Origin::Rules => "the rules' plan",
        Origin::Model => "the model's plan",
    };
    let (verb, written) = if dry_run {
        ("would be rejected", "this was a dry run")
    } else {
        ("was rejected", "nothing was written")
    };
    let rule = rejection.to_string();
    format!("{origin} {verb}: {}; {written}", escape_controls(&rule))
}

fn rejected_hint(origin: Origin, rejection: &Rejection, max_delete_pct: f64) -> String {
    match (rejection.kind, origin) {
        (Rule::RemovalLimit, _) => format!(
            "pass a --max-delete-pct above {max_delete_pct} if the plan above is right, or retire some records by hand first"
        ),
        (Rule::Revision, Origin::Rules) => {
            "a record changed meanwhile: run memctl dream again".to_string()
        }
        (_, Origin::Model) => {
            "run again (a model answers differently each time), or without --llm-cmd for the rules' plan".to_string()
        }
        (_, Origin::Rules) => {
            "the rules proposed something they must not: please report it with the plan above".to_string()
        }
    }
}
