//! Planning and applying writes (SPEC §6): every candidate is classified as
//! ADD, UPDATE, NOOP or REFUSED before anything touches the disk, and applied
//! only under the store's write lock.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use jiff::Timestamp;

use crate::atomic;
use crate::catalog::{self, Budget, Catalog};
use crate::frontmatter::{self, FieldValue, Frontmatter};
use crate::guard::secrets::{self, SecretFinding};
use crate::guard::temporary::{self, TemporaryFinding};
use crate::hash::content_hash;
use crate::id::{self, NameError};
use crate::record::{RecordType, Source};
use crate::store::{SkipReason, Skipped, Store, Summary};
use crate::tombstone::{self, Tombstone};
use crate::view::StoreView;

/// A proposed record, from the command line or an agent's JSON.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Candidate {
    pub name: String,
    #[serde(rename = "type", default, deserialize_with = "de_type")]
    pub record_type: Option<RecordType>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default, deserialize_with = "de_source")]
    pub source: Option<Source>,
    #[serde(default)]
    pub expires: Option<String>,
    #[serde(default, deserialize_with = "de_tags")]
    pub tags: Vec<String>,
    /// `workspace` or `global`; the CLI routes candidates by it.
    #[serde(default)]
    pub scope: Option<String>,
}

fn de_type<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<RecordType>, D::Error> {
    let text: Option<String> = serde::Deserialize::deserialize(d)?;
    text.map(|t| {
        RecordType::parse(&t).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown type {t:?}: expected user, feedback, project or reference"
            ))
        })
    })
    .transpose()
}

/// `"tags": null`, as extraction steps write for "no tags", is no tags.
fn de_tags<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let tags: Option<Vec<String>> = serde::Deserialize::deserialize(d)?;
    Ok(tags.unwrap_or_default())
}

fn de_source<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Source>, D::Error> {
    let text: Option<String> = serde::Deserialize::deserialize(d)?;
    text.map(|s| {
        Source::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown source {s:?}: expected user, verified or inferred"
            ))
        })
    })
    .transpose()
}

/// How a write is to be judged.
#[derive(Clone, Debug)]
pub struct WriteOptions {
    /// Overrides tombstones and the trust order.
    pub force: bool,
    /// Compare-and-swap: the record's revision must be this.
    pub expect_revision: Option<u64>,
    /// Temporary text refuses (non-interactive runs) instead of warning.
    pub refuse_temporary: bool,
    /// The source of a candidate that names none.
    pub default_source: Source,
    /// The time written into `created`/`updated`; fixed per command so that a
    /// plan made again under the lock renders the same bytes.
    pub now: Timestamp,
}

/// Why a candidate is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    Secret(Vec<Placed<SecretFinding>>),
    Temporary(Vec<Placed<TemporaryFinding>>),
    Tombstone(Tombstone),
    LowerTrust { existing: Source, proposed: Source },
    RevisionMismatch { expected: u64, actual: Option<u64> },
}

/// Where in a candidate a guard found something: the line a person should
/// look at, counted within the part it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Name,
    Description,
    Tags,
    /// A 1-based line of the body.
    Body(usize),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Name => f.write_str("in the name"),
            Place::Description => f.write_str("in the description"),
            Place::Tags => f.write_str("in a tag"),
            Place::Body(line) => write!(f, "on line {line}"),
        }
    }
}

/// A guard's finding and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed<T> {
    pub finding: T,
    pub place: Place,
}

/// Runs `guard` over each part of a candidate separately, so that a finding
/// is placed where it is (a description is not "line 2").
fn guard_parts<T>(
    parts: [(Place, &str); 4],
    guard: impl Fn(&str) -> Vec<T>,
    line_of: impl Fn(&T) -> usize,
) -> Vec<Placed<T>> {
    let mut placed = Vec::new();
    for (place, text) in parts {
        for finding in guard(text) {
            let place = match place {
                Place::Body(_) => Place::Body(line_of(&finding)),
                other => other,
            };
            placed.push(Placed { finding, place });
        }
    }
    placed
}

/// What a write will do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operation {
    Add,
    Update {
        from_revision: u64,
    },
    /// The same content is stored under `existing`.
    Noop {
        existing: String,
    },
    Refused(Refusal),
}

/// A classified candidate: everything the confirmation shows and the write needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub id: String,
    pub rel_path: PathBuf,
    pub operation: Operation,
    /// The file as it is now (UPDATE, NOOP of the same id).
    pub old_text: Option<String>,
    /// The file as it will be (ADD, UPDATE).
    pub new_text: Option<String>,
    pub warnings: Vec<String>,
}

/// A candidate that cannot even be classified: bad input (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("invalid name {name:?}: {source}")]
    Name { name: String, source: NameError },
    #[error("a new record needs --{0}")]
    Missing(&'static str),
    #[error("invalid expires {0:?}: expected a date (2026-12-31) or an RFC 3339 time")]
    Expires(String),
    #[error("the existing record {}: {}", .0.rel_path.display(), .0.reason)]
    Unreadable(Skipped),
    #[error("{} already exists and is not a readable record ({}); memctl will not overwrite it", .0.rel_path.display(), .0.reason)]
    Occupied(Skipped),
    #[error("the record would be {0} bytes; records are at most 256 KiB")]
    TooLarge(usize),
}

/// Classifies `candidate` against the store as `view` saw it.
pub fn plan(
    store: &Store,
    view: &StoreView,
    candidate: &Candidate,
    options: &WriteOptions,
) -> Result<Plan, PlanError> {
    let normalized = id::normalize_name(&candidate.name).map_err(|source| PlanError::Name {
        name: candidate.name.clone(),
        source,
    })?;
    if let Some(expires) = &candidate.expires {
        validate_expires(expires)?;
    }
    let existing = view.find(&normalized);
    let (id, rel_path) = match existing {
        Some(summary) => (summary.id.clone(), summary.rel_path.clone()),
        None => {
            let path =
                id::record_path(store.root(), &normalized).map_err(|source| PlanError::Name {
                    name: candidate.name.clone(),
                    source,
                })?;
            let rel = path
                .strip_prefix(store.root())
                .map(Path::to_path_buf)
                .unwrap_or(path);
            // A file the view skipped (not UTF-8, too large, a pipe…) is
            // still someone's file: never replace it as if it were new.
            let key = id::id_key(&normalized);
            let blocked = view
                .skipped
                .iter()
                .find(|s| id::id_key(&crate::store::id_from_rel_path(&s.rel_path)) == key)
                .cloned()
                .or_else(|| match store.stat(&rel) {
                    Ok(None) => None,
                    Ok(Some(_)) => Some(Skipped {
                        rel_path: rel.clone(),
                        reason: crate::store::SkipReason::Unreadable(
                            "it appeared while this write was being planned".to_string(),
                        ),
                    }),
                    Err(reason) => Some(Skipped {
                        rel_path: rel.clone(),
                        reason,
                    }),
                });
            if let Some(skipped) = blocked {
                return Err(PlanError::Occupied(skipped));
            }
            (normalized.clone(), rel)
        }
    };
    let mut warnings = Vec::new();
    if normalized != candidate.name && existing.is_none() {
        warnings.push(format!(
            "name {:?} is stored as {normalized:?}",
            candidate.name
        ));
    }
    let source = candidate.source.unwrap_or(options.default_source);
    let refused = |refusal, old_text: Option<String>, warnings: Vec<String>| Plan {
        id: id.clone(),
        rel_path: rel_path.clone(),
        operation: Operation::Refused(refusal),
        old_text,
        new_text: None,
        warnings,
    };

    let old = match existing {
        Some(summary) => Some(
            store
                .read_record(&summary.rel_path)
                .map_err(PlanError::Unreadable)?,
        ),
        None => None,
    };
    let old_text = old.as_ref().map(|_| read_text(store, &rel_path));

    if let Some(expected) = options.expect_revision {
        let actual = old.as_ref().map(|r| r.meta.revision.unwrap_or(1));
        if actual != Some(expected) {
            return Ok(refused(
                Refusal::RevisionMismatch { expected, actual },
                old_text,
                warnings,
            ));
        }
    }

    let description = candidate
        .description
        .clone()
        .or_else(|| old.as_ref().and_then(|r| r.meta.description.clone()));
    let body = candidate
        .body
        .clone()
        .or_else(|| old.as_ref().map(|r| r.body.clone()))
        .unwrap_or_default();
    let record_type = candidate
        .record_type
        .or(old.as_ref().and_then(|r| r.meta.record_type));
    let Some(description) = description.filter(|d| !d.trim().is_empty()) else {
        return Err(PlanError::Missing("description"));
    };
    if record_type.is_none() {
        return Err(PlanError::Missing("type"));
    }
    if old.is_none() && body.trim().is_empty() {
        return Err(PlanError::Missing("body (text, or - for standard input)"));
    }

    let tags = candidate.tags.join("\n");
    let parts = [
        (Place::Name, candidate.name.as_str()),
        (Place::Description, description.as_str()),
        (Place::Tags, tags.as_str()),
        (Place::Body(0), body.as_str()),
    ];
    let found = guard_parts(parts, secrets::find_secrets, |f| f.line);
    if !found.is_empty() {
        return Ok(refused(Refusal::Secret(found), old_text, warnings));
    }
    let [_, description_part, _, body_part] = parts;
    let temporary_found = guard_parts(
        [
            (Place::Name, ""),
            description_part,
            (Place::Tags, ""),
            body_part,
        ],
        temporary::find_temporary,
        |f| f.line,
    );
    if !temporary_found.is_empty() {
        if options.refuse_temporary {
            return Ok(refused(
                Refusal::Temporary(temporary_found),
                old_text,
                warnings,
            ));
        }
        for found in &temporary_found {
            warnings.push(format!(
                "{:?} {} marks this as temporary; memory is for what stays true",
                found.finding.phrase, found.place
            ));
        }
    }

    let hash = content_hash(&description, &body);
    if !options.force
        && let Some(tomb) = tombstone::find_match(&view.tombstones, &id, &hash)
    {
        return Ok(refused(
            Refusal::Tombstone(tomb.clone()),
            old_text,
            warnings,
        ));
    }

    if let Some(old) = &old {
        let existing_source = old.source();
        let unchanged = content_hash(old.meta.description.as_deref().unwrap_or(""), &old.body)
            == hash
            && old.meta.record_type == record_type
            && (candidate.tags.is_empty() || candidate.tags == old.meta.tags)
            && (candidate.expires.is_none() || candidate.expires == old.meta.expires);
        if unchanged {
            return Ok(Plan {
                operation: Operation::Noop {
                    existing: old.id.clone(),
                },
                id,
                rel_path,
                old_text,
                new_text: None,
                warnings,
            });
        }
        if source < existing_source && !options.force {
            return Ok(refused(
                Refusal::LowerTrust {
                    existing: existing_source,
                    proposed: source,
                },
                old_text,
                warnings,
            ));
        }
    } else if let Some(twin) = same_content_elsewhere(store, view, &description, &hash) {
        return Ok(Plan {
            operation: Operation::Noop { existing: twin },
            id,
            rel_path,
            old_text: None,
            new_text: None,
            warnings,
        });
    }

    let from_revision = old.as_ref().map(|r| r.meta.revision.unwrap_or(1));
    let mut fm = old
        .as_ref()
        .and_then(|r| r.frontmatter.clone())
        .unwrap_or_else(Frontmatter::new);
    let leaf = id.rsplit('/').next().unwrap_or(&id).to_string();
    fm.set("name", FieldValue::Text(leaf));
    fm.set("description", FieldValue::Text(one_line(&description)));
    if let Some(t) = record_type {
        fm.set("type", FieldValue::Text(t.as_str().to_string()));
    }
    let created = old
        .as_ref()
        .and_then(|r| r.meta.created)
        .unwrap_or(options.now);
    fm.set("created", FieldValue::Text(created.to_string()));
    fm.set("updated", FieldValue::Text(options.now.to_string()));
    fm.set(
        "revision",
        FieldValue::Integer(from_revision.map_or(1, |r| r.saturating_add(1))),
    );
    fm.set("source", FieldValue::Text(source.as_str().to_string()));
    if let Some(expires) = &candidate.expires {
        fm.set("expires", FieldValue::Text(expires.clone()));
    }
    if !candidate.tags.is_empty() {
        fm.set("tags", FieldValue::List(candidate.tags.clone()));
    }
    let body = if body.ends_with('\n') {
        body
    } else {
        format!("{body}\n")
    };
    let new_text = frontmatter::render(&fm, &body);
    if new_text.len() as u64 > crate::store::MAX_RECORD_BYTES {
        return Err(PlanError::TooLarge(new_text.len()));
    }

    Ok(Plan {
        operation: match from_revision {
            Some(from_revision) => Operation::Update { from_revision },
            None => Operation::Add,
        },
        id,
        rel_path,
        old_text,
        new_text: Some(new_text),
        warnings,
    })
}

/// The warning to show before `plans` are written when `MEMORY.md` would
/// then use more than 90% of its budget (SPEC §3), counting every plan of a
/// batch together.
pub fn budget_warning_after(view: &StoreView, plans: &[&Plan]) -> Option<String> {
    // Borrowed, not cloned: at 100,000 records a copy of the view would
    // double a write's memory.
    let written: Vec<Summary> = plans
        .iter()
        .filter_map(|plan| {
            let text = plan.new_text.as_ref()?;
            Some(Summary {
                id: plan.id.clone(),
                rel_path: plan.rel_path.clone(),
                meta: frontmatter::parse(text).meta,
            })
        })
        .collect();
    let replaced: std::collections::HashSet<String> =
        written.iter().map(|s| id::id_key(&s.id)).collect();
    let kept = view
        .summaries
        .iter()
        .filter(|s| replaced.is_empty() || !replaced.contains(&id::id_key(&s.id)));
    let catalog = catalog::render(kept.chain(&written), Budget::default());
    (catalog.budget_share() > 0.9).then(|| budget_warning(&catalog))
}

/// What `remember` and `status` say when `MEMORY.md` nears its budget.
pub fn budget_warning(catalog: &Catalog) -> String {
    if catalog.omitted > 0 {
        format!(
            "MEMORY.md is over its budget: {} records are left out of it; merge or forget records to bring them back",
            catalog.omitted
        )
    } else {
        format!(
            "MEMORY.md will use {:.0}% of its budget ({} of {} lines, {} of {} bytes)",
            // Rounded up: a warning given above 90% must not say "90%".
            (catalog.budget_share() * 100.0).ceil(),
            catalog.lines,
            catalog.budget.max_lines,
            catalog.bytes,
            catalog.budget.max_bytes
        )
    }
}

fn read_text(store: &Store, rel_path: &Path) -> String {
    fs::read_to_string(store.root().join(rel_path)).unwrap_or_default()
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn validate_expires(text: &str) -> Result<(), PlanError> {
    let ok = text.parse::<jiff::civil::Date>().is_ok() || text.parse::<Timestamp>().is_ok();
    if ok {
        Ok(())
    } else {
        Err(PlanError::Expires(text.to_string()))
    }
}

/// Another record holding the same description and body, found by reading
/// only the bodies of records whose description already matches.
fn same_content_elsewhere(
    store: &Store,
    view: &StoreView,
    description: &str,
    hash: &str,
) -> Option<String> {
    let wanted = one_line(description).to_lowercase();
    view.summaries
        .iter()
        .filter(|s| one_line(s.description()).to_lowercase() == wanted)
        .find_map(|s| {
            let record = store.read_record(&s.rel_path).ok()?;
            let theirs = content_hash(
                record.meta.description.as_deref().unwrap_or(""),
                &record.body,
            );
            (theirs == hash).then_some(record.id)
        })
}

/// Applies a plan made under the write lock: writes the record, forgets any
/// tombstone a forced re-add overrides, and regenerates `MEMORY.md`.
/// Returns the new catalogue. Plans that write nothing are a no-op.
pub fn apply(store: &Store, view: &mut StoreView, plan: &Plan) -> io::Result<Option<Catalog>> {
    let Some(text) = &plan.new_text else {
        return Ok(None);
    };
    clean_temp_files(store);
    let path = store.root().join(&plan.rel_path);
    atomic::write_file(&path, text.as_bytes())?;
    if view
        .tombstones
        .iter()
        .any(|t| id::id_key(&t.id) == id::id_key(&plan.id))
    {
        atomic::remove_file(&tombstone::tombstone_path(store.root(), &plan.id))?;
        view.tombstones
            .retain(|t| id::id_key(&t.id) != id::id_key(&plan.id));
    }
    let summary = store
        .read_summary(&plan.rel_path)
        .map_err(|s| io::Error::other(format!("{}: {}", s.rel_path.display(), s.reason)))?;
    view.upsert(summary);
    catalog::write(store, &view.summaries).map(Some)
}

/// Removes a record, leaving a tombstone, and regenerates `MEMORY.md`. The
/// caller holds the write lock.
pub fn forget(
    store: &Store,
    view: &mut StoreView,
    id: &str,
    reason: Option<String>,
    now: Timestamp,
) -> Result<Tombstone, ForgetError> {
    let summary = view
        .find(id)
        .ok_or_else(|| ForgetError::NotFound(id.to_string()))?;
    let rel_path = summary.rel_path.clone();
    let record_id = summary.id.clone();
    let hash = match store.read_record(&rel_path) {
        Ok(record) => content_hash(
            record.meta.description.as_deref().unwrap_or(""),
            &record.body,
        ),
        // A file whose header read but whose body is not text can still be
        // forgotten: its tombstone remembers a hash of what bytes it had.
        Err(Skipped {
            reason: SkipReason::NotUtf8(_) | SkipReason::NulByte(_),
            ..
        }) => {
            let bytes = fs::read(store.root().join(&rel_path)).map_err(ForgetError::Io)?;
            content_hash("", &String::from_utf8_lossy(&bytes))
        }
        Err(skipped) => return Err(ForgetError::Unreadable(skipped)),
    };
    let tomb = Tombstone {
        id: record_id.clone(),
        forgotten_at: now,
        reason,
        content_hash: hash,
    };
    clean_temp_files(store);
    // Tombstone first: a crash between the two leaves the fact both stored and
    // tombstoned (re-forgettable), never gone without a tombstone.
    tombstone::write(store.root(), &tomb).map_err(ForgetError::Io)?;
    atomic::remove_file(&store.root().join(&rel_path)).map_err(ForgetError::Io)?;
    view.remove(&record_id);
    view.tombstones.push(tomb.clone());
    catalog::write(store, &view.summaries).map_err(ForgetError::Io)?;
    Ok(tomb)
}

#[derive(Debug, thiserror::Error)]
pub enum ForgetError {
    #[error("no record {0:?} in this store")]
    NotFound(String),
    #[error("{}: {}", .0.rel_path.display(), .0.reason)]
    Unreadable(Skipped),
    #[error(transparent)]
    Io(io::Error),
}

/// Removes temporary files that a crashed writer left. Only called under the
/// write lock, when no other writer can own one.
pub fn clean_temp_files(store: &Store) {
    let dirs = walkdir::WalkDir::new(store.root())
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with(".git"))
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_type().is_file() && atomic::is_temp_name(&e.file_name().to_string_lossy())
        });
    for entry in dirs {
        // Best effort: a leftover that cannot be removed is still ignored by readers.
        let _ = fs::remove_file(entry.path());
    }
}
