//! Near-duplicates: the same fact in other words. Finding them compares no
//! more than a few pairs per record: each record's words (its adjacent
//! word pairs, for a long record) get a MinHash signature, cut into bands;
//! records of one scope and type that share a band's bucket are candidates
//! (LSH), and each candidate pair is judged by [`similar`]'s rules. What
//! to do with the pairs found, joined with exact copies into groups, is
//! [`crate::gather::duplicates`]' to decide.

use std::collections::HashMap;

use crate::gather::duplicates::NearPair;
use crate::gather::similar::{Likeness, near_duplicates};
use crate::gather::terms::{Prepared, mix};
use crate::gather::{Claims, GatherOptions};
use crate::records::DreamRecord;

/// Bands × rows = the signature's length. With 50 bands of 3 rows, a pair
/// whose words are 37.5% alike (the threshold) shares a bucket with
/// probability 0.93, at 50% with 0.998, and at 10% (other facts on one
/// subject) with 0.05.
const BANDS: usize = 50;
const ROWS: usize = 3;
const SIGNATURE_LEN: usize = BANDS * ROWS;

/// A bucket larger than this (templated text) is compared member by member
/// with its first `MAX_BUCKET` members only, so that one crowded bucket
/// cannot make the work quadratic.
const MAX_BUCKET: usize = 64;

/// Each band's bucket key for a record's features (its words, or word
/// pairs when long; see [`Likeness::features`]), one per band: what
/// [`Prepared`] keeps of the signature. Empty for a record without words.
pub(crate) fn band_keys(features: &[u64]) -> Vec<u64> {
    if features.is_empty() {
        return Vec::new();
    }
    let mut signature = [u32::MAX; SIGNATURE_LEN];
    for &feature in features {
        for (slot, (a, b)) in signature.iter_mut().zip(SEEDS.iter()) {
            // Features are already mixed hashes, so each hash function is a
            // multiply-add (odd multiplier): cheap for 100,000 records.
            let h = (feature.wrapping_mul(*a).wrapping_add(*b) >> 32) as u32;
            if h < *slot {
                *slot = h;
            }
        }
    }
    signature
        .chunks(ROWS)
        .enumerate()
        .map(|(band, rows)| {
            rows.iter()
                .fold(mix(band as u64), |acc, &h| mix(acc ^ u64::from(h)))
        })
        .collect()
}

/// One (multiplier, increment) per hash function, fixed so plans are
/// reproducible.
static SEEDS: std::sync::LazyLock<[(u64, u64); SIGNATURE_LEN]> = std::sync::LazyLock::new(|| {
    let mut seeds = [(0, 0); SIGNATURE_LEN];
    for (k, seed) in seeds.iter_mut().enumerate() {
        *seed = (mix(0x5eed_0000 + k as u64) | 1, mix(0x0add_0000 + k as u64));
    }
    seeds
});

/// The near-duplicate pairs among the free records and `also` (one member
/// of each exact group, which stands for its copies), each pair once, in
/// order.
pub(crate) fn find(
    records: &[DreamRecord],
    prepared: &[Prepared],
    also: &[usize],
    options: &GatherOptions,
    claims: &Claims,
) -> Vec<NearPair> {
    let mut compared: Vec<usize> = (0..records.len()).filter(|&i| claims.is_free(i)).collect();
    compared.extend_from_slice(also);
    compared.sort_unstable();
    let candidates = candidates(records, prepared, &compared);
    let mut likeness: HashMap<usize, Likeness> = HashMap::new();
    let mut pairs = Vec::new();
    for (a, b) in candidates {
        for i in [a, b] {
            likeness
                .entry(i)
                .or_insert_with(|| Likeness::of(&records[i]));
        }
        if let Some(score) = near_duplicates(&likeness[&a], &likeness[&b], options.near_threshold) {
            pairs.push(NearPair { a, b, score });
        }
    }
    pairs
}

/// Pairs of `compared` records of one scope and type that share a bucket
/// in some band, each pair once, in order.
fn candidates(
    records: &[DreamRecord],
    prepared: &[Prepared],
    compared: &[usize],
) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let mut buckets: HashMap<u64, Vec<u32>> = HashMap::new();
    for band in 0..BANDS {
        buckets.clear();
        for &i in compared {
            let record = &records[i];
            let (Some(kind), Some(&key)) =
                (record.record.meta.record_type, prepared[i].bands.get(band))
            else {
                continue;
            };
            let key = mix(key ^ ((record.scope as u64) << 8) ^ kind as u64);
            buckets.entry(key).or_default().push(i as u32);
        }
        for bucket in buckets.values().filter(|b| b.len() > 1) {
            for (n, &b) in bucket.iter().enumerate().skip(1) {
                for &a in &bucket[..n.min(MAX_BUCKET)] {
                    pairs.push((a.min(b), a.max(b)));
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
        .into_iter()
        .map(|(a, b)| (a as usize, b as usize))
        .collect()
}
