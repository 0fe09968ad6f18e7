//! `check`: everything wrong with a store, as path + line + message, for
//! people and pre-commit hooks.

use std::path::PathBuf;

use crate::record::Severity;
use crate::store::{SkipReason, Store, WalkItem};
use crate::view::StoreView;

/// One problem found in a store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Relative to the store root.
    pub rel_path: PathBuf,
    pub line: Option<usize>,
    pub severity: Severity,
    pub message: String,
}

/// What `check` found, and how many records it read.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub records: usize,
    pub findings: Vec<Finding>,
}

/// Reads every record whole and reports its problems, every file skipped and
/// why, ids that collide ignoring case, and unreadable tombstones.
pub fn check(store: &Store) -> Report {
    let mut report = Report::default();
    for item in store.walk() {
        match item {
            WalkItem::Record(entry) => match store.read_record(&entry.rel_path) {
                Ok(record) => {
                    report.records += 1;
                    report
                        .findings
                        .extend(record.problems.into_iter().map(|p| Finding {
                            rel_path: entry.rel_path.clone(),
                            line: p.line,
                            severity: p.severity,
                            message: p.message,
                        }));
                }
                Err(skipped) => report.findings.push(Finding {
                    rel_path: skipped.rel_path,
                    line: None,
                    severity: Severity::Error,
                    message: skipped.reason.to_string(),
                }),
            },
            WalkItem::Skipped(skipped) => report.findings.push(Finding {
                severity: match skipped.reason {
                    SkipReason::Hidden => Severity::Warning,
                    _ => Severity::Error,
                },
                rel_path: skipped.rel_path,
                line: None,
                message: skipped.reason.to_string(),
            }),
        }
    }
    let view = StoreView::load(store);
    for group in view.id_collisions() {
        let ids: Vec<&str> = group.iter().map(|s| s.id.as_str()).collect();
        for summary in &group {
            report.findings.push(Finding {
                rel_path: summary.rel_path.clone(),
                line: None,
                severity: Severity::Error,
                message: format!(
                    "ids {} differ only in case or Unicode normalisation: they are one record on case-insensitive file systems",
                    ids.join(", ")
                ),
            });
        }
    }
    for (path, reason) in view.tombstone_problems {
        report.findings.push(Finding {
            rel_path: path
                .strip_prefix(store.root())
                .map(PathBuf::from)
                .unwrap_or(path),
            line: None,
            severity: Severity::Error,
            message: format!("unreadable tombstone: {reason}"),
        });
    }
    report
        .findings
        .sort_by(|a, b| a.rel_path.cmp(&b.rel_path).then(a.line.cmp(&b.line)));
    report
}
