//! Expired records (`expires` before today): retired, with the date in the
//! reason.

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;

use crate::gather::Claims;
use crate::plan::{Finding, LeftAlone, Operation, Plan};
use crate::records::DreamRecord;

/// An `expires` value: a date (the record is good through that day, UTC)
/// or an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Expiry {
    Date(Date),
    Instant(Timestamp),
}

impl Expiry {
    pub(crate) fn parse(text: &str) -> Option<Expiry> {
        let text = text.trim();
        if let Ok(date) = text.parse::<Date>() {
            return Some(Expiry::Date(date));
        }
        text.parse::<Timestamp>().ok().map(Expiry::Instant)
    }

    fn is_past(self, now: Timestamp) -> bool {
        match self {
            Expiry::Date(date) => date < now.to_zoned(TimeZone::UTC).date(),
            Expiry::Instant(at) => at < now,
        }
    }
}

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
