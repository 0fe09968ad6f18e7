//! The model's arrays: which ones it has and their shapes (one list, checked
//! the same way for the package's `weights.npz` and for a compiled model),
//! and the dense weights arranged for the forward pass.

use std::collections::{HashMap, HashSet};

use std::io::Read;
use std::ops::Range;

use ndarray::{Array1, Array2, ArrayViewMut2, Axis, Slice};

use crate::npy::{Array, Dtype};

/// Width of a token embedding and of the sentence embedding.
pub const DIM: usize = 512;
/// Width of each CNN branch.
pub(crate) const CNN_DIM: usize = 256;
/// The embedding table is stored in this many interleaved chunks (`q1` …
/// `q17`; piece `id` is row `id / 17` of chunk `id % 17`), each quantized
/// to 6 bits with its own scale and offset.
pub(crate) const CHUNKS: usize = 17;
pub(crate) const CHUNK_ROWS: usize = 7530;
pub(crate) const TABLE_ROWS: usize = CHUNKS * CHUNK_ROWS;
pub(crate) const TABLE_BITS: i8 = 6;
/// The CNN branches: n-gram order and how many tokens of left context.
pub(crate) const ORDERS: [(usize, usize); 3] = [(2, 0), (3, 1), (5, 2)];
/// The input of the last layer norm: the raw embedding and three branches.
pub(crate) const FEATURES: usize = DIM + ORDERS.len() * CNN_DIM;

/// One dense `f32` array of the package: its name, its shape, and where
/// its values go among the arrays the forward pass keeps.
pub(crate) struct DenseArray {
    pub name: String,
    pub shape: Vec<usize>,
    place: Place,
}

/// Where an array's rows go in a target array of the forward pass:
/// source row `r` of `c` values starts at
/// `(r % period) * width + (r / period) * c + block`. Most arrays are their
/// own target as they are (`period` = their rows, `width` = `c`); the
/// three branches' projections go side by side into one `(512, 768)`
/// matrix (their biases and norms into 768-value vectors), and each
/// convolution is laid out shifted (see [`Branch`]). Placing each value
/// once, straight from the bytes read, is what makes loading cheap: on
/// this machine most of the load was the kernel handing out fresh pages,
/// so no array is built twice.
struct Place {
    target: String,
    target_len: usize,
    width: usize,
    period: usize,
    block: usize,
}

impl Place {
    /// An array that is its own target, `shape` as it is.
    fn itself(name: &str, shape: &[usize]) -> Place {
        let (rows, cols) = rows_and_columns(shape);
        Place {
            target: name.to_string(),
            target_len: rows * cols,
            width: cols,
            period: rows,
            block: 0,
        }
    }

    /// Where source row `row` of `cols` values starts in the target.
    fn offset(&self, row: usize, cols: usize) -> usize {
        (row % self.period) * self.width + (row / self.period) * cols + self.block
    }
}

/// A shape as rows of columns (a vector is one row).
fn rows_and_columns(shape: &[usize]) -> (usize, usize) {
    match shape {
        [rows, cols] => (*rows, *cols),
        _ => (1, shape.iter().product()),
    }
}

/// Every dense `f32` array of the model, its shape and its place.
pub(crate) fn dense_layout() -> Vec<DenseArray> {
    let side_by_side = ORDERS.len() * CNN_DIM;
    let mut layout = Vec::new();
    for (i, (order, _)) in ORDERS.into_iter().enumerate() {
        let window = order * CNN_DIM;
        let beside = |target: &str, rows: usize| Place {
            target: target.to_string(),
            target_len: rows * side_by_side,
            width: side_by_side,
            period: rows,
            block: i * CNN_DIM,
        };
        let shifted = |target: String| Place {
            target,
            target_len: window * CNN_DIM,
            width: window,
            period: CNN_DIM,
            block: 0,
        };
        for (name, shape, place) in [
            ("proj", vec![DIM, CNN_DIM], Some(beside("proj", DIM))),
            ("proj_b", vec![CNN_DIM], Some(beside("proj_b", 1))),
            ("ln_g", vec![CNN_DIM], Some(beside("proj_ln_g", 1))),
            ("ln_b", vec![CNN_DIM], Some(beside("proj_ln_b", 1))),
            (
                "w1_",
                vec![window, CNN_DIM],
                Some(shifted(format!("w1_{order}"))),
            ),
            ("b1_", vec![CNN_DIM], None),
            (
                "w2_",
                vec![window, CNN_DIM],
                Some(shifted(format!("w2_{order}"))),
            ),
            ("b2_", vec![CNN_DIM], None),
        ] {
            let name = format!("{name}{order}");
            let place = place.unwrap_or_else(|| Place::itself(&name, &shape));
            layout.push(DenseArray { name, shape, place });
        }
    }
    for (name, shape) in [
        ("ln_g", vec![FEATURES]),
        ("ln_b", vec![FEATURES]),
        ("cnn_W", vec![FEATURES, DIM]),
        ("cnn_b", vec![DIM]),
        ("d0", vec![DIM, 320]),
        ("d1", vec![320, 320]),
        ("p1", vec![DIM, 320]),
        ("d2", vec![320, DIM]),
        ("p3", vec![320, DIM]),
        ("d3", vec![DIM, DIM]),
        ("lo", vec![CHUNKS]),
        ("scale", vec![CHUNKS]),
    ] {
        let place = Place::itself(name, &shape);
        layout.push(DenseArray {
            name: name.to_string(),
            shape,
            place,
        });
    }
    layout
}

/// The name of the scalar array holding the layer norms' epsilon.
pub(crate) const EPS: &str = "eps";

/// Checks one array's element type and shape (`found`) against what the
/// model needs of it; the error names it.
pub(crate) fn check(
    name: &str,
    found: (Dtype, &[usize]),
    dtype: Dtype,
    shape: &[usize],
) -> Result<(), String> {
    let (found_dtype, found_shape) = found;
    if found_dtype != dtype || found_shape != shape {
        return Err(format!(
            "{name}: {found_dtype:?} {found_shape:?}, expected {dtype:?} {shape:?}"
        ));
    }
    Ok(())
}

/// One CNN branch, its two convolutions laid out "shifted": for window
/// slot `k`, columns `k*256 .. (k+1)*256` hold the rows of the original
/// `(order*256, 256)` matrix that multiply slot `k`, so one product of all
/// tokens with it gives every slot's contribution at once.
pub(crate) struct Branch {
    pub order: usize,
    pub left: usize,
    pub w1: Array2<f32>,
    pub b1: Array1<f32>,
    pub w2: Array2<f32>,
    pub b2: Array1<f32>,
}

/// The dense weights, arranged for [`crate::encoder`].
pub(crate) struct Weights {
    /// The three branches' input projections side by side: `(512, 768)`.
    pub proj: Array2<f32>,
    pub proj_b: Array1<f32>,
    /// The layer norm over all 768 projected values (as the package
    /// computes it: one norm over the three branches together).
    pub proj_ln_g: Array1<f32>,
    pub proj_ln_b: Array1<f32>,
    pub branches: Vec<Branch>,
    pub ln_g: Array1<f32>,
    pub ln_b: Array1<f32>,
    pub cnn_w: Array2<f32>,
    pub cnn_b: Array1<f32>,
    pub d0: Array2<f32>,
    pub d1: Array2<f32>,
    pub p1: Array2<f32>,
    pub d2: Array2<f32>,
    pub p3: Array2<f32>,
    pub d3: Array2<f32>,
    pub eps: f32,
    pub scale: [f32; CHUNKS],
    pub lo: [f32; CHUNKS],
}

/// The dense arrays, checked (each of [`dense_layout`] as finite `f32`s of
/// its shape, and [`EPS`]) and already placed where the forward pass reads
/// them: each value is converted once, from the bytes it was read in,
/// into its target. Loading is most of a hook's cost when meaning orders
/// its records.
#[derive(Default)]
pub(crate) struct Dense {
    targets: HashMap<String, Vec<f32>>,
    placed: HashSet<String>,
    eps: Option<f64>,
}

impl Dense {
    /// The dense arrays among `arrays` (the package's `weights.npz`).
    pub(crate) fn from_arrays(arrays: &HashMap<String, Array>) -> Result<Dense, String> {
        let mut dense = Dense::default();
        for name in dense_names() {
            let array = arrays
                .get(&name)
                .ok_or_else(|| format!("{name}: missing"))?;
            dense.add(&name, array.dtype, &array.shape, &array.data)?;
        }
        Ok(dense)
    }

    /// Adds one array (its element type, shape and little-endian data);
    /// the error names it and says what is wrong.
    pub(crate) fn add(
        &mut self,
        name: &str,
        dtype: Dtype,
        shape: &[usize],
        data: &[u8],
    ) -> Result<(), String> {
        if name == EPS {
            let eps = match (dtype, shape, data) {
                (Dtype::F64, [], [a, b, c, d, e, f, g, h]) => {
                    Some(f64::from_le_bytes([*a, *b, *c, *d, *e, *f, *g, *h]))
                }
                _ => None,
            };
            self.eps = Some(
                eps.filter(|e| e.is_finite() && *e > 0.0)
                    .ok_or_else(|| format!("{EPS}: not a positive f64 scalar"))?,
            );
            return Ok(());
        }
        let expected = shape.iter().product::<usize>() * dtype.size();
        if data.len() != expected {
            return Err(format!(
                "{name}: {} data bytes, expected {expected}",
                data.len()
            ));
        }
        self.read(name, dtype, shape, &mut { data })
    }

    /// Reads one array's data from `data` (its element type and shape
    /// given), each row straight into its place; the error names it and
    /// says what is wrong. [`EPS`] is added with [`Dense::add`].
    pub(crate) fn read(
        &mut self,
        name: &str,
        dtype: Dtype,
        shape: &[usize],
        data: &mut impl Read,
    ) -> Result<(), String> {
        let array = dense_layout()
            .into_iter()
            .find(|a| a.name == name)
            .ok_or_else(|| format!("{name}: not an array of the model"))?;
        check(name, (dtype, shape), Dtype::F32, &array.shape)?;
        let (rows, cols) = rows_and_columns(&array.shape);
        let place = &array.place;
        let target = self
            .targets
            .entry(place.target.clone())
            .or_insert_with(|| vec![0.0; place.target_len]);
        let mut bytes = vec![0u8; cols * 4];
        for row in 0..rows {
            data.read_exact(&mut bytes)
                .map_err(|e| format!("{name}: row {row} cannot be read: {e}"))?;
            let at = place.offset(row, cols);
            let slots = target
                .get_mut(at..at + cols)
                .ok_or_else(|| format!("{name}: row {row} falls outside {}", place.target))?;
            for (slot, b) in slots.iter_mut().zip(bytes.chunks_exact(4)) {
                *slot = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            if slots.iter().any(|v| !v.is_finite()) {
                return Err(format!("{name}: holds a value that is not a finite number"));
            }
        }
        self.placed.insert(name.to_string());
        Ok(())
    }

    /// Adds the arrays another reader read (of other targets: see
    /// [`dense_halves`]).
    pub(crate) fn merge(&mut self, other: Dense) -> Result<(), String> {
        for (target, values) in other.targets {
            if self.targets.insert(target.clone(), values).is_some() {
                return Err(format!("{target}: read twice"));
            }
        }
        self.placed.extend(other.placed);
        self.eps = self.eps.or(other.eps);
        Ok(())
    }

    /// Each array as NumPy would write it, by name, for a compiled model
    /// (its values read back out of their places).
    pub(crate) fn arrays(&self) -> Vec<(String, Array)> {
        let mut arrays: Vec<(String, Array)> = dense_layout()
            .into_iter()
            .filter(|a| self.placed.contains(&a.name))
            .filter_map(|DenseArray { name, shape, place }| {
                let target = self.targets.get(&place.target)?;
                let (rows, cols) = rows_and_columns(&shape);
                let mut floats = Vec::with_capacity(rows * cols);
                for row in 0..rows {
                    let at = place.offset(row, cols);
                    floats.extend_from_slice(target.get(at..at + cols)?);
                }
                Some((name, Array::from_f32s(shape, &floats)))
            })
            .collect();
        if let Some(eps) = self.eps {
            let scalar = Array {
                dtype: Dtype::F64,
                shape: Vec::new(),
                data: eps.to_le_bytes().to_vec(),
            };
            arrays.push((EPS.to_string(), scalar));
        }
        arrays
    }
}

/// The names of [`dense_names`] in two groups of about the same size, no
/// target shared between them, for two threads to read: most of a load is
/// the kernel handing out fresh pages, which two cores do side by side.
pub(crate) fn dense_halves() -> [Vec<String>; 2] {
    let layout = dense_layout();
    let mut targets: Vec<(&str, usize)> = Vec::new();
    for array in &layout {
        if !targets.iter().any(|(t, _)| *t == array.place.target) {
            targets.push((&array.place.target, array.place.target_len));
        }
    }
    // The largest targets first, each to the lighter half.
    targets.sort_by_key(|(_, len)| std::cmp::Reverse(*len));
    let mut halves: [Vec<String>; 2] = Default::default();
    let mut sizes = [0; 2];
    for (target, len) in targets {
        let half = usize::from(sizes[1] < sizes[0]);
        sizes[half] += len;
        let names = layout.iter().filter(|a| a.place.target == target);
        halves[half].extend(names.map(|a| a.name.clone()));
    }
    halves[0].push(EPS.to_string());
    halves
}

/// The name of every dense array and of [`EPS`].
pub(crate) fn dense_names() -> impl Iterator<Item = String> {
    dense_layout()
        .into_iter()
        .map(|a| a.name)
        .chain([EPS.to_string()])
}

impl Weights {
    /// The weights, from arrays all added; the error names a missing one.
    pub(crate) fn from_dense(dense: Dense) -> Result<Weights, String> {
        let Dense {
            mut targets,
            placed,
            eps,
        } = dense;
        let eps = eps.ok_or_else(|| format!("{EPS}: missing"))?;
        if let Some(missing) = dense_layout().iter().find(|a| !placed.contains(&a.name)) {
            return Err(format!("{}: missing", missing.name));
        }
        let mut matrix = |name: &str, rows: usize, cols: usize| {
            let values = targets.remove(name).unwrap_or_default();
            Array2::from_shape_vec((rows, cols), values).map_err(|e| format!("{name}: {e}"))
        };
        let proj = matrix("proj", DIM, ORDERS.len() * CNN_DIM)?;
        let mut convolutions = Vec::new();
        for (order, _) in ORDERS {
            let window = order * CNN_DIM;
            let w1 = matrix(&format!("w1_{order}"), CNN_DIM, window)?;
            convolutions.push((w1, matrix(&format!("w2_{order}"), CNN_DIM, window)?));
        }
        let cnn_w = matrix("cnn_W", FEATURES, DIM)?;
        let d0 = matrix("d0", DIM, 320)?;
        let d1 = matrix("d1", 320, 320)?;
        let p1 = matrix("p1", DIM, 320)?;
        let d2 = matrix("d2", 320, DIM)?;
        let p3 = matrix("p3", 320, DIM)?;
        let d3 = matrix("d3", DIM, DIM)?;
        let mut take = |name: &str| targets.remove(name).unwrap_or_default();
        let branches = ORDERS
            .into_iter()
            .zip(convolutions)
            .map(|((order, left), (w1, w2))| Branch {
                order,
                left,
                w1,
                b1: Array1::from(take(&format!("b1_{order}"))),
                w2,
                b2: Array1::from(take(&format!("b2_{order}"))),
            })
            .collect();
        let chunked =
            |v: Vec<f32>| <[f32; CHUNKS]>::try_from(v).map_err(|_| "17 values".to_string());
        Ok(Weights {
            proj,
            proj_b: Array1::from(take("proj_b")),
            proj_ln_g: Array1::from(take("proj_ln_g")),
            proj_ln_b: Array1::from(take("proj_ln_b")),
            branches,
            ln_g: Array1::from(take("ln_g")),
            ln_b: Array1::from(take("ln_b")),
            cnn_w,
            cnn_b: Array1::from(take("cnn_b")),
            d0,
            d1,
            p1,
            d2,
            p3,
            d3,
            eps: eps as f32,
            scale: chunked(take("scale"))?,
            lo: chunked(take("lo"))?,
        })
    }
}

/// Columns `range` of `a`. (ndarray's `s!` macro cannot be used: it
/// expands to an `allow(unsafe_code)` that the crate's `forbid` refuses.)
pub(crate) fn columns_mut(a: &mut Array2<f32>, range: Range<usize>) -> ArrayViewMut2<'_, f32> {
    a.slice_axis_mut(Axis(1), Slice::from(range))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every dense array with values that say which array and element
    /// they are (a running count: exact in `f32` below 2^24), and `eps`.
    fn numbered() -> (Dense, HashMap<String, Vec<f32>>) {
        let mut dense = Dense::default();
        let mut sources = HashMap::new();
        let mut next = 0.0f32;
        for DenseArray { name, shape, .. } in dense_layout() {
            let values: Vec<f32> = (0..shape.iter().product::<usize>())
                .map(|_| {
                    next += 1.0;
                    next
                })
                .collect();
            let bytes = Array::from_f32s(shape.clone(), &values).data;
            dense.add(&name, Dtype::F32, &shape, &bytes).unwrap();
            sources.insert(name, values);
        }
        dense
            .add(EPS, Dtype::F64, &[], &1e-6f64.to_le_bytes())
            .unwrap();
        (dense, sources)
    }

    /// `values` (a field of [`Weights`], in row-major order) are `expected`.
    fn same<'a>(field: &str, values: impl IntoIterator<Item = &'a f32>, expected: &[f32]) {
        let values: Vec<f32> = values.into_iter().copied().collect();
        assert_eq!(values.len(), expected.len(), "{field}: length");
        let wrong = values.iter().zip(expected).position(|(a, b)| a != b);
        assert_eq!(wrong, None, "{field}: first wrong value");
    }

    /// Every field of the weights, element by element, against the layout
    /// worked out here by hand: the branches' projections side by side,
    /// each convolution's window slot `k` as column block `k`, the rest as
    /// the package has them.
    #[test]
    fn each_value_lands_where_the_forward_pass_reads_it() {
        let (dense, sources) = numbered();
        let weights = Weights::from_dense(dense).unwrap();
        let side = ORDERS.len() * CNN_DIM;
        let mut proj = vec![0.0; DIM * side];
        let mut beside: HashMap<&str, Vec<f32>> = HashMap::new();
        for (i, (order, left)) in ORDERS.into_iter().enumerate() {
            let part = &sources[&format!("proj{order}")];
            for r in 0..DIM {
                for c in 0..CNN_DIM {
                    proj[r * side + i * CNN_DIM + c] = part[r * CNN_DIM + c];
                }
            }
            for (target, name) in [
                ("proj_b", "proj_b"),
                ("proj_ln_g", "ln_g"),
                ("proj_ln_b", "ln_b"),
            ] {
                let values = &sources[&format!("{name}{order}")];
                beside.entry(target).or_default().extend_from_slice(values);
            }
            let branch = &weights.branches[i];
            assert_eq!((branch.order, branch.left), (order, left));
            let window = order * CNN_DIM;
            for (field, actual) in [("w1_", &branch.w1), ("w2_", &branch.w2)] {
                let w = &sources[&format!("{field}{order}")];
                let mut shifted = vec![0.0; CNN_DIM * window];
                for k in 0..order {
                    for r in 0..CNN_DIM {
                        for c in 0..CNN_DIM {
                            shifted[r * window + k * CNN_DIM + c] =
                                w[(k * CNN_DIM + r) * CNN_DIM + c];
                        }
                    }
                }
                same(&format!("{field}{order}"), actual, &shifted);
            }
            same(
                &format!("b1_{order}"),
                &branch.b1,
                &sources[&format!("b1_{order}")],
            );
            same(
                &format!("b2_{order}"),
                &branch.b2,
                &sources[&format!("b2_{order}")],
            );
        }
        same("proj", &weights.proj, &proj);
        same("proj_b", &weights.proj_b, &beside["proj_b"]);
        same("proj_ln_g", &weights.proj_ln_g, &beside["proj_ln_g"]);
        same("proj_ln_b", &weights.proj_ln_b, &beside["proj_ln_b"]);
        for (name, actual) in [
            ("ln_g", weights.ln_g.as_slice()),
            ("ln_b", weights.ln_b.as_slice()),
            ("cnn_W", weights.cnn_w.as_slice()),
            ("cnn_b", weights.cnn_b.as_slice()),
            ("d0", weights.d0.as_slice()),
            ("d1", weights.d1.as_slice()),
            ("p1", weights.p1.as_slice()),
            ("d2", weights.d2.as_slice()),
            ("p3", weights.p3.as_slice()),
            ("d3", weights.d3.as_slice()),
            ("scale", Some(&weights.scale[..])),
            ("lo", Some(&weights.lo[..])),
        ] {
            same(name, actual.unwrap_or_default(), &sources[name]);
        }
        assert_eq!(weights.eps, 1e-6);
    }

    #[test]
    fn arrays_read_back_as_they_were_added() {
        let (dense, sources) = numbered();
        let arrays = dense.arrays();
        assert_eq!(arrays.len(), sources.len() + 1, "every array and eps");
        for (name, array) in arrays.iter().filter(|(n, _)| n != EPS) {
            assert_eq!(array.f32s().unwrap(), sources[name], "{name}");
        }
    }

    #[test]
    fn a_value_that_is_not_finite_or_a_wrong_length_is_refused_by_name() {
        let mut dense = Dense::default();
        let mut values = vec![0.5f32; CHUNKS];
        values[4] = f32::NAN;
        let bytes = Array::from_f32s(vec![CHUNKS], &values).data;
        let error = dense
            .add("scale", Dtype::F32, &[CHUNKS], &bytes)
            .unwrap_err();
        assert!(
            error.starts_with("scale:") && error.contains("finite"),
            "{error}"
        );
        let error = dense
            .add("scale", Dtype::F32, &[CHUNKS], &bytes[..8])
            .unwrap_err();
        assert!(error.starts_with("scale:"), "{error}");
        let error = dense
            .read("lo", Dtype::F32, &[CHUNKS], &mut &bytes[..8])
            .unwrap_err();
        assert!(
            error.starts_with("lo:") && error.contains("cannot be read"),
            "{error}"
        );
        let error = dense
            .add("d0", Dtype::F32, &[320, DIM], &vec![0; 320 * DIM * 4])
            .unwrap_err();
        assert!(error.starts_with("d0:"), "{error}");
    }

    #[test]
    fn a_missing_array_is_named() {
        let (mut dense, _) = numbered();
        dense.placed.remove("w2_3");
        let error = Weights::from_dense(dense).err().unwrap();
        assert_eq!(error, "w2_3: missing");
    }

    #[test]
    fn the_two_halves_share_no_target_and_weigh_about_the_same() {
        let layout = dense_layout();
        let halves = dense_halves();
        let mut all: Vec<&String> = halves.iter().flatten().collect();
        all.sort();
        let mut names: Vec<String> = dense_names().collect();
        names.sort();
        assert_eq!(all, names.iter().collect::<Vec<_>>(), "each name once");
        let place = |name: &String| layout.iter().find(|a| &a.name == name).map(|a| &a.place);
        let [first, second] = &halves;
        for name in first {
            let Some(mine) = place(name) else { continue };
            assert!(
                second
                    .iter()
                    .filter_map(place)
                    .all(|p| p.target != mine.target),
                "{name}"
            );
        }
        let weight = |half: &Vec<String>| -> usize {
            let mut targets: Vec<(&String, usize)> = half
                .iter()
                .filter_map(place)
                .map(|p| (&p.target, p.target_len))
                .collect();
            targets.sort();
            targets.dedup();
            targets.iter().map(|(_, len)| len).sum()
        };
        let (a, b) = (weight(first), weight(second));
        assert!(a.abs_diff(b) * 5 < a.max(b), "{a} against {b}: within 20%");
        // Merging is refused when both readers placed into one target.
        let (whole, _) = numbered();
        let mut one = Dense::default();
        one.merge(whole).unwrap();
        let (again, _) = numbered();
        assert!(one.merge(again).unwrap_err().ends_with("read twice"));
    }
}
