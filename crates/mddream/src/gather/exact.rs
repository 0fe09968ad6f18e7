//! Exact duplicates: the same description and facts once case, whitespace
//! and Markdown are normalised.

use std::collections::HashMap;

use crate::gather::Claims;
use crate::gather::terms::{exact_key, hash_term};
use crate::plan::Scope;
use crate::records::DreamRecord;

/// Groups of records (one scope each, two or more) with the same
/// normalised text, each in order, taken: the duplicates gatherer
/// ([`crate::gather::duplicates`]) proposes what to do with them, with any
/// near-duplicate that joins them.
pub(crate) fn find(records: &[DreamRecord], claims: &mut Claims) -> Vec<Vec<usize>> {
    // Keys are whole texts: group by their hash, then compare the texts
    // within a group, so memory holds one hash per record.
    let mut by_hash: HashMap<(Scope, u64), Vec<usize>> = HashMap::new();
    for (i, record) in records.iter().enumerate() {
        if !claims.is_free(i) {
            continue;
        }
        if let Some(key) = exact_key(record) {
            by_hash
                .entry((record.scope, hash_term(&key)))
                .or_default()
                .push(i);
        }
    }
    let mut groups: Vec<Vec<usize>> = by_hash.into_values().filter(|g| g.len() > 1).collect();
    groups.sort();
    let mut same_text = Vec::new();
    for group in groups {
        let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
        for i in group {
            if let Some(key) = exact_key(&records[i]) {
                by_key.entry(key).or_default().push(i);
            }
        }
        let mut same: Vec<Vec<usize>> = by_key.into_values().filter(|g| g.len() > 1).collect();
        same.sort();
        same_text.extend(same);
    }
    for &i in same_text.iter().flatten() {
        claims.take(i);
    }
    same_text
}
