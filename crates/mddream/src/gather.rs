//! Gather (SPEC §7, step 2), without any model: expired records, exact
//! duplicates, corrections of earlier facts, near-duplicates and an
//! over-budget `MEMORY.md`, turned into a rules [`Plan`].
//!
//! Nothing compares every pair: exact duplicates and corrections are found
//! by grouping records under a key, near-duplicates by MinHash signatures
//! banded into buckets (LSH), so only records that share a bucket are
//! compared. A record is read by at most one operation; what a gatherer
//! finds about a record an earlier one already took is left for the next
//! dream. docs/DREAM.md describes the rules and the measurements behind
//! the near-duplicate threshold.

mod budget;
pub(crate) mod correction;
mod duplicates;
mod exact;
pub(crate) mod expired;
mod merge;
mod near;
mod replaced;
mod similar;
pub(crate) mod terms;

use jiff::Timestamp;

use crate::plan::{Origin, Plan};
use crate::records::DreamRecord;

pub use similar::NEAR_THRESHOLD;

/// How gathering decides what is alike.
#[derive(Clone, Debug)]
pub struct GatherOptions {
    /// Two records are near-duplicates when the Jaccard similarity of their
    /// words is at least this, among other rules (docs/DREAM.md: the
    /// measurements).
    pub near_threshold: f64,
}

impl Default for GatherOptions {
    fn default() -> GatherOptions {
        GatherOptions {
            near_threshold: NEAR_THRESHOLD,
        }
    }
}

/// Builds the rules' plan for `records` (every store dream was given) as of
/// `now`.
pub fn gather(records: &[DreamRecord], now: Timestamp) -> Plan {
    gather_with(records, now, &GatherOptions::default())
}

/// [`gather`] with a choice of thresholds.
pub fn gather_with(records: &[DreamRecord], now: Timestamp, options: &GatherOptions) -> Plan {
    let mut plan = Plan::new(Origin::Rules);
    let mut claims = Claims::new(records.len());
    expired::gather(records, now, &mut claims, &mut plan);
    let exact = exact::find(records, &mut claims);
    let (prepared, bands) = terms::prepare_all(records);
    correction::gather(records, &prepared, &mut claims, &mut plan);
    drop(prepared);
    // One member of each exact group stands for its copies.
    let standing: Vec<usize> = exact.iter().map(|group| group[0]).collect();
    let near = near::find(records, bands, &standing, options, &claims);
    duplicates::propose(records, &exact, &near, &mut claims, &mut plan);
    budget::gather(records, &claims, &mut plan);
    plan
}

/// The pairs the near-duplicate gatherer would judge among `records` (its
/// LSH candidates: records of one scope and type sharing a bucket), each
/// once, in order. For measurements (mddream's `near_eval` example): a
/// second check of candidate pairs is measured on these.
pub fn near_candidates(records: &[DreamRecord]) -> Vec<(usize, usize)> {
    let (_, bands) = terms::prepare_all(records);
    let all: Vec<usize> = (0..records.len()).collect();
    near::candidates(records, &bands, &all)
}

/// A record that a candidate for memory says again in other words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Repeated {
    /// Its place in the records given.
    pub index: usize,
    /// How alike they are (the Jaccard similarity of their words).
    pub likeness: f64,
    /// Whether the record already holds every word and value of the
    /// candidate: the candidate adds nothing to it.
    pub adds_nothing: bool,
}

/// The record of `records` (of the candidate's scope) that `candidate`
/// says again, as dream's near-duplicate judge finds such pairs at its
/// threshold ([`NEAR_THRESHOLD`], docs/DREAM.md), the most alike; `None`
/// when it repeats none. One comparison a record: a candidate is checked
/// against a store once, when it is proposed and when it is reviewed.
pub fn repeated_by(candidate: &DreamRecord, records: &[DreamRecord]) -> Option<Repeated> {
    let proposed = similar::Likeness::of(candidate);
    records
        .iter()
        .enumerate()
        .filter(|(_, record)| record.scope == candidate.scope)
        .filter_map(|(index, record)| {
            let stored = similar::Likeness::of(record);
            similar::near_duplicates(&proposed, &stored, NEAR_THRESHOLD).map(|likeness| Repeated {
                index,
                likeness,
                adds_nothing: similar::holds(&stored, &proposed),
            })
        })
        .max_by(|a, b| a.likeness.total_cmp(&b.likeness))
}

/// Which records an operation already reads (or names as the record that
/// supersedes another), so that no record is in two operations.
pub(crate) struct Claims {
    taken: Vec<bool>,
}

impl Claims {
    fn new(records: usize) -> Claims {
        Claims {
            taken: vec![false; records],
        }
    }

    pub(crate) fn is_free(&self, index: usize) -> bool {
        !self.taken[index]
    }

    pub(crate) fn take(&mut self, index: usize) {
        self.taken[index] = true;
    }
}

/// `f` of every item, in order, spread over the machine's cores.
pub(crate) fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = items.len().div_ceil(threads).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// When a record last changed: `updated`, else `created`, as written in
/// its frontmatter. mdstore falls back to the file's mtime for a file that
/// has neither (a Claude Code memory), but a checkout or a copy resets
/// mtimes, so which of two such records is newer cannot be told.
pub(crate) fn changed_at(record: &DreamRecord) -> Option<Timestamp> {
    let meta = &record.record.meta;
    let keys = match &record.record.frontmatter {
        Some(frontmatter) => frontmatter.keys(),
        None => return None,
    };
    let written = |key: &str| keys.iter().any(|k| k == key);
    match (written("updated"), written("created")) {
        (true, _) if meta.updated.is_some() => meta.updated,
        (_, true) => meta.created,
        _ => None,
    }
}

/// Record ids for a reason, escaped and cut: at most `MAX_LISTED`, then
/// how many more (a reason is kept in a tombstone and has a length limit).
pub(crate) fn id_list<'a>(ids: impl IntoIterator<Item = &'a DreamRecord>) -> String {
    let ids: Vec<String> = ids
        .into_iter()
        .map(|r| mdstore::escape::for_message(&r.record.id, 80))
        .collect();
    if ids.len() <= MAX_LISTED {
        return ids.join(", ");
    }
    format!(
        "{} and {} more",
        ids[..MAX_LISTED].join(", "),
        ids.len() - MAX_LISTED
    )
}

const MAX_LISTED: usize = 5;
