//! `dream --auto` (SPEC §7): the gates (hours and writes since the last
//! dream, a scan at most every few minutes), their state in the cache
//! folder, and the OS lock that keeps two dreams from running at once.
//! The lock is `File::try_lock`: the OS drops it with the process, so a
//! dream killed mid-run never blocks the next one.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use mddream::plan::{Finding, LeftAlone, Operation, Plan};
use mdstore::store::WalkItem;
use serde::{Deserialize, Serialize};

use crate::Config;
use crate::config::{ConfigError, DreamGates};
use crate::stores::ScopedStore;

/// Why the dream lock or the gates' state cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DreamAutoError {
    #[error("cannot create the cache folder {}", dir.display())]
    CacheFolder {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot open the dream lock {}", path.display())]
    OpenLock {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot lock {}", path.display())]
    Lock {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}", path.display())]
    SaveGates {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A gate's variable is not set right.
    #[error("{0}")]
    Env(#[from] ConfigError),
}

/// Whether a dream may run now, and what it holds while it does.
pub enum Admission {
    /// Run, holding the lock (none for a dry run, which writes nothing)
    /// and, unattended, the gates to mark when done.
    Run {
        lock: Option<DreamLock>,
        gates: Option<Gates>,
    },
    /// Another dream holds the lock.
    Busy,
    /// Unattended, and a gate is closed: why.
    Closed(String),
}

/// The dream lock and, when `auto`, the gates (SPEC §7).
pub fn admit(
    config: &Config,
    stores: &[ScopedStore],
    auto: bool,
    dry_run: bool,
    now: Timestamp,
) -> Result<Admission, DreamAutoError> {
    // A dry run writes nothing, so it needs no lock and no gate.
    if dry_run {
        return Ok(Admission::Run {
            lock: None,
            gates: None,
        });
    }
    let Some(lock) = DreamLock::take(config, stores)? else {
        return Ok(Admission::Busy);
    };
    if !auto {
        return Ok(Admission::Run {
            lock: Some(lock),
            gates: None,
        });
    }
    let mut gates = Gates::load(config, stores);
    if let Some(why) = gates.check(config, stores, now)? {
        return Ok(Admission::Closed(why));
    }
    Ok(Admission::Run {
        lock: Some(lock),
        gates: Some(gates),
    })
}

/// Held for a whole dream: one lock file per store in the cache folder.
pub struct DreamLock {
    _files: Vec<File>,
}

impl DreamLock {
    /// Takes every store's dream lock, or `None` when another dream holds one.
    pub fn take(
        config: &Config,
        stores: &[ScopedStore],
    ) -> Result<Option<DreamLock>, DreamAutoError> {
        let mut files = Vec::new();
        for scoped in stores {
            let path = crate::cache_file(config, &scoped.store, "dream-lock");
            ensure_parent(&path)?;
            let file = match mdstore::atomic::open_private(
                &path,
                OpenOptions::new().create(true).truncate(false).write(true),
            ) {
                Ok(file) => file,
                Err(source) => return Err(DreamAutoError::OpenLock { path, source }),
            };
            match file.try_lock() {
                Ok(()) => files.push(file),
                Err(fs::TryLockError::WouldBlock) => return Ok(None),
                Err(fs::TryLockError::Error(source)) => {
                    return Err(DreamAutoError::Lock { path, source });
                }
            }
        }
        Ok(Some(DreamLock { _files: files }))
    }
}

fn ensure_parent(path: &Path) -> Result<(), DreamAutoError> {
    if let Some(parent) = path.parent() {
        mdstore::atomic::create_private_dir_all(parent).map_err(|source| {
            DreamAutoError::CacheFolder {
                dir: parent.to_path_buf(),
                source,
            }
        })?;
    }
    Ok(())
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
    pub fn load(config: &Config, stores: &[ScopedStore]) -> Gates {
        let path = stores
            .first()
            .map(|s| crate::cache_file(config, &s.store, "dream.json"))
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
        config: &Config,
        stores: &[ScopedStore],
        now: Timestamp,
    ) -> Result<Option<String>, DreamAutoError> {
        let limits = config.dream_gates()?;
        if let Some(why) = self.closed_by_time(&limits, now) {
            return Ok(Some(why));
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

    /// Whether the gates that need no scan are open (hours since the last
    /// dream, minutes since the last scan): a reading of one small file, so
    /// that a session can start a dream whose own [`Gates::check`] then
    /// counts the writes, without waiting for that count.
    /// A bad `MEMCTL_DREAM_*` value opens them: the dream then started
    /// stops on it, and its report names the variable at the next start.
    pub fn time_gates_open(&self, config: &Config, now: Timestamp) -> bool {
        config
            .dream_gates()
            .map_or(true, |limits| self.closed_by_time(&limits, now).is_none())
    }

    fn closed_by_time(&self, limits: &DreamGates, now: Timestamp) -> Option<String> {
        if let Some(last) = at(self.state.last_dream) {
            let hours = now.duration_since(last).as_hours();
            if hours < limits.hours {
                return Some(format!(
                    "the last dream was {hours} h ago; the next runs after {} h",
                    limits.hours
                ));
            }
        }
        if let Some(scan) = at(self.state.last_scan) {
            let minutes = now.duration_since(scan).as_mins();
            if minutes < limits.scan_minutes {
                return Some(format!(
                    "the store was scanned for writes {minutes} min ago; it is scanned at most every {} min",
                    limits.scan_minutes
                ));
            }
        }
        None
    }

    /// Records that a dream has just finished: the gates count from here.
    /// Rounded up to the next second, so that the dream's own writes are
    /// not counted as writes since it.
    pub fn dreamt(&mut self) {
        let after = mdstore::clock::now().as_second().saturating_add(1);
        self.state.last_dream = Some(after);
        self.state.last_scan = Some(after);
        // The gates are a convenience: a state that cannot be saved only
        // lets the next --auto run sooner.
        let _ = self.save();
    }

    fn save(&self) -> Result<(), DreamAutoError> {
        ensure_parent(&self.path)?;
        // Two optional numbers always serialise.
        let text = serde_json::to_string(&self.state).unwrap_or_default();
        mdstore::atomic::write_private_file(&self.path, text.as_bytes()).map_err(|source| {
            DreamAutoError::SaveGates {
                path: self.path.clone(),
                source,
            }
        })
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
