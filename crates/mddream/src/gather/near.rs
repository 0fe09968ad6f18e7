//! Near-duplicates: the same fact in other words. Each record's masked
//! term shingles (pairs of adjacent index terms, values marked) get a
//! MinHash signature; signatures are cut into bands, and records sharing
//! a band's bucket are candidates (LSH). A candidate pair is a
//! near-duplicate when the exact Jaccard similarity of its shingles
//! reaches the threshold and both records hold the same values (so "Node
//! 18" and "Node 22" are a correction, never a merge). Same-source groups
//! are merged keeping every fact; across sources they are left alone,
//! since neither record's words hold all of the other's.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::gather::merge::{merge, unmergeable};
use crate::gather::terms::{Prepared, Terms, mix, record_shingles, record_text};
use crate::gather::{Claims, GatherOptions, id_list};
use crate::plan::{Finding, LeftAlone, Plan};
use crate::records::DreamRecord;

/// The Jaccard similarity from which two records are near-duplicates,
/// chosen from the labelled pairs' precision and recall (docs/DREAM.md).
pub const NEAR_THRESHOLD: f64 = 0.5;

/// Bands × rows = the signature's length. With 32 bands of 4 rows, a pair
/// at similarity 0.5 shares a bucket with probability 0.87, at 0.6 with
/// 0.99, and at 0.1 (unrelated text on the same topics) with 0.003.
const BANDS: usize = 32;
const ROWS: usize = 4;
pub(crate) const SIGNATURE_LEN: usize = BANDS * ROWS;

/// A bucket larger than this (templated text) is compared member by member
/// with its first `MAX_BUCKET` members only, so that one crowded bucket
/// cannot make the work quadratic.
const MAX_BUCKET: usize = 64;

/// The MinHash signature of a set of shingles: for each of the hash
/// functions, the least hash (kept to 32 bits).
pub(crate) fn signature(shingles: &[u64]) -> Vec<u32> {
    let mut signature = vec![u32::MAX; SIGNATURE_LEN];
    for &shingle in shingles {
        for (k, slot) in signature.iter_mut().enumerate() {
            let h = (mix(shingle ^ SEEDS[k]) >> 32) as u32;
            if h < *slot {
                *slot = h;
            }
        }
    }
    signature
}

/// One seed per hash function, fixed so plans are reproducible.
static SEEDS: std::sync::LazyLock<[u64; SIGNATURE_LEN]> = std::sync::LazyLock::new(|| {
    let mut seeds = [0; SIGNATURE_LEN];
    for (k, seed) in seeds.iter_mut().enumerate() {
        *seed = mix(0x5eed_0000 + k as u64);
    }
    seeds
});

/// The exact Jaccard similarity of two texts' shingles, and whether they
/// hold the same values: what decides a candidate pair.
pub fn similarity(a: &str, b: &str) -> (f64, bool) {
    let (a, b) = (Compared::of(a), Compared::of(b));
    (jaccard(&a.shingles, &b.shingles), a.values == b.values)
}

struct Compared {
    shingles: Vec<u64>,
    values: BTreeSet<String>,
}

impl Compared {
    fn of(text: &str) -> Compared {
        let terms = Terms::of(text);
        Compared {
            shingles: record_shingles(&terms),
            values: terms.values().iter().map(|v| v.to_lowercase()).collect(),
        }
    }
}

fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - shared;
    if union == 0 {
        0.0
    } else {
        shared as f64 / union as f64
    }
}

pub(crate) fn gather(
    records: &[DreamRecord],
    prepared: &[Prepared],
    options: &GatherOptions,
    claims: &mut Claims,
    plan: &mut Plan,
) {
    let candidates = candidates(records, prepared, claims);
    let mut compared: HashMap<usize, Compared> = HashMap::new();
    let mut pairs = Vec::new();
    for (a, b) in candidates {
        for i in [a, b] {
            compared
                .entry(i)
                .or_insert_with(|| Compared::of(&record_text(&records[i])));
        }
        let (ca, cb) = (&compared[&a], &compared[&b]);
        let score = jaccard(&ca.shingles, &cb.shingles);
        if score >= options.near_threshold && ca.values == cb.values {
            pairs.push((a, b, score));
        }
    }
    propose(records, &pairs, claims, plan);
}

/// Pairs of free records of one scope and type that share a bucket in
/// some band, each pair once, in order.
fn candidates(
    records: &[DreamRecord],
    prepared: &[Prepared],
    claims: &Claims,
) -> BTreeSet<(usize, usize)> {
    let mut pairs = BTreeSet::new();
    for band in 0..BANDS {
        let mut buckets: HashMap<u64, Vec<usize>> = HashMap::new();
        for (i, record) in records.iter().enumerate() {
            let Some(kind) = record.record.meta.record_type else {
                continue;
            };
            if !claims.is_free(i) || prepared[i].words == 0 {
                continue;
            }
            let rows = &prepared[i].signature[band * ROWS..(band + 1) * ROWS];
            let key = rows.iter().fold(
                mix(((record.scope as u64) << 8) | kind as u64 | ((band as u64) << 16)),
                |acc, &h| mix(acc ^ u64::from(h)),
            );
            buckets.entry(key).or_default().push(i);
        }
        for bucket in buckets.values().filter(|b| b.len() > 1) {
            for (n, &b) in bucket.iter().enumerate().skip(1) {
                for &a in &bucket[..n.min(MAX_BUCKET)] {
                    pairs.insert((a.min(b), a.max(b)));
                }
            }
        }
    }
    pairs
}

/// Near-duplicate pairs → clusters (one scope, type and source each) →
/// merges; pairs across sources are left for a person.
fn propose(
    records: &[DreamRecord],
    pairs: &[(usize, usize, f64)],
    claims: &mut Claims,
    plan: &mut Plan,
) {
    let source = |i: usize| records[i].record.source();
    let mut clusters = UnionFind::default();
    for &(a, b, score) in pairs {
        if source(a) == source(b) {
            clusters.union(a, b);
            continue;
        }
        plan.left_alone.push(LeftAlone {
            finding: Finding::NearDuplicate,
            reason: format!(
                "the same fact in other words (similarity {score:.2}) in records of different trust ({} is {}, {} is {}): merge them by hand, keeping the trusted words",
                id_list([&records[a]]),
                source(a),
                id_list([&records[b]]),
                source(b)
            ),
            records: vec![records[a].reference(), records[b].reference()],
        });
    }
    let mut lowest: BTreeMap<usize, f64> = BTreeMap::new();
    for &(a, b, score) in pairs.iter().filter(|(a, b, _)| source(*a) == source(*b)) {
        let low = lowest.entry(clusters.root(a)).or_insert(score);
        *low = low.min(score);
        debug_assert_eq!(clusters.root(a), clusters.root(b));
    }
    for (root, members) in clusters.sets() {
        let listed = id_list(members.iter().map(|&i| &records[i]));
        if let Some((i, why)) = members
            .iter()
            .find_map(|&i| unmergeable(&records[i]).map(|why| (i, why)))
        {
            plan.left_alone.push(LeftAlone {
                finding: Finding::NearDuplicate,
                reason: format!(
                    "the same fact in other words: {listed}; not merged, since {} {why}",
                    id_list([&records[i]])
                ),
                records: members.iter().map(|&i| records[i].reference()).collect(),
            });
            continue;
        }
        let score = lowest.get(&root).copied().unwrap_or(1.0);
        let reason = format!(
            "the same fact in other words (term similarity at least {score:.2}, same values): {listed}; every line of each is kept"
        );
        plan.operations
            .push(merge(records, &members, Finding::NearDuplicate, reason));
        for &i in &members {
            claims.take(i);
        }
    }
}

/// Clusters of records joined pair by pair.
#[derive(Default)]
struct UnionFind {
    parent: HashMap<usize, usize>,
}

impl UnionFind {
    fn root(&mut self, i: usize) -> usize {
        let mut r = i;
        while let Some(&p) = self.parent.get(&r).filter(|&&p| p != r) {
            r = p;
        }
        self.parent.insert(i, r);
        r
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.root(a), self.root(b));
        self.parent.insert(ra.max(rb), ra.min(rb));
        self.parent.entry(ra.min(rb)).or_insert(ra.min(rb));
    }

    /// Each cluster by its root (its smallest member), members in order.
    fn sets(&mut self) -> BTreeMap<usize, Vec<usize>> {
        let mut sets: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let members: Vec<usize> = self.parent.keys().copied().collect();
        for i in members {
            let root = self.root(i);
            sets.entry(root).or_default().push(i);
        }
        for members in sets.values_mut() {
            members.sort_unstable();
        }
        sets
    }
}
