//! [`Model`]: the loaded encoder, and how a batch of texts is cut into
//! groups and spread over threads.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::compiled::{self, ModelParts};
use crate::encoder;
use crate::error::{Error, Result};
use crate::source;
use crate::spm::Tokenizer;
use crate::table::Table;
use crate::weights::{DIM, TABLE_ROWS, Weights};

/// A sentence embedding: [`DIM`] values of unit length.
pub type Embedding = [f32; DIM];

/// A text longer than this many bytes is cut (at a character boundary)
/// before it is tokenized, which bounds the work one text can ask for.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;
/// At most this many tokens of a text are embedded, `<s>` and `</s>`
/// included; the rest is dropped.
pub const MAX_TOKENS: usize = 2048;
/// Tokens per group: enough texts that each weight matrix is read once for
/// many tokens and that common pieces repeat within a group, few enough
/// that a group's working set stays near 20 MB.
const GROUP_TOKENS: usize = 2048;

/// The loaded encoder. It is `Sync`: one model serves many threads.
pub struct Model {
    tokenizer: Tokenizer,
    weights: Weights,
    table: Table,
    path: PathBuf,
    threads: usize,
    /// The last text [`Model::embed`] embedded, with its embedding: one
    /// request asks for its prompt's several times (each store's search,
    /// the judgement against the background), and encoding it costs
    /// milliseconds each time, where this costs a comparison.
    last: Mutex<Option<(String, Embedding)>>,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Model {
    /// Loads the model from `path`: an installed model (the folder
    /// [`crate::install_from_file`] wrote, or its model file), which loads
    /// in milliseconds, or the registry package itself (its wheel, or a
    /// folder it was unpacked into), which is checked and unpacked first.
    pub fn open(path: &Path) -> Result<Model> {
        let installed = path.join(crate::install::MODEL_FILE);
        let parts = if path.is_dir() && installed.is_file() {
            compiled::read(&installed)?
        } else if path.is_file() && compiled::is_compiled(path) {
            compiled::read(path)?
        } else {
            ModelParts::from_source(source::read(path)?)?
        };
        let at = match &parts.table {
            Table::File { path, .. } | Table::Memory { path, .. } => path.clone(),
        };
        Model::from_parts(parts, &at)
    }

    pub(crate) fn from_parts(parts: ModelParts, path: &Path) -> Result<Model> {
        let tokenizer =
            Tokenizer::new(parts.tokenizer).map_err(|e| Error::format(path, "tokenizer", e))?;
        if tokenizer.vocabulary_size() > TABLE_ROWS {
            return Err(Error::format(
                path,
                "tokenizer",
                "more pieces than table rows",
            ));
        }
        let weights =
            Weights::from_dense(parts.dense).map_err(|e| Error::format(path, "weights", e))?;
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        Ok(Model {
            tokenizer,
            weights,
            table: parts.table,
            path: path.to_path_buf(),
            threads,
            last: Mutex::new(None),
        })
    }

    /// The file the model was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// At most `threads` threads for a batch (at least one; the default is
    /// the machine's parallelism).
    pub fn with_threads(mut self, threads: usize) -> Model {
        self.threads = threads.max(1);
        self
    }

    /// The piece ids the model sees for `text`: `<s>`, its pieces, `</s>`,
    /// after the length limits ([`MAX_TEXT_BYTES`], [`MAX_TOKENS`]).
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        let mut cut = text.len().min(MAX_TEXT_BYTES);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut ids = self.tokenizer.encode(&text[..cut]);
        if ids.len() > MAX_TOKENS {
            let eos = ids[ids.len() - 1];
            ids.truncate(MAX_TOKENS - 1);
            ids.push(eos);
        }
        ids
    }

    /// The embedding of one text. The same text asked again gets the
    /// embedding kept from the last call, the same bit for bit.
    pub fn embed(&self, text: &str) -> Result<Embedding> {
        if let Some(kept) = self.kept(text) {
            return Ok(kept);
        }
        let mut out = [[0f32; DIM]];
        encoder::encode_group(&self.weights, &self.table, &[self.tokenize(text)], &mut out)?;
        // A poisoned lock only means another thread panicked mid-write:
        // the cache is then not used, nothing else is lost.
        if let Ok(mut last) = self.last.lock() {
            *last = Some((text.to_string(), out[0]));
        }
        Ok(out[0])
    }

    /// The embedding kept from the last [`Model::embed`], if it was of `text`.
    fn kept(&self, text: &str) -> Option<Embedding> {
        let last = self.last.lock().ok()?;
        let (kept_text, vector) = last.as_ref()?;
        (kept_text == text).then_some(*vector)
    }

    /// The embeddings of many texts, in order. Each text's embedding is the
    /// same, bit for bit, as [`Model::embed`] gives it alone: no value
    /// depends on the other texts of the batch.
    pub fn embed_batch<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Result<Vec<Embedding>> {
        let tokens = self.tokenize_all(texts);
        let groups = groups(&tokens);
        let next = AtomicUsize::new(0);
        let done = Mutex::new(Vec::with_capacity(groups.len()));
        let work = || -> Result<()> {
            loop {
                let g = next.fetch_add(1, Ordering::Relaxed);
                let Some(range) = groups.get(g) else {
                    return Ok(());
                };
                let mut out = vec![[0f32; DIM]; range.len()];
                encoder::encode_group(
                    &self.weights,
                    &self.table,
                    &tokens[range.clone()],
                    &mut out,
                )?;
                done.lock()
                    .map_err(|_| Error::format(&self.path, "", "a worker thread failed"))?
                    .push((g, out));
            }
        };
        let workers = self.threads.min(groups.len());
        if workers <= 1 {
            work()?;
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..workers).map(|_| scope.spawn(work)).collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err(worker_panicked(&self.path)))
                    })
                    .collect::<Result<Vec<()>>>()
            })?;
        }
        let mut done = done.into_inner().map_err(|_| worker_panicked(&self.path))?;
        done.sort_unstable_by_key(|(g, _)| *g);
        Ok(done.into_iter().flat_map(|(_, out)| out).collect())
    }

    /// Tokenizes `texts` on up to [`Model::with_threads`] threads.
    fn tokenize_all<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Vec<Vec<u32>> {
        let workers = self.threads.min(texts.len() / 64).max(1);
        if workers == 1 {
            return texts.iter().map(|t| self.tokenize(t.as_ref())).collect();
        }
        let per = texts.len().div_ceil(workers);
        std::thread::scope(|scope| {
            let handles: Vec<_> = texts
                .chunks(per)
                .map(|chunk| {
                    scope.spawn(move || {
                        chunk
                            .iter()
                            .map(|t| self.tokenize(t.as_ref()))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| match h.join() {
                    Ok(ids) => ids,
                    // Tokenizing does not panic; should it, the panic is
                    // the caller's, not hidden here.
                    Err(panic) => std::panic::resume_unwind(panic),
                })
                .collect()
        })
    }
}

fn worker_panicked(path: &Path) -> Error {
    Error::format(path, "", "a worker thread panicked")
}

/// Consecutive texts in groups of about [`GROUP_TOKENS`] tokens (a longer
/// text is a group of its own).
fn groups(tokens: &[Vec<u32>]) -> Vec<std::ops::Range<usize>> {
    let mut groups = Vec::new();
    let (mut start, mut count) = (0, 0);
    for (i, ids) in tokens.iter().enumerate() {
        if i > start && count + ids.len() > GROUP_TOKENS {
            groups.push(start..i);
            (start, count) = (i, 0);
        }
        count += ids.len();
    }
    if start < tokens.len() {
        groups.push(start..tokens.len());
    }
    groups
}

/// The cosine similarity of two embeddings (their dot product, since both
/// have unit length).
pub fn cosine(a: &Embedding, b: &Embedding) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
