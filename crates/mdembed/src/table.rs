//! The token embedding table: 128,010 rows of 512 six-bit codes, packed four
//! codes to three bytes (384 bytes a row, 49 MB in all, against 65 MB as
//! bytes and 262 MB as `f32`). A compiled model's table is read a row at a
//! time with positioned reads (`pread`), so that loading the model reads
//! none of it and embedding a prompt reads a few kilobytes; a model loaded
//! from the package keeps the packed table in memory.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::npy::{Array, Dtype};
use crate::weights::{self, CHUNK_ROWS, CHUNKS, DIM, TABLE_BITS, TABLE_ROWS};

/// Bytes of one packed row.
pub(crate) const ROW_BYTES: usize = DIM * 6 / 8;

pub(crate) enum Table {
    Memory {
        bytes: Vec<u8>,
        path: PathBuf,
    },
    File {
        file: File,
        path: PathBuf,
        /// Where the rows start in the file.
        offset: u64,
    },
}

impl Table {
    /// Piece `id`'s packed row.
    pub(crate) fn read_row(&self, id: u32, row: &mut [u8; ROW_BYTES]) -> Result<()> {
        let start = id as usize * ROW_BYTES;
        match self {
            Table::Memory { bytes, path } => {
                let stored = bytes.get(start..start + ROW_BYTES).ok_or_else(|| {
                    Error::format(path, "table", format!("no row for piece {id}"))
                })?;
                row.copy_from_slice(stored);
                Ok(())
            }
            Table::File { file, path, offset } => file
                .read_exact_at(row, offset + start as u64)
                .map_err(|e| Error::io(path, e)),
        }
    }
}

/// The packed table from the package's chunks `q1` … `q17`; the error
/// names a missing chunk or one with a code of more than six bits.
pub(crate) fn pack(arrays: &HashMap<String, Array>) -> std::result::Result<Vec<u8>, String> {
    let bits = arrays.get("bits").map(|b| (b.dtype, b.data.as_slice()));
    if bits != Some((Dtype::I8, &[TABLE_BITS as u8][..])) {
        return Err(format!("bits: missing or not [{TABLE_BITS}]"));
    }
    let mut packed = vec![0u8; TABLE_ROWS * ROW_BYTES];
    for chunk in 0..CHUNKS {
        let name = format!("q{}", chunk + 1);
        let array = arrays
            .get(&name)
            .ok_or_else(|| format!("{name}: missing"))?;
        weights::check(
            &name,
            (array.dtype, &array.shape),
            Dtype::U8,
            &[CHUNK_ROWS, DIM],
        )?;
        if array.data.iter().any(|&code| code >= 1 << TABLE_BITS) {
            return Err(format!(
                "{name}: holds a code of more than {TABLE_BITS} bits"
            ));
        }
        for (r, codes) in array.data.chunks_exact(DIM).enumerate() {
            let id = r * CHUNKS + chunk;
            let row = &mut packed[id * ROW_BYTES..(id + 1) * ROW_BYTES];
            for (out, four) in row.chunks_exact_mut(3).zip(codes.chunks_exact(4)) {
                out[0] = four[0] | four[1] << 6;
                out[1] = four[1] >> 2 | four[2] << 4;
                out[2] = four[2] >> 4 | four[3] << 2;
            }
        }
    }
    Ok(packed)
}

/// A packed row's embedding, dequantized as the package does it:
/// `code * scale + lo` of the piece's chunk, each step rounded to `f32`.
pub(crate) fn dequantize(row: &[u8; ROW_BYTES], scale: f32, lo: f32, out: &mut [f32]) {
    for (three, four) in row.chunks_exact(3).zip(out.chunks_exact_mut(4)) {
        let codes = [
            three[0] & 63,
            three[0] >> 6 | (three[1] & 15) << 2,
            three[1] >> 4 | (three[2] & 3) << 4,
            three[2] >> 2,
        ];
        for (value, code) in four.iter_mut().zip(codes) {
            *value = f32::from(code) * scale + lo;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_codes_unpack_to_the_same_codes() {
        let mut arrays = HashMap::new();
        arrays.insert(
            "bits".to_string(),
            Array {
                dtype: Dtype::I8,
                shape: vec![1],
                data: vec![6],
            },
        );
        for chunk in 0..CHUNKS {
            let data = (0..CHUNK_ROWS * DIM)
                .map(|i| ((i * 7 + chunk * 13) % 64) as u8)
                .collect();
            let shape = vec![CHUNK_ROWS, DIM];
            arrays.insert(
                format!("q{}", chunk + 1),
                Array {
                    dtype: Dtype::U8,
                    shape,
                    data,
                },
            );
        }
        let bytes = pack(&arrays).unwrap();
        let table = Table::Memory {
            bytes,
            path: PathBuf::from("test"),
        };
        for id in [0u32, 1, 16, 17, 4242, 128_009] {
            let mut row = [0u8; ROW_BYTES];
            table.read_row(id, &mut row).unwrap();
            let mut values = vec![0f32; DIM];
            dequantize(&row, 1.0, 0.0, &mut values);
            let (chunk, r) = (id as usize % CHUNKS, id as usize / CHUNKS);
            let codes = &arrays[&format!("q{}", chunk + 1)].data[r * DIM..(r + 1) * DIM];
            let expected: Vec<f32> = codes.iter().map(|&c| f32::from(c)).collect();
            assert_eq!(values, expected, "row {id}");
        }
        let mut row = [0u8; ROW_BYTES];
        assert!(table.read_row(128_010, &mut row).is_err());
    }

    #[test]
    fn a_code_of_seven_bits_is_refused() {
        let mut arrays = HashMap::new();
        let bits = Array {
            dtype: Dtype::I8,
            shape: vec![1],
            data: vec![6],
        };
        arrays.insert("bits".to_string(), bits);
        for chunk in 0..CHUNKS {
            let mut data = vec![0u8; CHUNK_ROWS * DIM];
            if chunk == 3 {
                data[99] = 64;
            }
            let shape = vec![CHUNK_ROWS, DIM];
            arrays.insert(
                format!("q{}", chunk + 1),
                Array {
                    dtype: Dtype::U8,
                    shape,
                    data,
                },
            );
        }
        assert_eq!(
            pack(&arrays).unwrap_err(),
            "q4: holds a code of more than 6 bits"
        );
    }
}
