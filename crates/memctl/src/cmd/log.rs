//! `memctl log ID`: a record's revisions from git (SPEC §9, docs/GIT.md),
//! as `mdagent::git::history` finds them, printed with secrets hidden and
//! control characters escaped.

use mdstore::redact::{self, Keep};

use mdagent::Config;

use crate::cli::LogArgs;
use crate::failure::Exit;
use crate::ui::{self, Ui};

pub fn run(config: &Config, ui: &Ui, args: LogArgs) -> anyhow::Result<Exit> {
    let history = mdagent::git::history::history(config, &args.id)?;
    if history.text.trim().is_empty() {
        ui.error(
            &format!(
                "no commit touches {} in {}",
                mdstore::escape::for_message(&args.id, 40),
                ui::shown_path(&history.root)
            ),
            Some("a record has history once it is committed (`memctl remember --commit`, or `git commit`)"),
        );
        return Ok(Exit::NothingOrProblems);
    }
    // Commit messages and diffs are other people's text: no raw escapes,
    // and no secret an old revision held (SPEC §6: memctl echoes none).
    let text = redact::lines(&history.text, Keep::DiffMarker);
    ui::print(&ui::shown_file(&text))?;
    Ok(Exit::Ok)
}
