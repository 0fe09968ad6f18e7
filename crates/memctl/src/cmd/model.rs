//! `memctl model`: install the sentence encoder for semantic matching and
//! say whether it is on (issue 18; docs/EMBEDDINGS.md;
//! `mdagent::maintain::model`).

use mdagent::Config;
use mdagent::maintain::model::{self, MODEL_NAME, ModelState};
use mdagent::semantic;

use crate::cli::{ModelArgs, ModelCommand};
use crate::failure::Exit;
use crate::ui::{self, Ui};

pub fn run(config: &Config, ui: &Ui, args: ModelArgs) -> anyhow::Result<Exit> {
    match args.command {
        ModelCommand::Install { from } => install(config, ui, from.as_deref()),
        ModelCommand::Status => status(config),
    }
}

/// The model to search with, loaded; `None` when semantic matching is off,
/// saying why (once) when it is on but cannot be used.
pub fn in_force(config: &Config, ui: &Ui) -> Option<Box<mdagent::semantic::Model>> {
    let mut warnings = Vec::new();
    let model = semantic::in_force(config, &mut warnings);
    warnings.iter().for_each(|line| ui.warn(line));
    model
}

fn install(config: &Config, ui: &Ui, from: Option<&std::path::Path>) -> anyhow::Result<Exit> {
    let dest = match from {
        Some(file) => model::install_from_file(config, file)?,
        None => model::download(config, ui)?,
    };
    let now = if model::is_in_force(config, &dest) {
        "semantic matching is on with it (turn it off with \
         `[semantic] model = \"off\"` in your memctl config.toml)"
    } else {
        "semantic matching does not use it: `memctl model status` says why"
    };
    ui::print(&format!(
        "installed {MODEL_NAME} at {} (Apache-2.0, its LICENSE beside it)\n{now}\n\
         run `memctl reindex` to embed the records at once\n\
         (otherwise the first search embeds them: half a minute or more for 10,000)\n",
        ui::shown_path(&dest),
    ))?;
    Ok(Exit::Ok)
}

fn status(config: &Config) -> anyhow::Result<Exit> {
    let status = model::status(config);
    let named_by = status
        .named_by
        .map_or_else(String::new, |by| by.to_string());
    let mut out = match &status.state {
        ModelState::BadSetting(e) => format!("semantic matching: off ({})\n", ui::shown(e)),
        ModelState::NotConfigured => {
            "semantic matching: off (no model named or installed)\n".to_string()
        }
        ModelState::TurnedOff => {
            "semantic matching: off ([semantic] model = \"off\" in your config.toml)\n".to_string()
        }
        ModelState::On(path) => format!(
            "semantic matching: on, {MODEL_NAME} at {} (named by {named_by})\n",
            ui::shown_path(path)
        ),
        ModelState::Broken(line) => format!("{} (named by {named_by})\n", ui::shown(line)),
    };
    if let Some((dir, installed)) = &status.installed {
        out += &format!(
            "installed model: {}\n",
            if *installed {
                ui::shown_path(dir)
            } else {
                "none (install it with `memctl model install`)".to_string()
            }
        );
    }
    ui::print(&out)?;
    Ok(if status.state.is_problem() {
        Exit::NothingOrProblems
    } else {
        Exit::Ok
    })
}
