//! The compiled model: what `install` writes once, so that every later load
//! is a few plain reads with nothing to unpack or build. It is an
//! uncompressed zip (NumPy can read its `.npy` members) of a manifest, the
//! tokenizer (its piece trie, scores, types and character map), the dense
//! weights as the package names them, the packed embedding table and the
//! package's LICENSE. Zip's per-member CRC-32 is checked on every member
//! read to its end (all but the table, which is read a row at a time, so
//! [`verify`] checks it).

use std::fs::File;
use std::io::{BufReader, Read, Write as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use zip::write::SimpleFileOptions;

use crate::error::{Error, Result};
use crate::npy::{self, Array, Dtype};
use crate::source::{self, SourceFiles};
use crate::spm::{TokenizerParts, TokenizerSpec};
use crate::table::{self, ROW_BYTES, Table};
use crate::weights::{self, Dense, TABLE_ROWS};

/// The compiled format's version: a file of another one is refused.
pub(crate) const FORMAT: u32 = 1;
/// The model's name in manifests and folder names.
pub const MODEL_NAME: &str = "use-multilingual-v3";

const MANIFEST: &str = "manifest.json";
const TRIE: &str = "tokenizer/pieces.fst";
const SCORES: &str = "tokenizer/scores.npy";
const KINDS: &str = "tokenizer/types.npy";
const CHARSMAP: &str = "tokenizer/charsmap.bin";
const TABLE: &str = "table.bin";
const LICENSE: &str = "LICENSE";
/// A `.npy` member's header is found in its first bytes (ours are 128).
const NPY_START_BYTES: u64 = 4096;
/// The most a member read whole may hold: the tokenizer's are 2 MB or less.
const MEMBER_LIMIT: u64 = 1 << 26;

type Archive = zip::ZipArchive<BufReader<File>>;

#[derive(Serialize, Deserialize)]
struct Manifest {
    format: u32,
    model: String,
    package: String,
    version: String,
    wheel_sha256: String,
    tokenizer: TokenizerSpec,
}

/// Everything the model is made of, from whichever form it was read.
pub(crate) struct ModelParts {
    pub tokenizer: TokenizerParts,
    /// The dense arrays and `eps`, checked.
    pub dense: Dense,
    pub table: Table,
    pub license: Option<Vec<u8>>,
}

impl ModelParts {
    /// The parts of the registry package's files.
    pub(crate) fn from_source(files: SourceFiles) -> Result<ModelParts> {
        let origin = &files.origin;
        let tokenizer = TokenizerParts::from_sentencepiece(&files.sp_model)
            .map_err(|e| Error::format(origin, "sp.model", e))?;
        let in_weights = |e| Error::format(origin, "weights.npz", e);
        let packed = table::pack(&files.arrays).map_err(in_weights)?;
        let dense = Dense::from_arrays(&files.arrays).map_err(in_weights)?;
        Ok(ModelParts {
            tokenizer,
            dense,
            table: Table::Memory {
                bytes: packed,
                path: origin.clone(),
            },
            license: files.license,
        })
    }
}

/// Writes `parts` as a compiled model at `path` (through a temporary file
/// beside it, renamed into place: never half-written).
pub(crate) fn write(path: &Path, parts: &ModelParts) -> Result<()> {
    let Table::Memory { bytes: table, .. } = &parts.table else {
        return Err(Error::format(
            path,
            "",
            "only a model read from the package is compiled",
        ));
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    // Readable by all, as any installed data file (a temporary file is 0600).
    let temporary = tempfile::Builder::new()
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    let io = |e: zip::result::ZipError| Error::format(path, "", format!("writing: {e}"));
    let mut zip = zip::ZipWriter::new(temporary.as_file());
    let stored = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(false);
    let manifest = Manifest {
        format: FORMAT,
        model: MODEL_NAME.to_string(),
        package: source::PACKAGE.to_string(),
        version: source::VERSION.to_string(),
        wheel_sha256: source::WHEEL_SHA256.to_string(),
        tokenizer: parts.tokenizer.spec.clone(),
    };
    let tokenizer = &parts.tokenizer;
    let manifest = serde_json::to_vec_pretty(&manifest)
        .map_err(|e| Error::format(path, MANIFEST, e.to_string()))?;
    let mut members: Vec<(String, Vec<u8>)> = vec![
        (MANIFEST.into(), manifest),
        (TRIE.into(), tokenizer.trie.clone()),
        (
            SCORES.into(),
            Array::from_f32s(vec![tokenizer.scores.len()], &tokenizer.scores).to_bytes(),
        ),
        (
            KINDS.into(),
            Array {
                dtype: Dtype::U8,
                shape: vec![tokenizer.kinds.len()],
                data: tokenizer.kinds.clone(),
            }
            .to_bytes(),
        ),
        (CHARSMAP.into(), tokenizer.charsmap.clone()),
    ];
    for (name, array) in parts.dense.arrays() {
        members.push((format!("{name}.npy"), array.to_bytes()));
    }
    if let Some(license) = &parts.license {
        members.push((LICENSE.into(), license.clone()));
    }
    for (name, bytes) in members
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .chain([(TABLE, table.as_slice())])
    {
        zip.start_file(name, stored).map_err(io)?;
        zip.write_all(bytes).map_err(|e| Error::io(path, e))?;
    }
    zip.finish().map_err(io)?;
    temporary
        .as_file()
        .sync_all()
        .map_err(|e| Error::io(path, e))?;
    temporary
        .persist(path)
        .map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// Is this a compiled model (a zip with our manifest)?
pub(crate) fn is_compiled(path: &Path) -> bool {
    File::open(path)
        .ok()
        .and_then(|f| zip::ZipArchive::new(f).ok())
        .is_some_and(|a| a.index_for_name(MANIFEST).is_some())
}

/// Reads a compiled model: everything but the table, which stays in the
/// file and is read a row at a time. Half the dense arrays are read by a
/// second thread (see [`weights::dense_halves`]), from its own handle on
/// the same file; without a thread, by this one after the rest.
pub(crate) fn read(path: &Path) -> Result<ModelParts> {
    let [first, second] = weights::dense_halves();
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let same = identity(&file, path)?;
    let read_second = || read_dense(&mut open(path, same)?, path, &second);
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("mdembed-load".into())
            .spawn_scoped(scope, read_second);
        let mine = read_all_but(file, path, &first);
        // Joined before any error is returned: a thread left running would
        // be joined by the scope, and its panic would become ours.
        let other = match spawned {
            Ok(handle) => handle.join().unwrap_or_else(|_| {
                Err(Error::format(
                    path,
                    "",
                    "the thread reading weights panicked",
                ))
            }),
            Err(_) => read_second(),
        };
        let mut parts = mine?;
        parts
            .dense
            .merge(other?)
            .map_err(|e| Error::format(path, "", e))?;
        Ok(parts)
    })
}

/// The manifest, the tokenizer, the dense arrays named `names` and where
/// the table is, from `file`.
fn read_all_but(file: File, path: &Path, names: &[String]) -> Result<ModelParts> {
    let table_file = file.try_clone().map_err(|e| Error::io(path, e))?;
    let mut archive = archive(file, path)?;
    let manifest: Manifest = serde_json::from_slice(&member(&mut archive, path, MANIFEST)?)
        .map_err(|e| Error::format(path, MANIFEST, e.to_string()))?;
    if manifest.format != FORMAT || manifest.model != MODEL_NAME {
        return Err(Error::format(
            path,
            MANIFEST,
            format!(
                "format {} of model {:?}; this memctl reads format {FORMAT} of {MODEL_NAME:?} (install the model again)",
                manifest.format, manifest.model
            ),
        ));
    }
    let tokenizer = read_tokenizer(&mut archive, path, manifest.tokenizer)?;
    let dense = read_dense(&mut archive, path, names)?;
    let offset = table_offset(&mut archive, path)?;
    Ok(ModelParts {
        tokenizer,
        dense,
        table: Table::File {
            file: table_file,
            path: PathBuf::from(path),
            offset,
        },
        license: None,
    })
}

/// A file's device and inode: what tells that two handles opened by path
/// are on the same file (an install renames a new file into place).
fn identity(file: &File, path: &Path) -> Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    Ok((meta.dev(), meta.ino()))
}

/// The compiled model at `path` as a zip, refused unless it is the file
/// of identity `same` (not one installed since the first was opened).
fn open(path: &Path, same: (u64, u64)) -> Result<Archive> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    if identity(&file, path)? != same {
        return Err(Error::format(
            path,
            "",
            "replaced while it was being read (installed again?); try again",
        ));
    }
    archive(file, path)
}

fn archive(file: File, path: &Path) -> Result<Archive> {
    // Members are read in a stream of small reads (rows of the dense arrays).
    zip::ZipArchive::new(BufReader::with_capacity(1 << 16, file))
        .map_err(|e| Error::format(path, "", format!("not a compiled model (zip): {e}")))
}

fn read_tokenizer(
    archive: &mut Archive,
    path: &Path,
    spec: TokenizerSpec,
) -> Result<TokenizerParts> {
    let mut array = |name: &str| {
        Array::parse(member(archive, path, name)?).map_err(|e| Error::format(path, name, e))
    };
    let scores = array(SCORES)?;
    let kinds = array(KINDS)?;
    Ok(TokenizerParts {
        trie: member(archive, path, TRIE)?,
        scores: scores
            .f32s()
            .ok_or_else(|| Error::format(path, SCORES, "not f32"))?,
        kinds: (kinds.dtype == Dtype::U8)
            .then_some(kinds.data)
            .ok_or_else(|| Error::format(path, KINDS, "not u8"))?,
        charsmap: member(archive, path, CHARSMAP)?,
        spec,
    })
}

/// The dense arrays named `names`, each read in a stream, row by row
/// straight into its place in the forward pass's arrays ([`Dense::read`]).
/// Read whole and converted, then arranged, a load took 27 ms and 24.8 MiB,
/// most of it the kernel handing out fresh pages; now only the arrays kept
/// are new memory (docs/BENCHMARKS.md).
fn read_dense(archive: &mut Archive, path: &Path, names: &[String]) -> Result<Dense> {
    let mut dense = Dense::default();
    let mut start = Vec::new();
    for name in names {
        let member_name = format!("{name}.npy");
        let in_member = |e: String| Error::format(path, &member_name, e);
        let mut entry = archive
            .by_name(&member_name)
            .map_err(|e| in_member(format!("missing: {e}")))?;
        let size = usize::try_from(entry.size()).unwrap_or(usize::MAX);
        start.clear();
        (&mut entry)
            .take(NPY_START_BYTES)
            .read_to_end(&mut start)
            .map_err(|e| in_member(format!("damaged: {e}")))?;
        let (dtype, shape, data_start) = npy::header_of(&start, size).map_err(in_member)?;
        if name == weights::EPS {
            dense.add(name, dtype, &shape, &start[data_start..])
        } else {
            dense.read(
                name,
                dtype,
                &shape,
                &mut start[data_start..].chain(&mut entry),
            )
        }
        .map_err(in_member)?;
        // Zip checks a member's CRC-32 when its reader reaches the end.
        let mut rest = [0u8; 1];
        match entry.read(&mut rest) {
            Ok(0) => {}
            Ok(_) => return Err(in_member("longer than its shape".into())),
            Err(e) => return Err(in_member(format!("damaged: {e}"))),
        }
    }
    Ok(dense)
}

/// Member `name` whole (which checks its CRC-32), refused beyond
/// [`MEMBER_LIMIT`] (a compressed member could unpack to any size).
fn member(archive: &mut Archive, path: &Path, name: &str) -> Result<Vec<u8>> {
    let mut entry = archive
        .by_name(name)
        .map_err(|e| Error::format(path, name, format!("missing: {e}")))?;
    let declared = entry.size().min(MEMBER_LIMIT);
    let mut bytes = Vec::with_capacity(usize::try_from(declared).unwrap_or(0));
    (&mut entry)
        .take(MEMBER_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::format(path, name, format!("damaged: {e}")))?;
    if bytes.len() as u64 > MEMBER_LIMIT {
        return Err(Error::format(
            path,
            name,
            format!("larger than {MEMBER_LIMIT} bytes"),
        ));
    }
    Ok(bytes)
}

/// Where the stored table's rows start, after checking its size.
fn table_offset(archive: &mut Archive, path: &Path) -> Result<u64> {
    let entry = archive
        .by_name(TABLE)
        .map_err(|e| Error::format(path, TABLE, format!("missing: {e}")))?;
    let expected = (TABLE_ROWS * ROW_BYTES) as u64;
    if entry.compression() != zip::CompressionMethod::Stored || entry.size() != expected {
        return Err(Error::format(
            path,
            TABLE,
            format!(
                "{} bytes, compressed or not; expected {expected} stored",
                entry.size()
            ),
        ));
    }
    Ok(entry.data_start())
}

/// Reads every member of a compiled model in full, so that zip checks each
/// one's CRC-32, the table's included.
pub(crate) fn verify(path: &Path) -> Result<()> {
    read(path)?;
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut archive =
        zip::ZipArchive::new(file).map_err(|e| Error::format(path, "", e.to_string()))?;
    let mut entry = archive
        .by_name(TABLE)
        .map_err(|e| Error::format(path, TABLE, e.to_string()))?;
    std::io::copy(&mut entry, &mut std::io::sink())
        .map_err(|e| Error::format(path, TABLE, format!("damaged: {e}")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zip at `path` of one member `name`, deflated, of `len` zero bytes.
    fn zip_of(path: &Path, name: &str, len: usize) {
        let mut zip = zip::ZipWriter::new(File::create(path).unwrap());
        let deflated =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        zip.start_file(name, deflated).unwrap();
        zip.write_all(&vec![0u8; len]).unwrap();
        zip.finish().unwrap();
    }

    #[test]
    fn a_member_that_unpacks_past_the_limit_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.mdembed");
        zip_of(&path, MANIFEST, MEMBER_LIMIT as usize + 1);
        let error = read(&path).err().unwrap().to_string();
        assert!(
            error.contains("model.mdembed")
                && error.contains(MANIFEST)
                && error.contains("larger than"),
            "{error}"
        );
    }

    #[test]
    fn a_file_replaced_between_two_opens_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.mdembed");
        zip_of(&path, MANIFEST, 10);
        let first = identity(&File::open(&path).unwrap(), &path).unwrap();
        assert!(open(&path, first).is_ok());
        // Installed again: a new file renamed into place.
        let again = dir.path().join("new");
        zip_of(&again, MANIFEST, 10);
        std::fs::rename(&again, &path).unwrap();
        let error = open(&path, first).err().unwrap().to_string();
        assert!(
            error.contains("replaced while it was being read"),
            "{error}"
        );
    }
}
