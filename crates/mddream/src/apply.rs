//! Apply (SPEC §7, step 4): a validated plan, written through `mdstore`'s
//! write transaction under each store's lock, after a snapshot of every file
//! it will touch; on any failure every file is restored byte for byte.
