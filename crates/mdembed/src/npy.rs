//! The `.npy` array format (NumPy's, version 1 to 3), read and written for
//! the few element types the model has. Written here rather than taken from
//! `ndarray-npy` or `npyz`: those parse the header with a general Python
//! literal parser (`py_literal`: pest, stacker with a C build, num-bigint),
//! while the header NumPy writes is one fixed dictionary
//! (`{'descr': '<f4', 'fortran_order': False, 'shape': (512, 256), }`).

/// The element types the model's arrays use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dtype {
    U8,
    I8,
    F32,
    F64,
}

impl Dtype {
    fn descr(self) -> &'static str {
        match self {
            Dtype::U8 => "|u1",
            Dtype::I8 => "|i1",
            Dtype::F32 => "<f4",
            Dtype::F64 => "<f8",
        }
    }

    fn from_descr(descr: &str) -> Option<Dtype> {
        [Dtype::U8, Dtype::I8, Dtype::F32, Dtype::F64]
            .into_iter()
            .find(|d| d.descr() == descr)
    }

    pub(crate) fn size(self) -> usize {
        match self {
            Dtype::U8 | Dtype::I8 => 1,
            Dtype::F32 => 4,
            Dtype::F64 => 8,
        }
    }
}

/// One array: its type, shape (C order) and raw little-endian data.
#[derive(Debug)]
pub(crate) struct Array {
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    pub data: Vec<u8>,
}

const MAGIC: &[u8] = b"\x93NUMPY";

impl Array {
    /// Parses a whole `.npy` file; the error says what is wrong with it.
    pub(crate) fn parse(mut bytes: Vec<u8>) -> Result<Array, String> {
        let (dtype, shape, start) = header(&bytes)?;
        bytes.drain(..start);
        Ok(Array {
            dtype,
            shape,
            data: bytes,
        })
    }

    /// The whole `.npy` file (version 1.0) for this array.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let dims: Vec<String> = self.shape.iter().map(usize::to_string).collect();
        let shape = match dims.len() {
            1 => format!("({},)", dims[0]),
            _ => format!("({})", dims.join(", ")),
        };
        let mut header = format!(
            "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
            self.dtype.descr()
        );
        // NumPy pads the header with spaces so that the data starts on a
        // multiple of 64 bytes, and ends it with a newline.
        while !(MAGIC.len() + 4 + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        let mut out = Vec::with_capacity(MAGIC.len() + 4 + header.len() + self.data.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[1, 0]);
        // Short enough by construction: a handful of dimensions.
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&self.data);
        out
    }

    /// The elements as `f32`, for an array of that type.
    pub(crate) fn f32s(&self) -> Option<Vec<f32>> {
        (self.dtype == Dtype::F32).then(|| f32s_of(&self.data))
    }

    pub(crate) fn from_f32s(shape: Vec<usize>, values: &[f32]) -> Array {
        Array {
            dtype: Dtype::F32,
            shape,
            data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        }
    }
}

/// A whole `.npy` file's element type and shape, and where its data starts,
/// after checking that the data is as long as they say.
pub(crate) fn header(bytes: &[u8]) -> Result<(Dtype, Vec<usize>, usize), String> {
    header_of(bytes, bytes.len())
}

/// As [`header`], from the first bytes (`bytes`, the header whole) of a
/// file of `file_len` bytes, so that the data can be read in a stream.
pub(crate) fn header_of(
    bytes: &[u8],
    file_len: usize,
) -> Result<(Dtype, Vec<usize>, usize), String> {
    let (header_len, header_start): (Option<usize>, usize) = match bytes.get(..MAGIC.len() + 2) {
        Some([.., 1, _]) if bytes.starts_with(MAGIC) => (u16_at(bytes, 8).map(usize::from), 10),
        Some([.., 2 | 3, _]) if bytes.starts_with(MAGIC) => {
            (u32_at(bytes, 8).and_then(|n| usize::try_from(n).ok()), 12)
        }
        _ => return Err("not a .npy array (no \\x93NUMPY magic of version 1-3)".into()),
    };
    let header_end = header_len
        .and_then(|n| header_start.checked_add(n))
        .filter(|&end| end <= file_len)
        .ok_or("the .npy header is cut short")?;
    if header_end > bytes.len() {
        return Err(format!(
            "the .npy header is longer than the {} bytes read for it",
            bytes.len()
        ));
    }
    let header = std::str::from_utf8(&bytes[header_start..header_end])
        .map_err(|_| "the .npy header is not text")?;
    let descr = dict_value(header, "descr")?;
    let descr = descr.trim_matches(|c| c == '\'' || c == '"');
    let dtype = Dtype::from_descr(descr)
        .ok_or_else(|| format!("element type {descr:?} is not one the model uses"))?;
    if dict_value(header, "fortran_order")? != "False" {
        return Err("Fortran-ordered arrays are not supported".into());
    }
    let shape = parse_shape(dict_value(header, "shape")?)?;
    let expected = shape
        .iter()
        .try_fold(dtype.size(), |n, &d| n.checked_mul(d))
        .ok_or("the shape overflows")?;
    let held = file_len.saturating_sub(header_end);
    if held != expected {
        return Err(format!(
            "holds {held} data bytes, shape {shape:?} needs {expected}"
        ));
    }
    Ok((dtype, shape, header_end))
}

/// Little-endian `f32`s.
pub(crate) fn f32s_of(data: &[u8]) -> Vec<f32> {
    data.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*bytes.get(at)?, *bytes.get(at + 1)?]))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The text of `key`'s value in the header dictionary, up to the next
/// top-level comma (a shape tuple's commas are inside parentheses).
fn dict_value<'h>(header: &'h str, key: &str) -> Result<&'h str, String> {
    let missing = || format!("the .npy header has no {key:?}");
    let quoted = [format!("'{key}':"), format!("\"{key}\":")];
    let start = quoted
        .iter()
        .find_map(|q| header.find(q.as_str()).map(|i| i + q.len()))
        .ok_or_else(missing)?;
    let rest = &header[start..];
    let mut depth = 0usize;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' | '}' if depth == 0 => return Ok(rest[..i].trim()),
            _ => {}
        }
    }
    Err(missing())
}

fn parse_shape(text: &str) -> Result<Vec<usize>, String> {
    let inner = text
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .ok_or_else(|| format!("the shape {text:?} is not a tuple"))?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            d.parse::<usize>()
                .map_err(|_| format!("the shape {text:?} has a dimension that is not a number"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_written_reads_back_the_same() {
        for shape in [vec![], vec![3], vec![2, 3]] {
            let n: usize = shape.iter().product();
            let values: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
            let bytes = Array::from_f32s(shape.clone(), &values).to_bytes();
            assert_eq!(bytes.len() % 64, (n * 4) % 64, "data starts on 64 bytes");
            let back = Array::parse(bytes).unwrap();
            assert_eq!(back.shape, shape);
            assert_eq!(back.f32s().unwrap(), values);
        }
    }

    #[test]
    fn numpy_headers_parse() {
        let header = b"{'descr': '|u1', 'fortran_order': False, 'shape': (7530, 512), }";
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
        bytes.extend_from_slice(header);
        bytes.extend(std::iter::repeat_n(7u8, 7530 * 512));
        let array = Array::parse(bytes).unwrap();
        assert_eq!((array.dtype, array.shape), (Dtype::U8, vec![7530, 512]));
    }

    #[test]
    fn broken_arrays_say_what_is_wrong() {
        let good = Array::from_f32s(vec![4], &[1.0, 2.0, 3.0, 4.0]).to_bytes();
        let cut = good[..good.len() - 1].to_vec();
        assert!(Array::parse(cut).unwrap_err().contains("needs 16"));
        assert!(
            Array::parse(good[..20].to_vec())
                .unwrap_err()
                .contains("cut short")
        );
        // A whole header not among the first bytes of a longer file read
        // in a stream.
        let error = header_of(&good[..20], good.len()).unwrap_err();
        assert!(error.contains("longer than the 20 bytes"), "{error}");
        assert!(
            Array::parse(b"PK\x03\x04".to_vec())
                .unwrap_err()
                .contains("magic")
        );
        let replaced = |from: &str, to: &str| {
            let at = good
                .windows(from.len())
                .position(|w| w == from.as_bytes())
                .unwrap();
            let mut bytes = good[..at].to_vec();
            bytes.extend_from_slice(to.as_bytes());
            bytes.extend_from_slice(&good[at + from.len()..]);
            Array::parse(bytes)
        };
        assert!(replaced("<f4", "<c8").unwrap_err().contains("<c8"));
        assert!(replaced("(4,)", "(9999999999999999999999,)").is_err());
        assert!(replaced("False", "True").unwrap_err().contains("Fortran"));
        assert!(Array::parse(Vec::new()).is_err());
    }
}
