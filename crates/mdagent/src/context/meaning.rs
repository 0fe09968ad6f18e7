//! Whether a prompt deserves any record, judged with the sentence encoder
//! when semantic matching is on (issue 24): how close the prompt comes to
//! the store's records, set against how close it comes to the background
//! of ordinary coding requests that no memory should answer
//! (`data/background/`, shipped in the binary), beside whether the words
//! alone pass (`mdindex::relevance`). What passes shows the ranking of
//! words and meaning fused, as `search` does; what does not shows nothing.
//! Without the model, the words alone decide (`choose`).
//!
//! The combination ([`GATE`]) is a logistic regression fitted only on the
//! tuning sets (docs/CONTEXT.md, "Issue 24: the encoder"; the bench's
//! `encoder_eval`), its threshold the quietest that keeps hit@5 within
//! 0.03 of `search --limit 5`'s on each of them.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mdembed::{DIM, Embedding, Model};
use mdindex::semantic::VECTORS_VERSION;

/// The background requests as build.rs packs them from
/// `data/background/*.json`: the texts alone, NUL-separated, deflated.
const BACKGROUND: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/background.deflate"));

/// The background's best cosines that the gate reads: the first, the
/// mean of the first three and of the first ten.
const BACKGROUND_DEPTH: usize = 10;

/// The fitted combination, on the raw features: a prompt passes when the
/// sum of each feature times its weight, plus `bias`, is at least 0
/// (`words` is 1 when the words alone pass). The weights are the logistic
/// regression's divided by each feature's spread on the tuning sets, its
/// bias and threshold folded in (`encoder_eval` prints the fit).
pub struct Gate {
    pub closest: f32,
    pub top1: f32,
    pub mean3: f32,
    pub mean10: f32,
    pub words: f32,
    pub bias: f32,
}

pub const GATE: Gate = Gate {
    closest: 10.152768,
    top1: -1.789136,
    mean3: -3.917644,
    mean10: -6.805331,
    words: 1.589866,
    bias: 0.999809,
};

impl Gate {
    /// Whether a prompt whose best cosine to the records is `closest`,
    /// whose best cosines to the background are `background` (best first)
    /// and whose words pass or not (`words`) deserves records.
    pub fn passes(&self, closest: f32, background: &[f32], words: bool) -> bool {
        let mean = |k: usize| {
            let k = k.min(background.len()).max(1);
            background.iter().take(k).sum::<f32>() / k as f32
        };
        let top1 = background.first().copied().unwrap_or(0.0);
        let score = closest * self.closest
            + top1 * self.top1
            + mean(3) * self.mean3
            + mean(10) * self.mean10
            + f32::from(u8::from(words)) * self.words
            + self.bias;
        score >= 0.0
    }
}

/// The background's texts, in build.rs's order (a test checks that it
/// holds every request of the JSON files).
pub fn background_texts() -> Vec<String> {
    let mut packed = String::new();
    // Packed at build time from the repository's own files: it cannot
    // fail but by a broken build, and then no background is the answer.
    if flate2::read::DeflateDecoder::new(BACKGROUND)
        .read_to_string(&mut packed)
        .is_err()
    {
        return Vec::new();
    }
    packed.split_terminator('\0').map(str::to_string).collect()
}

/// The prompt's best cosines to the background, best first, at most
/// [`BACKGROUND_DEPTH`].
pub fn to_background(prompt: &Embedding, background: &[Embedding]) -> Vec<f32> {
    let mut cosines: Vec<f32> = background
        .iter()
        .map(|b| mdembed::cosine(prompt, b))
        .collect();
    cosines.sort_by(|a, b| b.total_cmp(a));
    cosines.truncate(BACKGROUND_DEPTH);
    cosines
}

/// How long one request may spend embedding the background before the
/// words decide for it: the first prompt after the model is turned on also
/// embeds the records that have no vector, and an agent kills a hook at its
/// timeout (10 s as `memctl setup` writes it). Embedding all 1,214 requests
/// at once took longer than that on two cores, and a hook killed before the
/// end kept nothing, so every later prompt started again (a review found
/// it). What is embedded is kept after each chunk, so a few prompts finish it.
pub const HOOK_BACKGROUND_BUDGET: Duration = Duration::from_secs(3);
/// Requests embedded between two saves.
const BACKGROUND_CHUNK: usize = 64;

/// The background's vectors: read from the cache folder, or embedded
/// (1,214 requests) and kept there. The file's name says which model and
/// which background made it, so another of either makes it again; a file
/// of the wrong size or holding a vector the model could not have made
/// (the cache is derived data anything can write) is made again too, and
/// none is read through a link or past its expected size. While it is
/// being made, at most `budget` a call (none: until done), the answer is
/// an error that says how far it got: the words decide that prompt.
pub fn background_vectors(
    model: &Model,
    cache_dir: &Path,
    budget: Option<Duration>,
) -> Result<Vec<Embedding>, String> {
    let deadline = budget.map(|budget| Instant::now() + budget);
    let embed = |chunk: &[String]| {
        model
            .embed_batch(chunk)
            .map_err(|e| format!("cannot embed the background requests: {e}"))
    };
    build_background(&background_texts(), cache_dir, &embed, &|| {
        deadline.is_some_and(|deadline| Instant::now() >= deadline)
    })
}

type Embedder<'a> = dyn Fn(&[String]) -> Result<Vec<Embedding>, String> + 'a;

/// [`background_vectors`] with its embedder and its clock given, so that
/// tests need no model: `out_of_time` is asked after each chunk.
fn build_background(
    texts: &[String],
    cache_dir: &Path,
    embed: &Embedder<'_>,
    out_of_time: &dyn Fn() -> bool,
) -> Result<Vec<Embedding>, String> {
    let path = cache_path(cache_dir, texts);
    let whole = texts.len() * DIM * 4;
    if let Some(vectors) = read_bounded(&path, whole).and_then(|b| from_bytes(&b, texts.len())) {
        return Ok(vectors);
    }
    let partial = path.with_extension("partial");
    let mut vectors = read_bounded(&partial, whole)
        .filter(|bytes| bytes.len() % (DIM * 4) == 0 && bytes.len() < whole)
        .and_then(|bytes| from_bytes(&bytes, bytes.len() / (DIM * 4)))
        .unwrap_or_default();
    while vectors.len() < texts.len() {
        let end = (vectors.len() + BACKGROUND_CHUNK).min(texts.len());
        vectors.extend(embed(&texts[vectors.len()..end])?);
        if vectors.len() < texts.len() {
            // A cache that cannot be written costs the embedding again
            // next time, nothing else.
            let _ = write_atomically(&partial, &to_bytes(&vectors));
            if out_of_time() {
                return Err(format!(
                    "the background of ordinary requests is being embedded ({} of {}); the words decide until it is done",
                    vectors.len(),
                    texts.len()
                ));
            }
        }
    }
    let _ = write_atomically(&path, &to_bytes(&vectors));
    let _ = std::fs::remove_file(&partial);
    Ok(vectors)
}

/// The bytes of a cache file of at most `max` bytes: none for a link, a
/// pipe, a larger file or one that cannot be read.
fn read_bounded(path: &Path, max: usize) -> Option<Vec<u8>> {
    mdstore::untrusted::read(path, max as u64).ok().flatten()
}

/// `CACHE/background/<hash of the model's version and the texts>.f32`.
fn cache_path(cache_dir: &Path, texts: &[String]) -> PathBuf {
    let mut hasher = blake3::Hasher::new();
    hasher.update(VECTORS_VERSION.as_bytes());
    for text in texts {
        hasher.update(&(text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
    }
    let hex = hasher.finalize().to_hex();
    cache_dir
        .join("background")
        .join(format!("{}.f32", &hex.as_str()[..32]))
}

fn to_bytes(vectors: &[Embedding]) -> Vec<u8> {
    vectors
        .iter()
        .flat_map(|v| v.iter().flat_map(|x| x.to_le_bytes()))
        .collect()
}

/// The vectors in `bytes`, when there are `count` of them, each finite
/// and of unit length.
fn from_bytes(bytes: &[u8], count: usize) -> Option<Vec<Embedding>> {
    if bytes.len() != count * DIM * 4 {
        return None;
    }
    let mut vectors = Vec::with_capacity(count);
    for chunk in bytes.chunks_exact(DIM * 4) {
        let mut vector = [0f32; DIM];
        for (value, four) in vector.iter_mut().zip(chunk.chunks_exact(4)) {
            *value = f32::from_le_bytes([four[0], four[1], four[2], four[3]]);
        }
        let norm = mdembed::cosine(&vector, &vector);
        if !norm.is_finite() || (norm - 1.0).abs() > 0.01 {
            return None;
        }
        vectors.push(vector);
    }
    Some(vectors)
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(bytes)?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_background_parses_to_every_request() {
        let texts = background_texts();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/background");
        let mut in_files = Vec::new();
        for name in ["en", "zh", "ja", "ko", "mixed"] {
            let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
            let items: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
            in_files.extend(
                items
                    .iter()
                    .map(|i| i["text"].as_str().unwrap().to_string()),
            );
        }
        assert_eq!(texts, in_files);
        assert!(texts.len() >= 1_200, "{}", texts.len());
        assert!(texts.iter().all(|t| !t.trim().is_empty()));
    }

    fn unit(i: usize) -> Embedding {
        let mut v = [0f32; DIM];
        v[i % DIM] = 1.0;
        v
    }

    /// A hook killed at its timeout kept nothing of the background, so
    /// every prompt began it again: it is kept chunk by chunk, a call that
    /// runs out of time says how far it got, and the next goes on from there.
    #[test]
    fn the_background_is_embedded_a_chunk_at_a_time_and_kept_between_prompts() {
        let cache = tempfile::tempdir().unwrap();
        let texts: Vec<String> = (0..150).map(|i| format!("request {i}")).collect();
        let embedded = std::cell::Cell::new(0);
        let embed = |chunk: &[String]| {
            embedded.set(embedded.get() + chunk.len());
            Ok(chunk.iter().map(|t| unit(t.len())).collect())
        };
        let first = build_background(&texts, cache.path(), &embed, &|| true);
        let why = first.unwrap_err();
        assert!(why.contains("64 of 150"), "{why}");
        let second = build_background(&texts, cache.path(), &embed, &|| true);
        assert!(second.unwrap_err().contains("128 of 150"));
        let third = build_background(&texts, cache.path(), &embed, &|| true).unwrap();
        assert_eq!(third.len(), 150);
        assert_eq!(embedded.get(), 150, "nothing was embedded twice");
        let again = build_background(&texts, cache.path(), &embed, &|| true).unwrap();
        assert_eq!(again.len(), 150);
        assert_eq!(
            embedded.get(),
            150,
            "the whole file is read, not made again"
        );
        let partials = std::fs::read_dir(cache.path().join("background"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "partial")
            })
            .count();
        assert_eq!(partials, 0, "the partial file is gone once done");
    }

    #[cfg(unix)]
    #[test]
    fn a_background_cache_that_is_a_link_or_too_large_is_not_read() {
        let cache = tempfile::tempdir().unwrap();
        let texts: Vec<String> = (0..3).map(|i| format!("r{i}")).collect();
        let path = cache_path(cache.path(), &texts);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let embed = |chunk: &[String]| Ok(chunk.iter().map(|t| unit(t.len())).collect());
        let made = build_background(&texts, cache.path(), &embed, &|| false).unwrap();
        assert_eq!(made.len(), 3);
    }

    #[test]
    fn a_damaged_background_cache_is_refused() {
        let mut v = [0f32; DIM];
        v[0] = 1.0;
        let bytes = to_bytes(&[v, v]);
        assert_eq!(from_bytes(&bytes, 2).map(|v| v.len()), Some(2));
        assert!(from_bytes(&bytes, 3).is_none(), "wrong count");
        assert!(
            from_bytes(&bytes[..bytes.len() - 1], 2).is_none(),
            "cut short"
        );
        let mut nan = bytes.clone();
        nan[..4].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(from_bytes(&nan, 2).is_none(), "not finite");
        let mut long = bytes;
        long[..4].copy_from_slice(&2f32.to_le_bytes());
        assert!(from_bytes(&long, 2).is_none(), "not of unit length");
    }

    #[test]
    fn the_gate_weighs_closeness_to_the_records_against_the_background() {
        let ordinary = [0.6, 0.55, 0.5, 0.5, 0.48, 0.45, 0.45, 0.44, 0.42, 0.4];
        assert!(
            !GATE.passes(0.25, &ordinary, true),
            "close to ordinary requests"
        );
        assert!(GATE.passes(0.6, &ordinary, true), "closer to a record");
        let unusual = [0.3, 0.28, 0.27, 0.25, 0.25, 0.24, 0.22, 0.2, 0.2, 0.2];
        assert!(
            GATE.passes(0.35, &unusual, true),
            "far from ordinary requests"
        );
    }
}
