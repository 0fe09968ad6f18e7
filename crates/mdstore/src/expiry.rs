//! When a record stops holding (SPEC §2 `expires`): the one reading of the
//! field, shared by `dream` (which retires an expired record) and every face
//! that shows records to an agent (which never presents one as current).

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;

/// An `expires` value: a date (the record is good through that day, UTC)
/// or an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Expiry {
    Date(Date),
    Instant(Timestamp),
}

impl Expiry {
    /// `None` when the text is neither a date nor an RFC 3339 time.
    pub fn parse(text: &str) -> Option<Expiry> {
        let text = text.trim();
        if let Ok(date) = text.parse::<Date>() {
            return Some(Expiry::Date(date));
        }
        text.parse::<Timestamp>().ok().map(Expiry::Instant)
    }

    pub fn is_past(self, now: Timestamp) -> bool {
        match self {
            Expiry::Date(date) => date < now.to_zoned(TimeZone::UTC).date(),
            Expiry::Instant(at) => at < now,
        }
    }
}

/// Whether a record whose `expires` is `written` no longer holds at `now`.
/// A value that is not a date or a time is not taken as expired: `check`
/// reports it, and `dream` leaves it for a person.
pub fn has_expired(written: Option<&str>, now: Timestamp) -> bool {
    written
        .and_then(Expiry::parse)
        .is_some_and(|expiry| expiry.is_past(now))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_holds_through_its_own_day() {
        let now: Timestamp = "2026-03-10T23:59:00Z".parse().unwrap();
        assert!(!has_expired(Some("2026-03-10"), now));
        assert!(has_expired(Some("2026-03-09"), now));
        assert!(has_expired(Some("2026-03-10T12:00:00Z"), now));
        assert!(!has_expired(Some(" 2026-03-11 "), now));
    }

    #[test]
    fn no_value_or_an_unreadable_one_is_not_expired() {
        let now = Timestamp::now();
        assert!(!has_expired(None, now));
        assert!(!has_expired(Some("next tuesday"), now));
    }
}
