//! The one reading of a record's `expires` (SPEC §2): a date, good through
//! that day (UTC), or an RFC 3339 instant. What is valid to write, what
//! `dream` retires and what `context` no longer shows all follow from it.

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;

use crate::record::Meta;

/// An `expires` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Expiry {
    /// Good through this day, UTC.
    Date(Date),
    /// Good until this instant.
    Instant(Timestamp),
}

impl Expiry {
    /// `2026-12-31` or `2026-12-31T18:00:00Z` (surrounding spaces allowed);
    /// `None` for anything else.
    pub fn parse(text: &str) -> Option<Expiry> {
        let text = text.trim();
        if let Ok(date) = text.parse::<Date>() {
            return Some(Expiry::Date(date));
        }
        text.parse::<Timestamp>().ok().map(Expiry::Instant)
    }

    /// Whether the record is no longer current at `now`: a date has passed
    /// once its day is over, an instant once it is behind `now`.
    pub fn is_past(self, now: Timestamp) -> bool {
        match self {
            Expiry::Date(date) => date < now.to_zoned(TimeZone::UTC).date(),
            Expiry::Instant(at) => at < now,
        }
    }
}

/// Whether a record with this header has expired at `now`. An `expires`
/// that is no date is not taken as passed (`check` and `dream` report it).
pub fn has_expired(meta: &Meta, now: Timestamp) -> bool {
    meta.expires
        .as_deref()
        .and_then(Expiry::parse)
        .is_some_and(|expiry| expiry.is_past(now))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(expires: &str) -> Meta {
        Meta {
            expires: Some(expires.to_string()),
            ..Meta::default()
        }
    }

    #[test]
    fn a_date_is_good_through_its_day_and_an_instant_until_it_passes() {
        let now: Timestamp = "2026-03-03T23:59:00Z".parse().unwrap();
        assert!(!has_expired(&meta("2026-03-03"), now));
        assert!(has_expired(&meta("2026-03-02"), now));
        assert!(has_expired(&meta(" 2026-03-03T12:00:00Z "), now));
        assert!(!has_expired(&meta("2026-03-04T00:00:00+01:00"), now));
        assert!(!has_expired(&Meta::default(), now));
    }

    #[test]
    fn an_expires_that_is_no_date_is_not_past() {
        let now: Timestamp = "2026-03-03T00:00:00Z".parse().unwrap();
        for text in ["", "soon", "2026-13-01", "yesterday", "1999"] {
            assert!(!has_expired(&meta(text), now), "{text:?}");
            assert_eq!(Expiry::parse(text), None, "{text:?}");
        }
    }
}
