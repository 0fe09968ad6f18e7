//! The build script of mdstore, mdindex and memctl (one file, named by each
//! crate's `package.build`): it sets `cfg(corpus_absent)` when the whole
//! frontmatter-wild corpus is not beside the checkout, so that the tests which
//! need it are reported as ignored, with the path in the reason, instead of
//! passing without checking anything. The committed sample under
//! `tests/fixtures/` is tested either way; `.ci/run` requires the corpus.

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(corpus_absent)");
    let Ok(manifest_dir) = std::env::var("CARGO_MANIFEST_DIR") else {
        return;
    };
    let corpus = Path::new(&manifest_dir).join("../../../shared/corpora/frontmatter-wild");
    if corpus.is_dir() {
        // Re-run when the corpus changes; otherwise only when this script does
        // (a missing path would make Cargo rebuild the crate on every command).
        println!("cargo::rerun-if-changed={}", corpus.display());
    } else {
        println!("cargo::rerun-if-changed=../../tests/corpus_cfg.rs");
        println!("cargo::rustc-cfg=corpus_absent");
    }
}
