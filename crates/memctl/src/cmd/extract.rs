//! `memctl extract`: the switches handed to `mdagent::extract::run`, which
//! runs the whole use case (SPEC §8); this face runs `remember`'s batches
//! as the command line shows them and sums up what became of the
//! candidates.

use mdagent::Config;
use mdagent::extract::run::{self as use_case, ExtractRequest};
use mdagent::face::Batches;
use mdagent::lifecycle::after_session::Outcome;
use mdagent::remember::{self, Done, Parsed};
use mdagent::write_failure::WriteFailure;

use crate::cli::ExtractArgs;
use crate::cmd::remember::{Batch, run_done};
use crate::failure::{Exit, exit_of};
use crate::ui::{self, Ui};

pub fn run(config: &Config, ui: &Ui, args: ExtractArgs) -> anyhow::Result<Exit> {
    let request = ExtractRequest {
        transcript: &args.transcript,
        llm_cmd: args.llm_cmd.as_deref(),
        yes: args.yes,
        dry_run: args.dry_run,
        pending: args.pending,
        commit: args.commit,
        can_confirm: ui.interactive,
    };
    let face = Face {
        config,
        ui,
        args: &args,
    };
    let extracted = use_case::run(config, &face, &request)?;
    if matches!(extracted.outcome, Outcome::NoText) && args.json {
        ui::print_json(&serde_json::json!([]))?;
    }
    if !args.json && !extracted.statuses.is_empty() {
        ui.note(&summary(&extracted.shown, &extracted.statuses));
    }
    Ok(extracted.kind.map_or(Exit::Ok, exit_of))
}

/// The command line as extract's face: each batch shown and reported as
/// `remember --from-json` would be.
struct Face<'a> {
    config: &'a Config,
    ui: &'a Ui,
    args: &'a ExtractArgs,
}

impl mdagent::face::Tell for Face<'_> {
    fn note(&self, text: &str) {
        self.ui.note(text);
    }
    fn warn(&self, text: &str) {
        self.ui.warn(text);
    }
}

impl Batches for Face<'_> {
    fn batch(&self, batch: &remember::Batch, parsed: Vec<Parsed>) -> Result<Done, WriteFailure> {
        let shown = ui::shown_path(&self.args.transcript);
        let batch = Batch {
            yes: batch.yes,
            dry_run: batch.dry_run,
            commit: batch.commit,
            json: self.args.json,
            ..Batch::from_json(shown)
        };
        run_done(self.config, self.ui, &batch, parsed)
    }
}

/// `extract: 5 candidates from FILE: 2 saved, 1 already stored, 1 refused, 1 dropped (current task).`
fn summary(shown: &str, statuses: &[&str]) -> String {
    let count = |status: &str| statuses.iter().filter(|s| **s == status).count();
    let parts: Vec<String> = [
        ("saved", "saved"),
        ("noop", "already stored"),
        ("dry-run", "planned (dry run)"),
        ("not-confirmed", "not confirmed"),
        ("refused", "refused"),
        ("conflict", "in conflict"),
        ("failed", "failed"),
        ("dropped", "dropped (current task)"),
    ]
    .iter()
    .filter(|(status, _)| count(status) > 0)
    .map(|(status, said)| format!("{} {said}", count(status)))
    .collect();
    format!(
        "extract: {} candidate{} from {shown}: {}.",
        statuses.len(),
        if statuses.len() == 1 { "" } else { "s" },
        parts.join(", ")
    )
}
