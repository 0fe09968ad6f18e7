//! A hook event on standard input: one JSON object, bounded, then typed by
//! `mdagent::hook_event`.

use std::io::Read as _;

use anyhow::{Context as _, bail};
use serde_json::Value;

/// An event larger than this is refused (a prompt with a pasted file is
/// far smaller; more is not an event an agent sends).
const MAX_EVENT_BYTES: u64 = 8 * 1024 * 1024;

/// The event on standard input: one JSON object of at most
/// [`MAX_EVENT_BYTES`].
pub fn read() -> anyhow::Result<Value> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_EVENT_BYTES + 1)
        .read_to_end(&mut bytes)
        .context("cannot read the hook event on standard input")?;
    if bytes.len() as u64 > MAX_EVENT_BYTES {
        bail!(
            "the hook event on standard input is larger than {} MiB",
            MAX_EVENT_BYTES / 1024 / 1024
        );
    }
    let event: Value =
        serde_json::from_slice(&bytes).context("the hook event on standard input is not JSON")?;
    if !event.is_object() {
        bail!("the hook event on standard input is not a JSON object");
    }
    Ok(event)
}
