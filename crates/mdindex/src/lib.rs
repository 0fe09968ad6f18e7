//! The derived FTS5 index over an mdstore (being written).
#![forbid(unsafe_code)]
