//! A candidate for memory that says again what a record of its store says
//! (issue 27: three accepted candidates had repeated records and made three
//! duplicate pairs, with no warning). `remember` classifies by name: a
//! candidate under a new name is an ADD, whatever it says. Before a
//! candidate from a session waits (and again when it is reviewed), it is
//! judged against its store's records as dream judges near-duplicates
//! (`mddream::gather::repeated_by`); one that repeats a record is proposed
//! under that record's name, so that `remember`'s own classification says
//! what accepting it would do: an UPDATE of that record (with the diff), a
//! NOOP, or a refusal (a record the user wrote is not replaced by a
//! model's words). One that adds nothing to the record is given the
//! record's own words: a NOOP, "already stored".

use std::collections::BTreeMap;
use std::path::PathBuf;

use mddream::records::DreamRecord;
use mdstore::Scope;
use mdstore::record::{Meta, Record};
use mdstore::write::Candidate;

use crate::remember::Parsed;
use crate::stores::ScopedStore;

/// A candidate proposed under the name of the record it repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Retargeted {
    /// The record's id, now the candidate's name.
    pub record: String,
    /// The name the model gave it.
    pub proposed: String,
    /// The record already says all of it.
    pub adds_nothing: bool,
}

/// Renames each candidate of `parsed` that repeats a record of its store
/// (its `scope`, else `default_scope`) and is not already named as one;
/// returns what was done to each, in order.
pub fn retarget(
    stores: &[ScopedStore],
    default_scope: Scope,
    parsed: &mut [Parsed],
) -> Vec<Option<Retargeted>> {
    let mut loaded: BTreeMap<Scope, Vec<DreamRecord>> = BTreeMap::new();
    parsed
        .iter_mut()
        .map(|parsed| {
            let candidate = parsed.as_mut().ok()?;
            let scope = match candidate.scope.as_deref() {
                Some("global") => Scope::Global,
                Some("workspace") => Scope::Workspace,
                Some(_) => return None,
                None => default_scope,
            };
            let scoped = stores.iter().find(|s| s.scope == scope)?;
            let records = loaded
                .entry(scope)
                .or_insert_with(|| mddream::records::load(&scoped.store, scope).records);
            retarget_one(candidate, scope, records)
        })
        .collect()
}

fn retarget_one(
    candidate: &mut Candidate,
    scope: Scope,
    records: &[DreamRecord],
) -> Option<Retargeted> {
    let key = mdstore::id::id_key(&candidate.name);
    if records
        .iter()
        .any(|r| mdstore::id::id_key(&r.record.id) == key)
    {
        // Named as a record already: remember says what it would do.
        return None;
    }
    let proposed = as_record(candidate, scope);
    let found = mddream::gather::repeated_by(&proposed, records)?;
    let record = &records[found.index].record;
    let retargeted = Retargeted {
        record: record.id.clone(),
        proposed: std::mem::replace(&mut candidate.name, record.id.clone()),
        adds_nothing: found.adds_nothing,
    };
    // Its type is the model's guess; the record's stands.
    candidate.record_type = record.meta.record_type.or(candidate.record_type);
    if found.adds_nothing {
        candidate.description = record.meta.description.clone();
        candidate.body = Some(record.body.clone());
        candidate.tags = record.meta.tags.clone();
        candidate.expires = record.meta.expires.clone();
    }
    Some(retargeted)
}

/// A candidate as the record it would be, for the judge.
fn as_record(candidate: &Candidate, scope: Scope) -> DreamRecord {
    DreamRecord {
        scope,
        record: Record {
            id: candidate.name.clone(),
            rel_path: PathBuf::from(format!("{}.md", candidate.name)),
            meta: Meta {
                name: Some(candidate.name.clone()),
                description: candidate.description.clone(),
                record_type: candidate.record_type,
                expires: candidate.expires.clone(),
                tags: candidate.tags.clone(),
                ..Meta::default()
            },
            written_name: None,
            frontmatter: None,
            body: candidate.body.clone().unwrap_or_default(),
            problems: Vec::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store_with(records: &[(&str, &str, &str)]) -> (tempfile::TempDir, ScopedStore) {
        let dir = tempfile::tempdir().unwrap();
        for (id, description, body) in records {
            std::fs::write(
                dir.path().join(format!("{id}.md")),
                format!("---\nname: {id}\ndescription: {description}\ntype: feedback\nsource: user\n---\n{body}\n"),
            )
            .unwrap();
        }
        let store = mdstore::Store::open(dir.path()).unwrap();
        (
            dir,
            ScopedStore {
                scope: Scope::Workspace,
                store,
            },
        )
    }

    fn candidate(name: &str, description: &str, body: &str) -> Parsed {
        Ok(Candidate {
            name: name.into(),
            description: Some(description.into()),
            body: Some(body.into()),
            ..Candidate::default()
        })
    }

    #[test]
    fn a_candidate_repeating_a_record_is_proposed_under_its_name() {
        let (_dir, scoped) = store_with(&[
            (
                "prefer-pnpm",
                "This repository uses pnpm, never npm",
                "Install and run scripts with pnpm; npm rewrites pnpm-lock.yaml.",
            ),
            (
                "deploy",
                "Deploys go through make release",
                "Run make release.",
            ),
        ]);
        let mut parsed = vec![
            candidate(
                "use-pnpm-not-npm",
                "Use pnpm in this repository, never npm",
                "Install and run scripts with pnpm: npm rewrites pnpm-lock.yaml. CI uses pnpm too.",
            ),
            candidate(
                "ruff",
                "Run ruff before every commit",
                "Lint with ruff first.",
            ),
            candidate(
                "deploy",
                "Deploys go through make release",
                "Run make release.",
            ),
        ];
        let done = retarget(std::slice::from_ref(&scoped), Scope::Workspace, &mut parsed);
        let first = done[0]
            .as_ref()
            .expect("the pnpm candidate repeats prefer-pnpm");
        assert_eq!(first.record, "prefer-pnpm");
        assert_eq!(first.proposed, "use-pnpm-not-npm");
        assert!(!first.adds_nothing, "it adds that CI uses pnpm");
        assert_eq!(parsed[0].as_ref().unwrap().name, "prefer-pnpm");
        assert_eq!(done[1], None, "a new fact stays new");
        assert_eq!(done[2], None, "named as its record already");
    }
}
