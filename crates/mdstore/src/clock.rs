//! The time a write is stamped with: whole seconds, as every timestamp
//! memctl writes (SPEC §2's example), so that a plan made again under the
//! lock from the same `now` renders the same bytes as the one shown.

use jiff::Timestamp;

/// Now, to the whole second.
pub fn now() -> Timestamp {
    Timestamp::from_second(Timestamp::now().as_second()).unwrap_or_else(|_| Timestamp::now())
}
