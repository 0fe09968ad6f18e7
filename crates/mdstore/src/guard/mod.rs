//! Guards that refuse a write before anything touches the disk (SPEC §6).
//!
//! OWNER: helper H2.

pub mod secrets;
pub mod temporary;
