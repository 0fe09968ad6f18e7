//! Near-duplicates: the same fact in other words. Finding them compares no
//! more than a few pairs per record: each record's words (its adjacent
//! word pairs, for a long record) get a MinHash signature, cut into bands;
//! records of one scope and type that share a band's bucket are candidates
//! (LSH), and each candidate pair is judged by [`similar`]'s rules. What
//! to do with the pairs found, joined with exact copies into groups, is
//! [`crate::gather::duplicates`]' to decide.

use std::collections::{BTreeMap, HashMap};

use crate::gather::duplicates::NearPair;
use crate::gather::similar::{Likeness, Screen, may_be_near, near_duplicates};
use crate::gather::terms::{mix, screen_of};
use crate::gather::{Claims, GatherOptions, in_parallel};
use crate::records::DreamRecord;

/// A record is signed twice. Its rare features (see [`RARE_IN_AT_MOST`]) get
/// [`RARE_BANDS`] bands of [`RARE_ROWS`] rows: a pair whose rare words are
/// 37.5% alike (the threshold) shares a bucket with probability 0.93, at
/// 50% with 0.998, at 10% with 0.05. All its features get [`ALL_BANDS`]
/// bands of [`ALL_ROWS`] rows, where only records nearly word for word
/// alike meet (90% alike: probability 0.97; 80%: 0.89; 40%: 0.008): a copy
/// with a line added is found even when its rare words differ.
const RARE_BANDS: usize = 50;
const RARE_ROWS: usize = 3;
const ALL_BANDS: usize = 12;
const ALL_ROWS: usize = 8;
const BANDS: usize = RARE_BANDS + ALL_BANDS;
const SIGNATURE_LEN: usize = RARE_BANDS * RARE_ROWS + ALL_BANDS * ALL_ROWS;

/// A band key that puts a record in no bucket (a record without rare
/// features); real keys are never 0.
const NO_BUCKET: u64 = 0;

/// A bucket larger than this (templated text) is compared member by member
/// with its first `MAX_BUCKET` members only, so that one crowded bucket
/// cannot make the work quadratic.
const MAX_BUCKET: usize = 64;

/// A feature (a word, or a word pair) in more records than this says
/// little of which fact a record holds ("run", "before", "always", a common
/// number): in the rare bands it would fill buckets with records that only
/// share a subject, and the pairs to judge would grow with the square of
/// the store. A fixed count, so that they grow with the store instead.
const RARE_IN_AT_MOST: u32 = 64;

/// A long record's word pairs are sampled (those whose hash is a multiple
/// of [`SAMPLE_EVERY`], the same pairs in every record, so that Jaccard is
/// kept) once it has more than [`SAMPLED_FROM`]: its signature costs and
/// weighs less.
const SAMPLED_FROM: usize = 64;
const SAMPLE_EVERY: u64 = 4;

/// The features a record is signed by.
pub(crate) fn signed_features(features: &[u64]) -> Vec<u64> {
    if features.len() <= SAMPLED_FROM {
        return features.to_vec();
    }
    features
        .iter()
        .copied()
        .filter(|h| h % SAMPLE_EVERY == 0)
        .collect()
}

/// A record's bucket in each band; [`NO_BUCKET`] in every band for a
/// record without features. Inline, one flat vector for the store: no
/// allocation of its own per record (issue 29).
pub(crate) type Bands = [u64; BANDS];

/// Every record's band keys ([`band_keys`]), on every core. A record's
/// features are dropped as soon as its bands are made, so that the two
/// are not both held whole (issue 29: this is where gathering's memory
/// peaks).
pub(crate) fn band_keys_all(mut features: Vec<Vec<u64>>) -> Vec<Bands> {
    let mut records_with: HashMap<u64, u32> = HashMap::new();
    for f in &features {
        for &h in f {
            *records_with.entry(h).or_default() += 1;
        }
    }
    let mut keys = vec![[NO_BUCKET; BANDS]; features.len()];
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = features.len().div_ceil(threads).max(1);
    let records_with = &records_with;
    std::thread::scope(|scope| {
        for (features, keys) in features.chunks_mut(chunk).zip(keys.chunks_mut(chunk)) {
            scope.spawn(move || {
                for (f, keys) in features.iter_mut().zip(keys) {
                    let f = std::mem::take(f);
                    let rare: Vec<u64> = f
                        .iter()
                        .copied()
                        .filter(|h| records_with.get(h).is_some_and(|&n| n <= RARE_IN_AT_MOST))
                        .collect();
                    band_keys(&rare, &f, keys);
                }
            });
        }
    });
    keys
}

/// A record's bucket in each band: [`RARE_BANDS`] from the MinHash
/// signature of its `rare` features, then [`ALL_BANDS`] from that of `all`.
/// Left [`NO_BUCKET`] for a record without features.
fn band_keys(rare: &[u64], all: &[u64], keys: &mut Bands) {
    if all.is_empty() {
        return;
    }
    let (rare_seeds, all_seeds) = SEEDS.split_at(RARE_BANDS * RARE_ROWS);
    let (rare_keys, all_keys) = keys.split_at_mut(RARE_BANDS);
    bands_of(rare, rare_seeds, RARE_ROWS, 0, rare_keys);
    bands_of(all, all_seeds, ALL_ROWS, RARE_BANDS, all_keys);
}

/// Sets `keys` to the bands of the MinHash signature of `features` under
/// `seeds`, `rows` hash functions each, numbered from `first`.
fn bands_of(features: &[u64], seeds: &[(u64, u64)], rows: usize, first: usize, keys: &mut [u64]) {
    if features.is_empty() {
        keys.fill(NO_BUCKET);
        return;
    }
    let mut signature = vec![u32::MAX; seeds.len()];
    for &feature in features {
        for (slot, (a, b)) in signature.iter_mut().zip(seeds) {
            // Features are already mixed hashes, so each hash function is a
            // multiply-add (odd multiplier): cheap for 100,000 records.
            let h = (feature.wrapping_mul(*a).wrapping_add(*b) >> 32) as u32;
            if h < *slot {
                *slot = h;
            }
        }
    }
    for (key, (band, rows)) in keys.iter_mut().zip(signature.chunks(rows).enumerate()) {
        let hashed = rows.iter().fold(
            mix((first + band) as u64),
            |acc, &h| mix(acc ^ u64::from(h)),
        );
        *key = hashed.max(1);
    }
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
    bands: Vec<Bands>,
    also: &[usize],
    options: &GatherOptions,
    claims: &Claims,
) -> Vec<NearPair> {
    let mut compared: Vec<usize> = (0..records.len()).filter(|&i| claims.is_free(i)).collect();
    compared.extend_from_slice(also);
    compared.sort_unstable();
    let candidates = candidates(records, &bands, &compared);
    drop(bands);
    let screens = screens(records, &candidates);
    // Judged on every core, each taking a run of first records.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut parts: Vec<&[(usize, usize)]> = Vec::new();
    let mut rest = &candidates[..];
    while !rest.is_empty() {
        let mut end = rest.len().min(rest.len().div_ceil(threads).max(1 << 12));
        while end < rest.len() && rest[end].0 == rest[end - 1].0 {
            end += 1;
        }
        let (part, tail) = rest.split_at(end);
        parts.push(part);
        rest = tail;
    }
    in_parallel(&parts, |part| {
        judge(records, &screens, part, options.near_threshold)
    })
    .into_iter()
    .flatten()
    .collect()
}

/// The [`Screen`] of each record in some candidate pair, by record (sorted).
/// Made here rather than kept from [`crate::gather::terms::prepare_all`]:
/// candidates are a few records in a hundred, and a screen for every
/// record was a fifth of dream's peak memory at 100,000 records (issue 29).
fn screens(records: &[DreamRecord], candidates: &[(usize, usize)]) -> Screens {
    let mut paired: Vec<usize> = candidates.iter().flat_map(|&(a, b)| [a, b]).collect();
    paired.sort_unstable();
    paired.dedup();
    let screens = in_parallel(&paired, |&i| screen_of(&records[i]));
    Screens { paired, screens }
}

/// [`Screen`]s of some records, found by record.
struct Screens {
    paired: Vec<usize>,
    screens: Vec<Screen>,
}

impl Screens {
    fn of(&self, record: usize) -> &Screen {
        let at = self
            .paired
            .binary_search(&record)
            .unwrap_or_else(|_| unreachable!("record {record} is in no candidate pair"));
        &self.screens[at]
    }
}

/// The near-duplicates among `candidates` (in order of their first record).
fn judge(
    records: &[DreamRecord],
    screens: &Screens,
    candidates: &[(usize, usize)],
    threshold: f64,
) -> Vec<NearPair> {
    // Pairs come in order of their first record, so once the pairs of
    // record `a` are judged no record up to `a` is needed again: the cache
    // holds only records still to come.
    let mut likeness: BTreeMap<usize, Likeness> = BTreeMap::new();
    let mut pairs = Vec::new();
    let mut current = None;
    for &(a, b) in candidates {
        if current != Some(a) {
            likeness = likeness.split_off(&a);
            current = Some(a);
        }
        if !may_be_near(screens.of(a), screens.of(b), threshold) {
            continue;
        }
        for i in [a, b] {
            likeness
                .entry(i)
                .or_insert_with(|| Likeness::of(&records[i]));
        }
        if let Some(score) = near_duplicates(&likeness[&a], &likeness[&b], threshold) {
            pairs.push(NearPair { a, b, score });
        }
    }
    pairs
}

/// Pairs of `compared` records of one scope and type that share a bucket
/// in some band, each pair once, in order.
pub(crate) fn candidates(
    records: &[DreamRecord],
    bands: &[Bands],
    compared: &[usize],
) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let mut deduplicated = 0;
    // (bucket, record) of one band, sorted so that a bucket is a run.
    let mut members: Vec<(u64, u32)> = Vec::with_capacity(compared.len());
    // Band by band across the records: each band's buckets are one sorted vector.
    #[expect(
        clippy::needless_range_loop,
        reason = "`band` indexes each record's bands"
    )]
    for band in 0..BANDS {
        members.clear();
        for &i in compared {
            let record = &records[i];
            let (Some(kind), key) = (record.record.meta.record_type, bands[i][band]) else {
                continue;
            };
            if key != NO_BUCKET {
                let key = mix(key ^ ((record.scope as u64) << 8) ^ kind as u64);
                members.push((key, i as u32));
            }
        }
        members.sort_unstable();
        for bucket in members.chunk_by(|x, y| x.0 == y.0).filter(|b| b.len() > 1) {
            for (n, &(_, b)) in bucket.iter().enumerate().skip(1) {
                for &(_, a) in &bucket[..n.min(MAX_BUCKET)] {
                    pairs.push((a.min(b), a.max(b)));
                }
            }
        }
        // Most pairs meet in several bands: drop the repeats whenever the
        // list has doubled, so it holds each pair about once.
        if pairs.len() > 2 * deduplicated.max(1 << 16) {
            pairs.sort_unstable();
            pairs.dedup();
            deduplicated = pairs.len();
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
        .into_iter()
        .map(|(a, b)| (a as usize, b as usize))
        .collect()
}
