//! `memctl remember`: parses the candidates, has `mdagent::remember` run
//! the batch (classify, show, confirm, write through one transaction per
//! store: SPEC §6), and shows its plans and outcomes.

pub mod input;
mod output;

use mdagent::Config;
use mdagent::face::{Ask, Tell};
use mdagent::remember::{self as use_case, Done, Item, Parsed};
use mdagent::stores::Scope;

use crate::cli::{RememberArgs, WriteScope};
use crate::failure::{Exit, exit_of};
use crate::ui::Ui;

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

    /// What the use case needs of these options (the rest is rendering).
    fn use_case(&self) -> use_case::Batch {
        use_case::Batch {
            scope: self.scope,
            expect_revision: self.expect_revision,
            force: self.force,
            yes: self.yes,
            dry_run: self.dry_run,
            commit: self.commit,
            from_json: self.from_json.is_some(),
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
    let face = BatchFace { ui, batch };
    let done = use_case::run_batch(config, &face, &batch.use_case(), parsed)?;
    let exit = done.kind().map_or(Exit::Ok, exit_of);
    Ok((exit, done.statuses(), output::json_rows(&done)))
}

/// `mdagent`'s batch with the command line as its face, for a use case
/// that runs batches itself (`extract`).
pub fn run_done(
    config: &Config,
    ui: &Ui,
    batch: &Batch,
    parsed: Vec<Parsed>,
) -> Result<Done, mdagent::write_failure::WriteFailure> {
    use_case::run_batch(config, &BatchFace { ui, batch }, &batch.use_case(), parsed)
}

/// The command line as a batch's face: plans and outcomes rendered as
/// `batch`'s options say.
struct BatchFace<'a> {
    ui: &'a Ui,
    batch: &'a Batch,
}

impl Tell for BatchFace<'_> {
    fn note(&self, text: &str) {
        self.ui.note(text);
    }
    fn warn(&self, text: &str) {
        self.ui.warn(text);
    }
}

impl Ask for BatchFace<'_> {
    fn confirm(&self, question: &str) -> std::io::Result<bool> {
        self.ui.confirm(question)
    }
}

impl use_case::Face for BatchFace<'_> {
    fn show_plans(
        &self,
        items: &[Item],
        roots: &std::collections::BTreeMap<Scope, std::path::PathBuf>,
    ) {
        let (ui, batch) = (self.ui, self.batch);
        if batch.json || batch.rows_only {
            return;
        }
        // A plan is shown to be confirmed or, in a dry run, read; `-q` with
        // `--yes` asks for neither, so only its warnings and errors remain.
        let plan_wanted = !(ui.quiet && batch.yes && !batch.dry_run);
        for item in items {
            if let Some(root) = roots.get(&item.scope) {
                output::show_plan(ui, item, root, plan_wanted);
            }
        }
    }

    fn report(&self, done: &Done) -> std::io::Result<()> {
        if self.batch.rows_only {
            return Ok(());
        }
        output::report(self.ui, done, self.batch).map_err(std::io::Error::other)
    }
}
