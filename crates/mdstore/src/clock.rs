//! The time a write is stamped with: whole seconds, as every timestamp
//! memctl writes (SPEC §2's example), so that a plan made again under the
//! lock from the same `now` renders the same bytes as the one shown.

use jiff::Timestamp;

/// Now, to the whole second.
pub fn now() -> Timestamp {
    whole_second(Timestamp::now())
}

/// `time` to the whole second below it (a file's mtime has nanoseconds).
pub fn whole_second(time: Timestamp) -> Timestamp {
    Timestamp::from_second(time.as_second()).unwrap_or(time)
}
