//! Gather (SPEC §7, step 2), without any model: exact duplicates,
//! near-duplicates, corrections of earlier facts, expired records and an
//! over-budget `MEMORY.md`, turned into a rules [`Plan`].

use jiff::Timestamp;

use crate::plan::Plan;
use crate::records::DreamRecord;

/// Builds the rules' plan for `records` (every store dream was given) as of
/// `now`.
pub fn gather(records: &[DreamRecord], now: Timestamp) -> Plan {
    let _ = (records, now);
    todo!("issue 7: gatherers")
}
