//! What the soak counts: every operation's runs and slowest run, and every
//! non-zero exit, classified.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

/// One finished `memctl` run.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub code: i32,
    pub stderr: String,
    pub took: Duration,
}

impl Outcome {
    /// Why a run failed, in a few words, from its exit code and message.
    pub fn class(&self) -> String {
        let first = self
            .stderr
            .lines()
            .find(|line| line.starts_with("error"))
            .unwrap_or("");
        let said = if first.contains("lock") {
            "the store's lock was not had in time"
        } else if first.contains("forgotten") {
            "a tombstone refused it"
        } else if first.contains("changed since") || first.contains("conflict") {
            "a conflict with another writer"
        } else {
            first
        };
        format!("exit {}: {said}", self.code)
    }
}

#[derive(Default)]
struct Counts {
    runs: u64,
    slowest: Duration,
    total: Duration,
}

/// Counts shared by every worker thread.
#[derive(Default)]
pub struct Tally {
    ops: Mutex<BTreeMap<&'static str, Counts>>,
    failures: Mutex<BTreeMap<(&'static str, String), u64>>,
    /// Problems that are not an exit code: a record a search did not find,
    /// a writer's record not as it saved it, a watcher that died.
    pub findings: Mutex<Vec<String>>,
}

impl Tally {
    /// Counts a run of `op`; `expected` says whether its exit code is fine
    /// (search's 1, "nothing found", is).
    pub fn count(&self, op: &'static str, outcome: &Outcome, expected: bool) {
        if let Ok(mut ops) = self.ops.lock() {
            let counts = ops.entry(op).or_default();
            counts.runs += 1;
            counts.total += outcome.took;
            counts.slowest = counts.slowest.max(outcome.took);
        }
        if !expected && let Ok(mut failures) = self.failures.lock() {
            *failures.entry((op, outcome.class())).or_default() += 1;
        }
    }

    pub fn finding(&self, what: String) {
        if let Ok(mut findings) = self.findings.lock() {
            findings.push(what);
        }
    }

    pub fn failure_count(&self) -> u64 {
        self.failures.lock().map(|f| f.values().sum()).unwrap_or(0)
    }

    pub fn finding_count(&self) -> usize {
        self.findings.lock().map(|f| f.len()).unwrap_or(0)
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "| operation | runs | mean | slowest |")?;
        writeln!(f, "|---|---:|---:|---:|")?;
        if let Ok(ops) = self.ops.lock() {
            for (op, counts) in ops.iter() {
                let mean = counts.total.as_secs_f64() / counts.runs.max(1) as f64;
                writeln!(
                    f,
                    "| {op} | {} | {:.0} ms | {:.0} ms |",
                    counts.runs,
                    mean * 1e3,
                    counts.slowest.as_secs_f64() * 1e3
                )?;
            }
        }
        writeln!(f)?;
        match self.failures.lock() {
            Ok(failures) if failures.is_empty() => writeln!(f, "Non-zero exits: none.")?,
            Ok(failures) => {
                writeln!(f, "Non-zero exits:")?;
                for ((op, class), n) in failures.iter() {
                    writeln!(f, "- {op}: {n} × {class}")?;
                }
            }
            Err(_) => {}
        }
        if let Ok(findings) = self.findings.lock() {
            if findings.is_empty() {
                writeln!(f, "Other findings: none.")?;
            }
            for finding in findings.iter().take(20) {
                writeln!(f, "- {finding}")?;
            }
            if findings.len() > 20 {
                writeln!(f, "- … and {} more", findings.len() - 20)?;
            }
        }
        Ok(())
    }
}
