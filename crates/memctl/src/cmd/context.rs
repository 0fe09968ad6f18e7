//! `memctl context`: what an agent sees before a turn (SPEC §8), printed
//! for `--query` and `--session-start`, or answered to an agent's hook
//! (`--hook`, the older name of [`super::hook`]). What is gathered, and
//! how it is shown, is `mdagent::context`'s.

use std::collections::HashSet;

use mdagent::Config;
use mdagent::context::{self, Ask, DEFAULT_BUDGET, fit, render};

use crate::cli::ContextArgs;
use crate::failure::{Exit, Failure};
use crate::ui::{self, Ui};

pub fn run(config: &Config, ui: &Ui, args: ContextArgs) -> anyhow::Result<Exit> {
    if let Some(agent) = args.hook {
        return Ok(super::hook::run_for_context(config, &args, agent));
    }
    if args.query.is_none() && !args.session_start {
        return Err(Failure::bad_input("context needs something to recall for")
            .with_hint("pass --query TEXT, --session-start, or --hook claude-code")
            .into());
    }
    let ask = Ask {
        prompt: args.query.as_deref(),
        session_start: args.session_start,
        max: args.max,
        already_shown: HashSet::new(),
        background_budget: None,
    };
    let stores = mdagent::stores::read_stores(config)?;
    let context = context::gather(config, &stores, &ask)?;
    for warning in &context.warnings {
        ui.warn(warning);
    }
    let budget = args.budget.unwrap_or(DEFAULT_BUDGET);
    let out = if args.json {
        let context = fit::fit(context, budget, &|c| {
            render::json(c).map_or(usize::MAX, |t| t.chars().count())
        });
        render::json(&context)?
    } else {
        let context = fit::fit(context, budget, &|c| render::readable(c).chars().count());
        render::readable(&context)
    };
    ui::print(&out)?;
    Ok(Exit::Ok)
}
