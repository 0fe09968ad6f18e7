//! The model's arrays: which ones it has and their shapes (one list, checked
//! the same way for the package's `weights.npz` and for a compiled model),
//! and the dense weights arranged for the forward pass.

use std::collections::HashMap;

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

/// Every dense `f32` array of the model and its shape.
pub(crate) fn dense_shapes() -> Vec<(String, Vec<usize>)> {
    let mut shapes = Vec::new();
    for (order, _) in ORDERS {
        let window = order * CNN_DIM;
        for (name, shape) in [
            ("proj", vec![DIM, CNN_DIM]),
            ("proj_b", vec![CNN_DIM]),
            ("ln_g", vec![CNN_DIM]),
            ("ln_b", vec![CNN_DIM]),
            ("w1_", vec![window, CNN_DIM]),
            ("b1_", vec![CNN_DIM]),
            ("w2_", vec![window, CNN_DIM]),
            ("b2_", vec![CNN_DIM]),
        ] {
            shapes.push((format!("{name}{order}"), shape));
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
        shapes.push((name.to_string(), shape));
    }
    shapes
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

/// The dense arrays, checked: each of [`dense_shapes`] as finite `f32`s
/// of its shape, by name, and [`EPS`]. Each is converted once, from the
/// bytes it was read in, into the vector the forward pass keeps: loading
/// is most of a hook's cost when meaning orders its records.
#[derive(Default)]
pub(crate) struct Dense {
    floats: HashMap<String, Vec<f32>>,
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
        let (_, expected) = dense_shapes()
            .into_iter()
            .find(|(n, _)| n == name)
            .ok_or_else(|| format!("{name}: not an array of the model"))?;
        check(name, (dtype, shape), Dtype::F32, &expected)?;
        let floats = crate::npy::f32s_of(data);
        if floats.iter().any(|v| !v.is_finite()) {
            return Err(format!("{name}: holds a value that is not a finite number"));
        }
        self.floats.insert(name.to_string(), floats);
        Ok(())
    }

    /// Each array as NumPy would write it, by name, for a compiled model.
    pub(crate) fn arrays(&self) -> Vec<(String, Array)> {
        let mut arrays: Vec<(String, Array)> = dense_shapes()
            .into_iter()
            .filter_map(|(name, shape)| {
                let floats = self.floats.get(&name)?;
                let array = Array::from_f32s(shape, floats);
                Some((name, array))
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

/// The name of every dense array and of [`EPS`].
pub(crate) fn dense_names() -> impl Iterator<Item = String> {
    dense_shapes()
        .into_iter()
        .map(|(name, _)| name)
        .chain([EPS.to_string()])
}

impl Weights {
    /// Builds the weights from checked arrays; the error names a missing
    /// one.
    pub(crate) fn from_dense(dense: Dense) -> Result<Weights, String> {
        let Dense {
            floats: mut values,
            eps,
        } = dense;
        let eps = eps.ok_or_else(|| format!("{EPS}: missing"))?;
        if let Some((name, _)) = dense_shapes()
            .iter()
            .find(|(name, _)| !values.contains_key(name))
        {
            return Err(format!("{name}: missing"));
        }
        let mut take = |name: &str| values.remove(name).unwrap_or_default();
        let matrix = |v: Vec<f32>, rows: usize, cols: usize| {
            Array2::from_shape_vec((rows, cols), v).map_err(|e| e.to_string())
        };
        let mut proj = Array2::zeros((DIM, ORDERS.len() * CNN_DIM));
        let mut proj_b = Vec::new();
        let mut proj_ln_g = Vec::new();
        let mut proj_ln_b = Vec::new();
        let mut branches = Vec::new();
        for (i, (order, left)) in ORDERS.into_iter().enumerate() {
            let part = matrix(take(&format!("proj{order}")), DIM, CNN_DIM)?;
            columns_mut(&mut proj, i * CNN_DIM..(i + 1) * CNN_DIM).assign(&part);
            proj_b.extend(take(&format!("proj_b{order}")));
            proj_ln_g.extend(take(&format!("ln_g{order}")));
            proj_ln_b.extend(take(&format!("ln_b{order}")));
            let w1 = matrix(take(&format!("w1_{order}")), order * CNN_DIM, CNN_DIM)?;
            let w2 = matrix(take(&format!("w2_{order}")), order * CNN_DIM, CNN_DIM)?;
            branches.push(Branch {
                order,
                left,
                w1: shifted(&w1, order),
                b1: Array1::from(take(&format!("b1_{order}"))),
                w2: shifted(&w2, order),
                b2: Array1::from(take(&format!("b2_{order}"))),
            });
        }
        let chunked =
            |v: Vec<f32>| <[f32; CHUNKS]>::try_from(v).map_err(|_| "17 values".to_string());
        Ok(Weights {
            proj,
            proj_b: Array1::from(proj_b),
            proj_ln_g: Array1::from(proj_ln_g),
            proj_ln_b: Array1::from(proj_ln_b),
            branches,
            ln_g: Array1::from(take("ln_g")),
            ln_b: Array1::from(take("ln_b")),
            cnn_w: matrix(take("cnn_W"), FEATURES, DIM)?,
            cnn_b: Array1::from(take("cnn_b")),
            d0: matrix(take("d0"), DIM, 320)?,
            d1: matrix(take("d1"), 320, 320)?,
            p1: matrix(take("p1"), DIM, 320)?,
            d2: matrix(take("d2"), 320, DIM)?,
            p3: matrix(take("p3"), 320, DIM)?,
            d3: matrix(take("d3"), DIM, DIM)?,
            eps: eps as f32,
            scale: chunked(take("scale"))?,
            lo: chunked(take("lo"))?,
        })
    }
}

/// `(order*256, 256)` to `(256, order*256)`, slot `k`'s rows as columns
/// block `k`.
fn shifted(w: &Array2<f32>, order: usize) -> Array2<f32> {
    let mut out = Array2::zeros((CNN_DIM, order * CNN_DIM));
    for k in 0..order {
        let block = k * CNN_DIM..(k + 1) * CNN_DIM;
        columns_mut(&mut out, block.clone()).assign(&w.slice_axis(Axis(0), Slice::from(block)));
    }
    out
}

/// Columns `range` of `a`. (ndarray's `s!` macro cannot be used: it
/// expands to an `allow(unsafe_code)` that the crate's `forbid` refuses.)
pub(crate) fn columns_mut(a: &mut Array2<f32>, range: Range<usize>) -> ArrayViewMut2<'_, f32> {
    a.slice_axis_mut(Axis(1), Slice::from(range))
}
