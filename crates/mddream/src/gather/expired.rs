//! Expired records (`expires` before today): retired, with the date in the
//! reason.

use jiff::Timestamp;
use mdstore::expiry::Expiry;

use crate::gather::Claims;
use crate::plan::{Finding, LeftAlone, Operation, Plan};
use crate::records::DreamRecord;

pub(crate) fn gather(
    records: &[DreamRecord],
    now: Timestamp,
    claims: &mut Claims,
    plan: &mut Plan,
) {
    for (i, record) in records.iter().enumerate() {
        let Some(written) = record.record.meta.expires.as_deref() else {
            continue;
        };
        let shown = mdstore::escape::for_message(written.trim(), 40);
        match Expiry::parse(written) {
            Some(expiry) if expiry.is_past(now) => {
                claims.take(i);
                plan.operations.push(Operation::Retire {
                    finding: Finding::Expired,
                    reason: format!("expired on {shown}"),
                    reads: record.reference(),
                    superseded_by: None,
                });
            }
            Some(_) => {}
            None => plan.left_alone.push(LeftAlone {
                finding: Finding::Expired,
                reason: format!(
                    "expires {shown:?} is neither a date (2026-12-31) nor an RFC 3339 time; fix it by hand"
                ),
                records: vec![record.reference()],
            }),
        }
    }
}
