//! `dream --auto`: the gates of SPEC §7 (hours and writes since the last
//! dream, a scan at most every few minutes), their state in the cache
//! folder, and the OS lock that keeps two dreams from running at once.
//! The lock is `File::try_lock`: the OS drops it with the process, so a
//! dream killed mid-run never blocks the next one.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use jiff::Timestamp;
use mddream::plan::{Finding, LeftAlone, Operation, Plan};
use mdindex::IndexPaths;
use mdstore::store::WalkItem;
use serde::{Deserialize, Serialize};

use crate::stores::ScopedStore;

/// Held for a whole dream: one lock file per store in the cache folder.
pub struct DreamLock {
    _files: Vec<File>,
}

impl DreamLock {
    /// Takes every store's dream lock, or `None` when another dream holds one.
    pub fn take(stores: &[ScopedStore]) -> anyhow::Result<Option<DreamLock>> {
        let mut files = Vec::new();
        for scoped in stores {
            let path = state_path(&scoped.store, "dream-lock");
            ensure_parent(&path)?;
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .with_context(|| format!("cannot open the dream lock {}", path.display()))?;
            match file.try_lock() {
                Ok(()) => files.push(file),
                Err(fs::TryLockError::WouldBlock) => return Ok(None),
                Err(fs::TryLockError::Error(e)) => {
                    return Err(
                        anyhow::Error::from(e).context(format!("cannot lock {}", path.display()))
                    );
                }
            }
        }
        Ok(Some(DreamLock { _files: files }))
    }
}

/// `<cache>/<the store's index name>.<suffix>`: beside the store's index,
/// named from the same hash of its path.
fn state_path(store: &mdstore::Store, suffix: &str) -> PathBuf {
    let db = IndexPaths::new(&mdindex::cache_dir_from_env(), store).db;
    db.with_extension(suffix)
}

fn ensure_parent(path: &std::path::Path) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("cannot create the cache folder {}", parent.display()))?;
    }
    Ok(())
}

/// The gates' thresholds: SPEC §7's defaults, or the environment's.
struct Thresholds {
    hours: i64,
    writes: usize,
    scan_minutes: i64,
}

impl Thresholds {
    fn from_env() -> Thresholds {
        let var = |name: &str, default: i64| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<i64>().ok())
                .filter(|v| *v >= 0)
                .unwrap_or(default)
        };
        Thresholds {
            hours: var("MEMCTL_DREAM_MIN_HOURS", 24),
            writes: usize::try_from(var("MEMCTL_DREAM_MIN_WRITES", 5)).unwrap_or(5),
            scan_minutes: var("MEMCTL_DREAM_SCAN_MINUTES", 10),
        }
    }
}

/// Unix seconds, so that the file needs no date parser.
#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    last_dream: Option<i64>,
    last_scan: Option<i64>,
}

fn at(seconds: Option<i64>) -> Option<Timestamp> {
    Timestamp::from_second(seconds?).ok()
}

/// The gates' state of the stores a dream covers, kept with the first
/// store's index (the workspace store's when there is one).
pub struct Gates {
    path: PathBuf,
    state: State,
}

impl Gates {
    /// The saved state; a missing or unreadable file is a store never dreamt on.
    pub fn load(stores: &[ScopedStore]) -> Gates {
        let path = stores
            .first()
            .map(|s| state_path(&s.store, "dream.json"))
            .unwrap_or_default();
        let state = fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        Gates { path, state }
    }

    /// Why an unattended dream should not run now, or `None` to run.
    pub fn check(
        &mut self,
        stores: &[ScopedStore],
        now: Timestamp,
    ) -> anyhow::Result<Option<String>> {
        let limits = Thresholds::from_env();
        if let Some(last) = at(self.state.last_dream) {
            let hours = now.duration_since(last).as_hours();
            if hours < limits.hours {
                return Ok(Some(format!(
                    "the last dream was {hours} h ago; the next runs after {} h",
                    limits.hours
                )));
            }
        }
        if let Some(scan) = at(self.state.last_scan) {
            let minutes = now.duration_since(scan).as_mins();
            if minutes < limits.scan_minutes {
                return Ok(Some(format!(
                    "the store was scanned for writes {minutes} min ago; it is scanned at most every {} min",
                    limits.scan_minutes
                )));
            }
        }
        self.state.last_scan = Some(now.as_second());
        self.save()?;
        let writes = writes_since(stores, at(self.state.last_dream));
        if writes < limits.writes {
            return Ok(Some(format!(
                "{writes} write{} since the last dream; it runs after {}",
                if writes == 1 { "" } else { "s" },
                limits.writes
            )));
        }
        Ok(None)
    }

    /// Records that a dream has just finished: the gates count from here.
    /// Rounded up to the next second, so that the dream's own writes are
    /// not counted as writes since it.
    pub fn dreamt(&mut self) {
        let after = Timestamp::now().as_second().saturating_add(1);
        self.state.last_dream = Some(after);
        self.state.last_scan = Some(after);
        // The gates are a convenience: a state that cannot be saved only
        // lets the next --auto run sooner.
        let _ = self.save();
    }

    fn save(&self) -> anyhow::Result<()> {
        ensure_parent(&self.path)?;
        let dir = self.path.parent().unwrap_or(std::path::Path::new("."));
        let mut temp = tempfile::NamedTempFile::new_in(dir)
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        temp.write_all(serde_json::to_string(&self.state)?.as_bytes())?;
        temp.persist(&self.path)
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        Ok(())
    }
}

/// Records written and forgotten since `since` (every one when never):
/// files and tombstones modified after it.
fn writes_since(stores: &[ScopedStore], since: Option<Timestamp>) -> usize {
    let since_ns = since.map_or(i128::MIN, |t| t.as_nanosecond());
    let mut writes = 0;
    for scoped in stores {
        writes += scoped
            .store
            .walk()
            .filter(|item| {
                matches!(item, WalkItem::Record(entry) if i128::from(entry.mtime_ns) > since_ns)
            })
            .count();
        let tombstones = scoped.store.root().join(".tombstones");
        writes += fs::read_dir(tombstones)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.metadata().ok()?.modified().ok())
            .filter_map(|m| Timestamp::try_from(m).ok())
            .filter(|m| m.as_nanosecond() > since_ns)
            .count();
    }
    writes
}

/// What an unattended dream may do alone: merge exact duplicates and retire
/// expired records. Everything else is reported for a person (SPEC §7:
/// without a model, propose; never guess silently).
pub fn unattended(plan: Plan) -> Plan {
    let mut kept = Plan {
        operations: Vec::new(),
        ..plan.clone()
    };
    for op in plan.operations {
        let safe = matches!(
            (&op, op.finding()),
            (Operation::Merge { .. }, Finding::ExactDuplicate)
                | (Operation::Retire { .. }, Finding::Expired)
        );
        if safe {
            kept.operations.push(op);
        } else {
            kept.left_alone.push(LeftAlone {
                finding: op.finding(),
                reason: format!(
                    "{} (not applied unattended: --auto applies only exact duplicates and expired records; run `memctl dream` to review it)",
                    op.reason()
                ),
                records: involved(&op),
            });
        }
    }
    kept
}

/// Every record an operation reads, and the one a retire points to.
fn involved(op: &Operation) -> Vec<mddream::plan::RecordRef> {
    let mut records: Vec<_> = op.reads().into_iter().cloned().collect();
    if let Operation::Retire {
        superseded_by: Some(by),
        ..
    } = op
    {
        records.push(by.clone());
    }
    records
}
