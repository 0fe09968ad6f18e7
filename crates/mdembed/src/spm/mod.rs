//! The SentencePiece unigram tokenizer of the model, in Rust: its `.model`
//! file read with `prost`, the vocabulary kept as an `fst` map (piece bytes
//! to id) so that a compiled model loads it with one read and no building,
//! the normalizer, and the Viterbi search of `unigram_model.cc`
//! (`EncodeOptimized`), then the merging of runs of unknown pieces that
//! `SentencePieceProcessor::Encode` does. No pure-Rust crate that reads
//! `.model` files is widely used yet (docs/EMBEDDINGS.md).

mod normalizer;
mod proto;

use prost::Message as _;
use serde::{Deserialize, Serialize};

use normalizer::Normalizer;

/// The piece kinds of `ModelProto.SentencePiece.Type`.
const NORMAL: u8 = 1;
const UNKNOWN: u8 = 2;
const CONTROL: u8 = 3;
const USER_DEFINED: u8 = 4;
const BYTE: u8 = 6;

/// `kUnkPenalty`: an unknown character scores this far below the rarest piece.
const UNKNOWN_PENALTY: f32 = 10.0;

/// The settings of a tokenizer besides its arrays (kept in a compiled
/// model's manifest).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct TokenizerSpec {
    pub unk_id: u32,
    pub bos_id: u32,
    pub eos_id: u32,
    pub add_dummy_prefix: bool,
    pub remove_extra_whitespaces: bool,
    pub escape_whitespaces: bool,
    /// The `USER_DEFINED` pieces, which the normalizer leaves as they are.
    pub user_defined: Vec<String>,
}

/// Everything a [`Tokenizer`] is made of, as stored in a compiled model.
pub(crate) struct TokenizerParts {
    /// An `fst` map from piece bytes to id: the pieces Viterbi may use
    /// (`NORMAL` and `USER_DEFINED`; never control, unknown or unused ones).
    pub trie: Vec<u8>,
    pub scores: Vec<f32>,
    pub kinds: Vec<u8>,
    /// `NormalizerSpec.precompiled_charsmap`.
    pub charsmap: Vec<u8>,
    pub spec: TokenizerSpec,
}

impl TokenizerParts {
    /// Reads a SentencePiece `.model` file; the error says what is wrong.
    pub(crate) fn from_sentencepiece(bytes: &[u8]) -> Result<TokenizerParts, String> {
        let model = proto::ModelProto::decode(bytes)
            .map_err(|e| format!("not a SentencePiece model: {e}"))?;
        let trainer = model.trainer_spec.unwrap_or_default();
        if trainer.model_type.unwrap_or(1) != 1 {
            return Err("not a unigram SentencePiece model".into());
        }
        if trainer.byte_fallback.unwrap_or(false)
            || trainer.treat_whitespace_as_suffix.unwrap_or(false)
        {
            return Err("byte fallback and whitespace-as-suffix are not supported".into());
        }
        let normalizer = model.normalizer_spec.unwrap_or_default();
        let mut keyed = Vec::new();
        let (mut scores, mut kinds) = (Vec::new(), Vec::new());
        let mut spec = TokenizerSpec {
            unk_id: u32::MAX,
            bos_id: u32::MAX,
            eos_id: u32::MAX,
            add_dummy_prefix: normalizer.add_dummy_prefix.unwrap_or(true),
            remove_extra_whitespaces: normalizer.remove_extra_whitespaces.unwrap_or(true),
            escape_whitespaces: normalizer.escape_whitespaces.unwrap_or(true),
            user_defined: Vec::new(),
        };
        for (id, piece) in model.pieces.into_iter().enumerate() {
            let id = u32::try_from(id).map_err(|_| "too many pieces")?;
            let text = piece.piece.unwrap_or_default();
            let kind = u8::try_from(piece.kind.unwrap_or(1))
                .ok()
                .filter(|k| (NORMAL..=BYTE).contains(k))
                .ok_or_else(|| format!("piece {id} has an unknown type"))?;
            match (kind, text.as_str()) {
                (UNKNOWN, _) => spec.unk_id = id,
                (CONTROL, "<s>") => spec.bos_id = id,
                (CONTROL, "</s>") => spec.eos_id = id,
                (USER_DEFINED, _) => spec.user_defined.push(text.clone()),
                _ => {}
            }
            if matches!(kind, NORMAL | USER_DEFINED) {
                keyed.push((text.into_bytes(), id));
            }
            scores.push(piece.score.unwrap_or(0.0));
            kinds.push(kind);
        }
        keyed.sort_unstable();
        if let Some(pair) = keyed.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(format!(
                "piece {:?} is defined twice",
                String::from_utf8_lossy(&pair[0].0)
            ));
        }
        let trie = fst::Map::from_iter(keyed.into_iter().map(|(k, id)| (k, u64::from(id))))
            .map_err(|e| format!("the vocabulary does not make a trie: {e}"))?;
        Ok(TokenizerParts {
            trie: trie.into_fst().into_inner(),
            scores,
            kinds,
            charsmap: normalizer.precompiled_charsmap.unwrap_or_default(),
            spec,
        })
    }
}

/// The tokenizer: text to piece ids, `<s>` and `</s>` around them.
pub(crate) struct Tokenizer {
    trie: fst::Map<Vec<u8>>,
    scores: Vec<f32>,
    kinds: Vec<u8>,
    normalizer: Normalizer,
    spec: TokenizerSpec,
    unknown_score: f32,
    /// `max_score_` of `unigram_model.cc`: the best `NORMAL` score, but never
    /// below `FLT_MIN` (its starting value there), which sets the bonus of
    /// user-defined pieces.
    max_score: f32,
}

impl Tokenizer {
    /// Checks the parts against each other; the error says what is wrong.
    pub(crate) fn new(parts: TokenizerParts) -> Result<Tokenizer, String> {
        let n = parts.scores.len();
        if parts.kinds.len() != n || n == 0 {
            return Err(format!("{n} scores but {} piece types", parts.kinds.len()));
        }
        if parts.scores.iter().any(|s| !s.is_finite()) {
            return Err("a piece score is not a finite number".into());
        }
        let kind_of = |id: u32| parts.kinds.get(id as usize).copied();
        let spec = &parts.spec;
        if kind_of(spec.unk_id) != Some(UNKNOWN)
            || kind_of(spec.bos_id) != Some(CONTROL)
            || kind_of(spec.eos_id) != Some(CONTROL)
        {
            return Err("the model lacks <unk>, <s> or </s>".into());
        }
        let trie = fst::Map::new(parts.trie).map_err(|e| format!("the piece trie: {e}"))?;
        trie.as_fst()
            .verify()
            .map_err(|e| format!("the piece trie: {e}"))?;
        let normal = || {
            parts
                .scores
                .iter()
                .zip(&parts.kinds)
                .filter(|(_, k)| **k == NORMAL)
        };
        let min_score = normal().map(|(s, _)| *s).fold(f32::MAX, f32::min);
        let max_score = normal().map(|(s, _)| *s).fold(f32::MIN_POSITIVE, f32::max);
        let normalizer = Normalizer::new(&parts.charsmap, &parts.spec)?;
        Ok(Tokenizer {
            trie,
            scores: parts.scores,
            kinds: parts.kinds,
            normalizer,
            spec: parts.spec,
            unknown_score: min_score - UNKNOWN_PENALTY,
            max_score,
        })
    }

    /// The ids of `text`: `<s>`, its pieces, `</s>`.
    pub(crate) fn encode(&self, text: &str) -> Vec<u32> {
        let normalized = self.normalizer.normalize(text);
        let mut ids = Vec::with_capacity(normalized.len() / 3 + 2);
        ids.push(self.spec.bos_id);
        for id in self.viterbi(&normalized) {
            // SentencePieceProcessor merges a run of unknown pieces into one.
            if id == self.spec.unk_id && ids.last() == Some(&id) {
                continue;
            }
            ids.push(id);
        }
        ids.push(self.spec.eos_id);
        ids
    }

    /// The best segmentation of normalized text, as ids. Ties keep the
    /// first candidate found, as `EncodeOptimized` does: starts from left
    /// to right, each start's pieces from short to long.
    fn viterbi(&self, text: &[u8]) -> Vec<u32> {
        #[derive(Clone, Copy)]
        struct Best {
            score: f32,
            start: usize,
            id: u32,
            set: bool,
        }
        let unset = Best {
            score: 0.0,
            start: 0,
            id: 0,
            set: false,
        };
        let mut best = vec![unset; text.len() + 1];
        let fst = self.trie.as_fst();
        let mut start = 0;
        while start < text.len() {
            let here = best[start].score;
            let char_len = normalizer::utf8_len(text[start]).min(text.len() - start);
            let mut offer = |end: usize, id: u32, score: f32| {
                let candidate = score + here;
                let target = &mut best[end];
                if !target.set || candidate > target.score {
                    *target = Best {
                        score: candidate,
                        start,
                        id,
                        set: true,
                    };
                }
            };
            let mut has_single = false;
            let mut node = fst.root();
            let mut output = fst::raw::Output::zero();
            for (i, &byte) in text[start..].iter().enumerate() {
                let Some(index) = node.find_input(byte) else {
                    break;
                };
                let transition = node.transition(index);
                output = output.cat(transition.out);
                node = fst.node(transition.addr);
                // A trie naming an id that is no usable piece (a damaged
                // model) loses that piece; it never indexes out of bounds.
                let length = i + 1;
                if let Some((id, score)) = node
                    .is_final()
                    .then(|| u32::try_from(output.cat(node.final_output()).value()).ok())
                    .flatten()
                    .and_then(|id| Some((id, self.piece_score(id, length)?)))
                {
                    offer(start + length, id, score);
                    has_single |= length == char_len;
                }
            }
            if !has_single {
                offer(start + char_len, self.spec.unk_id, self.unknown_score);
            }
            start += char_len;
        }
        let mut ids = Vec::new();
        let mut end = text.len();
        while end > 0 {
            ids.push(best[end].id);
            end = best[end].start;
        }
        ids.reverse();
        ids
    }

    /// A piece's score; a user-defined one gets the bonus that makes it win
    /// (`length * max_score_ - 0.1`, the length in bytes). `None` for an id
    /// that is no normal or user-defined piece.
    fn piece_score(&self, id: u32, length: usize) -> Option<f32> {
        let id = id as usize;
        match *self.kinds.get(id)? {
            USER_DEFINED => Some(length as f32 * self.max_score - 0.1),
            NORMAL => self.scores.get(id).copied(),
            _ => None,
        }
    }

    /// The number of pieces (the vocabulary size).
    pub(crate) fn vocabulary_size(&self) -> usize {
        self.scores.len()
    }
}
