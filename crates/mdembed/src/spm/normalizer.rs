//! SentencePiece's normalizer: the precompiled character map (`nmt_nfkc`
//! here: NFKC plus a few folds, as a darts-clone double-array trie over
//! UTF-8 bytes with NUL-terminated replacements), then its whitespace rules
//! (drop leading, trailing and repeated spaces, a dummy space in front,
//! spaces written as U+2581). It follows `normalizer.cc` step by step, since
//! the model was trained on exactly that text.

use super::TokenizerSpec;

/// U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's visible space.
pub(crate) const SPACE_SYMBOL: &[u8] = "\u{2581}".as_bytes();
const REPLACEMENT_CHARACTER: &[u8] = "\u{FFFD}".as_bytes();

pub(crate) struct Normalizer {
    /// The double array's units; empty when the model has no character map.
    units: Vec<u32>,
    /// Replacement strings, each ended by a NUL, indexed by a leaf's value.
    replacements: Vec<u8>,
    /// Pieces that pass through unnormalized (`USER_DEFINED`).
    verbatim: Vec<Vec<u8>>,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    escape_whitespaces: bool,
}

impl Normalizer {
    /// The error says what is wrong with the character map.
    pub(crate) fn new(charsmap: &[u8], spec: &TokenizerSpec) -> Result<Normalizer, String> {
        let (units, replacements) = if charsmap.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            let size = charsmap
                .get(..4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                .ok_or("the character map is shorter than its size field")?;
            let trie = charsmap
                .get(4..4 + size)
                .filter(|t| t.len().is_multiple_of(4) && size + 4 < charsmap.len())
                .ok_or("the character map's trie size does not fit the map")?;
            let units = trie
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            (units, charsmap[4 + size..].to_vec())
        };
        Ok(Normalizer {
            units,
            replacements,
            verbatim: spec
                .user_defined
                .iter()
                .map(|s| s.as_bytes().to_vec())
                .collect(),
            add_dummy_prefix: spec.add_dummy_prefix,
            remove_extra_whitespaces: spec.remove_extra_whitespaces,
            escape_whitespaces: spec.escape_whitespaces,
        })
    }

    /// The normalized text (`Normalizer::Normalize`).
    pub(crate) fn normalize(&self, text: &str) -> Vec<u8> {
        let mut input = text.as_bytes();
        let mut out = Vec::with_capacity(input.len() * 3 / 2 + 4);
        if self.remove_extra_whitespaces {
            while !input.is_empty() {
                let (piece, consumed) = self.normalize_prefix(input);
                if piece != b" " {
                    break;
                }
                input = &input[consumed..];
            }
        }
        if input.is_empty() {
            return out;
        }
        let space = if self.escape_whitespaces {
            SPACE_SYMBOL
        } else {
            b" "
        };
        if self.add_dummy_prefix {
            out.extend_from_slice(space);
        }
        let mut is_prev_space = self.remove_extra_whitespaces;
        while !input.is_empty() {
            let (mut piece, consumed) = self.normalize_prefix(input);
            while is_prev_space && piece.first() == Some(&b' ') {
                piece = &piece[1..];
            }
            if let Some(&last) = piece.last() {
                for &byte in piece {
                    if byte == b' ' {
                        out.extend_from_slice(space);
                    } else {
                        out.push(byte);
                    }
                }
                is_prev_space = last == b' ';
            }
            input = &input[consumed..];
            if !self.remove_extra_whitespaces {
                is_prev_space = false;
            }
        }
        if self.remove_extra_whitespaces {
            while out.ends_with(space) {
                out.truncate(out.len() - space.len());
            }
        }
        out
    }

    /// What the start of `input` normalizes to, and how many bytes of it
    /// that consumed (`Normalizer::NormalizePrefix`): a user-defined piece
    /// as it is, else the longest rule of the map, else one character.
    fn normalize_prefix<'a>(&'a self, input: &'a [u8]) -> (&'a [u8], usize) {
        if let Some(longest) = self
            .verbatim
            .iter()
            .filter(|piece| input.starts_with(piece))
            .map(Vec::len)
            .max()
        {
            return (&input[..longest], longest);
        }
        if let Some((length, value)) = self.longest_rule(input)
            && let Some(replacement) = self.replacement(value)
        {
            return (replacement, length);
        }
        match char_len(input) {
            Some(length) => (&input[..length], length),
            None => (REPLACEMENT_CHARACTER, 1),
        }
    }

    /// The longest key of the double array that starts `input`: its length
    /// and value. A unit index out of the array ends the walk (a damaged
    /// map normalizes less; it never reads out of bounds).
    fn longest_rule(&self, input: &[u8]) -> Option<(usize, u32)> {
        let mut best = None;
        let mut node = offset(*self.units.first()?);
        for (i, &byte) in input.iter().enumerate() {
            node ^= byte as usize;
            let unit = *self.units.get(node)?;
            // The label check: a leaf unit has bit 31 set and never matches.
            if unit & 0x8000_00FF != u32::from(byte) {
                break;
            }
            node ^= offset(unit);
            if unit & 0x100 != 0 {
                let leaf = *self.units.get(node)?;
                best = Some((i + 1, leaf & 0x7FFF_FFFF));
            }
        }
        best
    }

    fn replacement(&self, value: u32) -> Option<&[u8]> {
        let rest = self.replacements.get(value as usize..)?;
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        Some(&rest[..end])
    }
}

/// A darts-clone unit's offset to its children.
fn offset(unit: u32) -> usize {
    ((unit >> 10) << ((unit & 0x200) >> 6)) as usize
}

/// The length of a well-formed UTF-8 character at the start of `bytes`.
fn char_len(bytes: &[u8]) -> Option<usize> {
    let lead = *bytes.first()?;
    if lead < 0x80 {
        return Some(1);
    }
    let length = utf8_len(lead);
    let tail = bytes.get(1..length).filter(|_| length > 1)?;
    tail.iter().all(|&b| b & 0xC0 == 0x80).then_some(length)
}

/// SentencePiece's `OneCharLen`: the length a lead byte announces (a stray
/// continuation byte counts as one).
pub(crate) fn utf8_len(lead: u8) -> usize {
    match lead >> 4 {
        0xC | 0xD => 2,
        0xE => 3,
        0xF => 4,
        _ => 1,
    }
}
