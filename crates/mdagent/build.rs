//! Packs the background of ordinary requests (`data/background/*.json`,
//! the form people edit and `check.py` checks) into what the binary ships:
//! the request texts alone, NUL-separated, deflated. The JSON's metadata
//! fields are for writing and checking the set, not for judging prompts,
//! and shipped as JSON they made the binary 0.32 MB larger
//! (docs/BENCHMARKS.md, "Binary size").
#![forbid(unsafe_code)]

use std::io::Write as _;
use std::path::Path;

/// The files in the order the texts are shipped (the cache of their
/// vectors is keyed by the texts in this order).
const FILES: [&str; 5] = ["en", "zh", "ja", "ko", "mixed"];

fn main() -> Result<(), String> {
    let data = Path::new("data/background");
    let mut packed = String::new();
    for name in FILES {
        let path = data.join(format!("{name}.json"));
        println!("cargo:rerun-if-changed={}", path.display());
        let failed = |what: String| format!("{}: {what}", path.display());
        let text = std::fs::read_to_string(&path).map_err(|e| failed(e.to_string()))?;
        let items: Vec<serde_json::Value> =
            serde_json::from_str(&text).map_err(|e| failed(e.to_string()))?;
        for (index, item) in items.iter().enumerate() {
            let request = item["text"]
                .as_str()
                .ok_or_else(|| failed(format!("item {index} has no \"text\" string")))?;
            if request.contains('\0') || request.trim().is_empty() {
                return Err(failed(format!("item {index} is empty or holds NUL")));
            }
            packed.push_str(request);
            packed.push('\0');
        }
    }
    let out = std::env::var_os("OUT_DIR").ok_or("cargo sets no OUT_DIR")?;
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    encoder
        .write_all(packed.as_bytes())
        .map_err(|e| format!("deflating the background: {e}"))?;
    let deflated = encoder
        .finish()
        .map_err(|e| format!("deflating the background: {e}"))?;
    let target = Path::new(&out).join("background.deflate");
    std::fs::write(&target, deflated).map_err(|e| format!("{}: {e}", target.display()))
}
