//! mddream's integration tests: each gatherer on records written for the
//! purpose, in a real store folder, with the expected plan as a snapshot.

mod fuzz_checks;
mod fuzz_replay;
mod gather;
mod gather_safety;
mod generated_store;
mod near_candidates;
mod near_pairs;
mod support;
