//! The forward pass of USE multilingual v3 over a group of tokenized texts:
//! embeddings, three CNN n-gram branches (orders 2, 3 and 5, two residual
//! convolutions each), a layer norm, the sum over tokens, a projection and
//! a three-layer residual network, as the package's numpy backend computes
//! it (docs/EMBEDDINGS.md).
//!
//! Two things make it fast without changing the arithmetic of any one
//! value. All tokens of the group go through each weight matrix as one
//! product, so that each matrix is read once per group. And everything
//! before the first convolution's window sum depends on the piece id alone,
//! so it is computed once per distinct piece of the group, not per token:
//! the embedding, the projection and its layer norm, and the first
//! convolution's product (kept "shifted", one column block per window
//! slot, see [`crate::weights::Branch`]). The second convolution's input
//! depends on the neighbours, so it is computed per token.

use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis, Slice};

use crate::error::Result;
use crate::table::{self, ROW_BYTES, Table};
use crate::weights::{CHUNKS, CNN_DIM, DIM, FEATURES, Weights, columns_mut};

/// One text's tokens within the group: where they start in the flat list.
#[derive(Clone, Copy)]
struct Span {
    start: usize,
    len: usize,
}

/// Embeds every text of `group` (token ids with `<s>` and `</s>`) into
/// `out`, one L2-normalised row of [`DIM`] values each.
pub(crate) fn encode_group(
    weights: &Weights,
    table: &Table,
    group: &[Vec<u32>],
    out: &mut [[f32; DIM]],
) -> Result<()> {
    let mut spans = Vec::with_capacity(group.len());
    let mut flat = Vec::new();
    for ids in group {
        spans.push(Span {
            start: flat.len(),
            len: ids.len(),
        });
        flat.extend_from_slice(ids);
    }
    let mut distinct = flat.clone();
    distinct.sort_unstable();
    distinct.dedup();
    // Each token's row among the distinct pieces.
    let piece_row: Vec<usize> = flat
        .iter()
        .map(|id| distinct.partition_point(|d| d < id))
        .collect();

    let embeddings = embed_pieces(weights, table, &distinct)?;
    let mut projected = embeddings.dot(&weights.proj);
    projected += &weights.proj_b;
    layer_norm(
        &mut projected,
        &weights.proj_ln_g,
        &weights.proj_ln_b,
        weights.eps,
    );

    let mut features = Array2::<f32>::zeros((flat.len(), FEATURES));
    for (t, &row) in piece_row.iter().enumerate() {
        let mut head = features.row_mut(t);
        head.slice_axis_inplace(Axis(0), Slice::from(..DIM));
        head.assign(&embeddings.row(row));
    }
    for (i, branch) in weights.branches.iter().enumerate() {
        let inputs = projected.slice_axis(Axis(1), Slice::from(i * CNN_DIM..(i + 1) * CNN_DIM));
        let first = inputs.dot(&branch.w1);
        let window = Window {
            spans: &spans,
            order: branch.order,
            left: branch.left,
        };
        // h = relu(conv1(x) + b1) + x, from the per-piece products.
        let hidden = window.apply(
            &first,
            |t| piece_row[t],
            &branch.b1,
            |t| inputs.row(piece_row[t]),
        );
        // c = relu(conv2(h) + b2) + h, per token.
        let second = hidden.dot(&branch.w2);
        let out_branch = window.apply(&second, |t| t, &branch.b2, |t| hidden.row(t));
        let offset = DIM + i * CNN_DIM;
        columns_mut(&mut features, offset..offset + CNN_DIM).assign(&out_branch);
    }
    layer_norm(&mut features, &weights.ln_g, &weights.ln_b, weights.eps);
    pool_and_project(weights, &features, &spans, out);
    Ok(())
}

/// Each text's features summed over its tokens, projected, through the
/// residual network and L2-normalised into its row of `out`.
fn pool_and_project(
    weights: &Weights,
    features: &Array2<f32>,
    spans: &[Span],
    out: &mut [[f32; DIM]],
) {
    let mut sums = Array2::<f32>::zeros((spans.len(), FEATURES));
    for (mut sum, span) in sums.rows_mut().into_iter().zip(spans) {
        for t in span.start..span.start + span.len {
            sum += &features.row(t);
        }
    }
    // The sum over tokens commutes with the linear projection: project the
    // per-text sums, then add each text's share of the bias.
    let mut mean = sums.dot(&weights.cnn_w);
    for (mut row, span) in mean.rows_mut().into_iter().zip(spans) {
        let len = span.len as f32;
        row.scaled_add(len, &weights.cnn_b);
        row *= 1.0 / len.sqrt();
    }
    let y0 = mean.dot(&weights.d0).mapv_into(relu);
    let y1 = (mean.dot(&weights.p1) + y0.dot(&weights.d1)).mapv_into(relu);
    let y2 = y1.dot(&weights.d2).mapv_into(relu);
    let z = (y1.dot(&weights.p3) + y2.dot(&weights.d3)).mapv_into(f32::tanh);
    for (row, target) in z.rows().into_iter().zip(out.iter_mut()) {
        let norm = 1.0 / row.dot(&row).max(weights.eps).sqrt();
        for (value, slot) in row.iter().zip(target.iter_mut()) {
            *slot = value * norm;
        }
    }
}

/// The dequantized embeddings of `pieces`, one row each.
fn embed_pieces(weights: &Weights, table: &Table, pieces: &[u32]) -> Result<Array2<f32>> {
    let mut embeddings = Array2::<f32>::zeros((pieces.len(), DIM));
    let mut packed = [0u8; ROW_BYTES];
    let mut values = [0f32; DIM];
    for (mut row, &id) in embeddings.rows_mut().into_iter().zip(pieces) {
        table.read_row(id, &mut packed)?;
        let chunk = id as usize % CHUNKS;
        table::dequantize(
            &packed,
            weights.scale[chunk],
            weights.lo[chunk],
            &mut values,
        );
        row.assign(&ArrayView1::from(&values[..]));
    }
    Ok(embeddings)
}

/// A convolution's window over each text's tokens: token `t` sees tokens
/// `t - left` … `t - left + order - 1` of its own text; slots outside it
/// see zeros (the per-text zero padding of the model).
struct Window<'a> {
    spans: &'a [Span],
    order: usize,
    left: usize,
}

impl Window<'_> {
    /// `relu(sum of the window's slot products + bias) + residual(t)` for
    /// every token, where `products` holds the slot blocks side by side in
    /// row `row_of(t)` for token `t`.
    fn apply<'r>(
        &self,
        products: &Array2<f32>,
        row_of: impl Fn(usize) -> usize,
        bias: &Array1<f32>,
        residual: impl Fn(usize) -> ArrayView1<'r, f32>,
    ) -> Array2<f32> {
        let total = self.spans.last().map_or(0, |s| s.start + s.len);
        let mut out = Array2::<f32>::zeros((total, CNN_DIM));
        for span in self.spans {
            let end = span.start + span.len;
            for t in span.start..end {
                let mut acc = out.row_mut(t);
                for k in 0..self.order {
                    let Some(source) = (t + k).checked_sub(self.left) else {
                        continue;
                    };
                    if source < span.start || source >= end {
                        continue;
                    }
                    acc += &slot(products.view(), row_of(source), k);
                }
                acc += bias;
                acc.mapv_inplace(relu);
                acc += &residual(t);
            }
        }
        out
    }
}

fn slot(products: ArrayView2<'_, f32>, row: usize, k: usize) -> ArrayView1<'_, f32> {
    let mut slot = products.index_axis_move(Axis(0), row);
    slot.slice_axis_inplace(Axis(0), Slice::from(k * CNN_DIM..(k + 1) * CNN_DIM));
    slot
}

fn relu(v: f32) -> f32 {
    v.max(0.0)
}

/// Layer norm over each row, in place, as the package computes it.
fn layer_norm(x: &mut Array2<f32>, gamma: &Array1<f32>, beta: &Array1<f32>, eps: f32) {
    let width = x.len_of(Axis(1)) as f32;
    for mut row in x.rows_mut() {
        let mean = row.sum() / width;
        row -= mean;
        let variance = row.dot(&row) / width;
        row *= 1.0 / (variance + eps).sqrt();
        row *= gamma;
        row += beta;
    }
}
