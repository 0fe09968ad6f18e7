//! An agent's forget (the MCP server's `forget` tool): one record, looked
//! up and read under the store's lock, forgotten only if it is not the
//! user's and still is what the agent read. Nobody confirms it.

use jiff::Timestamp;
use mdstore::hash::read_hash;
use mdstore::write::ForgetError;
use mdstore::{Source, Store};

use crate::face::Tell;
use crate::remember::CatalogNews;
use crate::write_failure::WriteFailure;
use crate::{Config, index_sink};

/// What the agent says it read of the record it would forget.
#[derive(Clone, Debug)]
pub struct ReadAs {
    pub revision: u64,
    pub read_hash: String,
}

/// What an agent's forget came to; each face words the failures.
#[derive(Debug)]
pub enum AgentForget {
    /// Forgotten, behind a tombstone.
    Forgotten { id: String, catalog: CatalogNews },
    /// No record has that id.
    NoRecord,
    /// The record's file cannot be read as a record, and why.
    Unreadable { id: String, reason: String },
    /// The agent may not forget it: why, and what it can do instead.
    NotToForget {
        id: String,
        reason: String,
        hint: String,
    },
    /// The store could not forget it (another process removed it first,
    /// or the disk failed).
    Failed { id: String, error: ForgetError },
}

/// Forgets the record `id` of `store` if the agent may (see
/// [`not_to_forget`]); `MEMORY.md` and the index follow, and the change is
/// committed to git when the store's `.memctl.toml` asks for it.
pub fn forget_as_read(
    config: &Config,
    tell: &dyn Tell,
    store: &Store,
    id: &str,
    reason: Option<String>,
    read: &ReadAs,
) -> Result<AgentForget, WriteFailure> {
    let mut txn = index_sink::begin(config, store, config.lock_timeout()?)?;
    // Looked up and read under the lock: what is compared is what is
    // forgotten.
    let Some(summary) = txn.view().find(id).cloned() else {
        return Ok(AgentForget::NoRecord);
    };
    let record = match store.read_record(&summary.rel_path) {
        Ok(record) => record,
        Err(skipped) => {
            return Ok(AgentForget::Unreadable {
                id: summary.id,
                reason: skipped.reason.to_string(),
            });
        }
    };
    if let Some((reason, hint)) = not_to_forget(&record, read) {
        return Ok(AgentForget::NotToForget {
            id: summary.id,
            reason,
            hint,
        });
    }
    let forgotten = txn.forget(&summary.id, reason, Timestamp::now());
    let committed = txn.commit(&mut index_sink::IndexSink::new(config, store));
    if let Err(error) = forgotten {
        return Ok(AgentForget::Failed {
            id: summary.id,
            error,
        });
    }
    let message = format!("forget: {}", summary.id);
    crate::git::commit::after_write(
        config,
        tell,
        store.root(),
        false,
        &message,
        &committed.changed,
    );
    Ok(AgentForget::Forgotten {
        id: summary.id,
        catalog: CatalogNews::of(&committed),
    })
}

/// Why the agent may not forget `record` (the reason, and what to do
/// instead), or `None`. The user's records are the user's (a file without
/// `source` is one, SPEC §2); any other is forgotten only as it was read:
/// at that revision, and still saying what it said then, since a hand edit
/// keeps the revision.
fn not_to_forget(record: &mdstore::Record, read: &ReadAs) -> Option<(String, String)> {
    let id = &record.id;
    if record.source() == Source::User {
        return Some((
            format!(
                "{id} is the user's record (source: user): an agent may not forget it; nothing was forgotten"
            ),
            format!(
                "ask the user: tell them why it no longer holds; they can forget it with `memctl forget {id}`"
            ),
        ));
    }
    let actual = record.meta.revision.unwrap_or(1);
    if actual != read.revision {
        return Some((
            format!(
                "{id} is at revision {actual}, not {}; nothing was forgotten",
                read.revision
            ),
            "show it again, read it, and pass the revision and read_hash it has now".to_string(),
        ));
    }
    if read_hash(record) != read.read_hash {
        return Some((
            format!(
                "{id} changed since you read it (edited by hand, its revision kept); nothing was forgotten"
            ),
            "show it again, read it, and pass the read_hash it has now".to_string(),
        ));
    }
    None
}
