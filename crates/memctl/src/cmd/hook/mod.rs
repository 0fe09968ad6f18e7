//! `memctl hook claude-code|codex`: the one hook entry for every event of
//! an agent's session (SPEC §8), and `memctl context --hook`, its older
//! name, which answers only with context. The event comes as JSON on
//! standard input; the answer is the JSON that event documents
//! (`{"hookSpecificOutput": {"hookEventName", "additionalContext"},
//! "systemMessage"}`, see docs/agents.md for the sources).
//!
//! A hook runs before every prompt, so it must never stand in the user's
//! way: any failure is one line on standard error, nothing on standard
//! output, and exit 0. A cache folder that cannot be written still gets an
//! answer: the search falls back to a temporary index, and session state
//! that cannot be kept only means a record may be shown again (a warning
//! says so). Background jobs are started after the answer is written, and
//! detached, so they never delay it.

mod answer;
mod event;

use anyhow::{Context as _, bail};

use mdagent::Config;
use mdagent::context::session::Session;
use mdagent::context::{self, Ask, Context};
use mdagent::lifecycle::{self, Launcher, Moment as JobMoment};

use crate::cli::{ContextArgs, HookAgent, HookArgs};
use crate::failure::Exit;
use crate::ui;
use mdagent::hook_event::{self, Event, Moment, What};

/// How a hook was asked for.
struct Hook {
    agent: HookAgent,
    max: usize,
    budget: Option<usize>,
    /// `memctl hook`: background jobs and their reports; not for
    /// `context --hook`, which only ever answered with context.
    lifecycle: bool,
    /// How its messages begin.
    label: String,
}

/// What a handled event leaves to do once its answer is written.
type After = Box<dyn FnOnce() -> Vec<String>>;

/// `memctl hook AGENT`; whatever happens, exit 0.
pub fn run(config: &Config, args: &HookArgs) -> Exit {
    serve(
        config,
        &Hook {
            agent: args.agent,
            max: args.max,
            budget: args.budget,
            lifecycle: true,
            label: format!("memctl hook {}", args.agent.name()),
        },
    )
}

/// `memctl context --hook AGENT`: the same answers, no background jobs.
pub fn run_for_context(config: &Config, args: &ContextArgs, agent: HookAgent) -> Exit {
    serve(
        config,
        &Hook {
            agent,
            max: args.max,
            budget: args.budget,
            lifecycle: false,
            label: format!("memctl context --hook {}", agent.name()),
        },
    )
}

fn serve(config: &Config, hook: &Hook) -> Exit {
    let label = &hook.label;
    match handle(config, hook) {
        Ok((out, after)) => {
            if let Some(out) = out
                && let Err(e) = ui::print(&out)
            {
                eprintln!("{label}: cannot write the answer: {e}");
            }
            for warning in after.map(|after| after()).unwrap_or_default() {
                eprintln!("{label}: warning: {}", ui::shown(&warning));
            }
        }
        Err(failed) => eprintln!("{label}: {:#}; {}", failed.error, failed.consequence()),
    }
    Exit::Ok
}

/// A hook that could not do what its event asks, and which event that was
/// when it was read far enough to tell.
struct Failed {
    moment: Option<Moment>,
    error: anyhow::Error,
}

impl Failed {
    /// What the failure cost, for the end of its line: a prompt gets no
    /// context; a session's end starts no job.
    fn consequence(&self) -> &'static str {
        match self.moment {
            Some(Moment::SessionStart | Moment::UserPromptSubmit) => {
                "nothing was added to the prompt"
            }
            Some(Moment::SessionEnd | Moment::TurnEnd) => "no after-session job was started",
            // Any event, a prompt's among them.
            Some(Moment::Nothing) | None => {
                "the event was ignored (nothing was added to the prompt)"
            }
        }
    }
}

/// The hook's standard output (`None`: nothing to add) and what to do
/// after writing it.
fn handle(config: &Config, hook: &Hook) -> Result<(Option<String>, Option<After>), Failed> {
    let value = event::read().map_err(|error| Failed {
        moment: None,
        error,
    })?;
    let (name, event) =
        Event::parse(hook.agent.into(), &value).map_err(|(moment, error)| Failed {
            moment,
            error: error.into(),
        })?;
    let moment = match event.what() {
        What::Start(_) => Moment::SessionStart,
        What::Prompt(_) => Moment::UserPromptSubmit,
        What::End(_, moment) => moment,
        What::Nothing => Moment::Nothing,
    };
    answer_event(config, hook, &event, &name).map_err(|error| Failed {
        moment: Some(moment),
        error,
    })
}

/// What `event` (named `name`) asks for.
fn answer_event(
    config: &Config,
    hook: &Hook,
    event: &Event,
    name: &str,
) -> anyhow::Result<(Option<String>, Option<After>)> {
    // The agent's folder, not the hook's: where its workspace store is.
    let in_event_folder;
    let config = match event.cwd() {
        Some(cwd) if config.named_store().is_none() => {
            in_event_folder = config.in_folder(std::path::Path::new(cwd));
            let entered = in_event_folder
                .cwd()
                .map_err(|e| anyhow::anyhow!("{e}"))
                .and_then(|folder| Ok(std::fs::metadata(folder)?.is_dir()))
                .with_context(|| format!("cannot enter the event's cwd {cwd:?}"))?;
            if !entered {
                bail!("cannot enter the event's cwd {cwd:?}: not a folder");
            }
            &in_event_folder
        }
        _ => config,
    };
    match event.what() {
        What::Start(start) => session_start(config, hook, start, name),
        What::Prompt(prompt) => user_prompt_submit(config, hook, prompt, name),
        What::End(end, moment) if hook.lifecycle => {
            let end = lifecycle::SessionEnd {
                session_id: &end.session_id,
                transcript: end.transcript.as_deref(),
                after_turn: moment == Moment::TurnEnd,
            };
            let stores = mdagent::stores::read_stores(config)?;
            let warnings = lifecycle::session_end(config, &launcher()?, &stores, &end)?;
            for warning in warnings {
                eprintln!("{}: warning: {}", hook.label, ui::shown(&warning));
            }
            Ok((None, None))
        }
        What::End(..) => {
            bail!("{name} is answered by `memctl hook {}`", hook.agent.name())
        }
        What::Nothing => Ok((None, None)),
    }
}

fn session_start(
    config: &Config,
    hook: &Hook,
    event: &hook_event::SessionStart,
    name: &str,
) -> anyhow::Result<(Option<String>, Option<After>)> {
    let cache = config.cache_dir();
    // A cleared or compacted conversation no longer holds what was shown
    // before.
    if matches!(event.source.as_deref(), Some("clear" | "compact"))
        && let Some(id) = &event.session_id
    {
        answer::save_or_warn(&hook.label, &Session::empty(cache, id));
    }
    let ask = Ask {
        session_start: true,
        max: hook.max,
        ..Ask::default()
    };
    // Found once for the context and the background jobs.
    let stores = mdagent::stores::read_stores(config)?;
    let context = context::gather(config, &stores, &ask)?;
    let (told, after) = if hook.lifecycle {
        let mut told = lifecycle::reports::lines(&lifecycle::reports::take(config, &stores));
        let roots: Vec<_> = stores.iter().map(|s| (s.scope, s.store.root())).collect();
        told.extend(mdagent::lifecycle::pending::problems(config, &roots));
        (told, jobs(config, stores, JobMoment::SessionStart))
    } else {
        (Vec::new(), None)
    };
    let system_message = (!told.is_empty()).then(|| told.join("\n"));
    let answer = answer::Answer {
        event: name,
        budget: hook.budget,
        system_message: system_message.as_deref(),
        relay: hook.agent == HookAgent::Codex,
    };
    Ok((answer.render(&answer.fit(context)), after))
}

fn user_prompt_submit(
    config: &Config,
    hook: &Hook,
    event: &hook_event::PromptSubmit,
    name: &str,
) -> anyhow::Result<(Option<String>, Option<After>)> {
    let id = &event.session_id;
    let cache = config.cache_dir();
    // Unreadable state only means records may be shown again.
    let (mut session, readable) = match Session::load(cache, id) {
        Ok(session) => (session, true),
        Err(e) => {
            answer::warn_session_state(&hook.label, "not read", e);
            (Session::empty(cache, id), false)
        }
    };
    let ask = Ask {
        prompt: Some(&event.prompt),
        session_start: false,
        max: hook.max,
        already_shown: session.keys().map(str::to_string).collect(),
        background_budget: Some(mdagent::context::meaning::HOOK_BACKGROUND_BUDGET),
    };
    let answer = answer::Answer {
        event: name,
        budget: hook.budget,
        system_message: None,
        relay: false,
    };
    // Found once for the context and the background jobs.
    let stores = mdagent::stores::read_stores(config)?;
    let context: Context = answer.fit(context::gather(config, &stores, &ask)?);
    for warning in &context.warnings {
        eprintln!("{}: warning: {}", hook.label, ui::shown(warning));
    }
    for record in &context.records {
        session.mark_shown(context::key(record.scope, &record.id));
    }
    if readable && !context.records.is_empty() {
        answer::save_or_warn(&hook.label, &session);
    }
    let after = if hook.lifecycle {
        jobs(config, stores, JobMoment::Prompt)
    } else {
        None
    };
    Ok((answer.render(&context), after))
}

/// Starting `moment`'s background jobs on `stores`, for after the answer.
fn jobs(
    config: &Config,
    stores: Vec<mdagent::stores::ScopedStore>,
    moment: JobMoment,
) -> Option<After> {
    let config = config.clone();
    Some(Box::new(move || match launcher() {
        Ok(launcher) => lifecycle::start_jobs(&config, &launcher, &stores, moment),
        Err(e) => vec![format!("no background job started: {e:#}")],
    }))
}

/// This very program, so that a job is the version of the hook that starts it.
fn launcher() -> anyhow::Result<Launcher> {
    Launcher::current().context("cannot find the memctl program that runs this hook")
}
