//! A `memctl watch` started by a benchmark program.

use std::io::{BufRead, BufReader};
use std::process::Child;

use anyhow::{Context, bail};

/// Waits until a spawned `memctl watch` (its stderr piped) says it is
/// watching, then keeps draining its stderr so that it never blocks on a
/// full pipe.
pub fn ready(mut child: Child) -> anyhow::Result<Child> {
    let stderr = child.stderr.take().context("no stderr from memctl watch")?;
    let mut lines = BufReader::new(stderr).lines();
    loop {
        match lines.next() {
            Some(Ok(line)) if line.contains("Watching") => break,
            Some(Ok(_)) => {}
            _ => {
                let _ = child.kill();
                bail!("memctl watch ended before it was ready");
            }
        }
    }
    std::thread::spawn(move || for _ in lines {});
    Ok(child)
}
