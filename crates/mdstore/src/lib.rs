/*!
`mdstore` owns memctl's memory records: one Markdown file each, with YAML
frontmatter, in a store folder that people edit and version with git.

It reads real-world files leniently, validates ids and paths, writes
atomically under the store's lock, regenerates `MEMORY.md`, keeps tombstones
and runs the write guards. It knows nothing of the search index.

```
let dir = tempfile::tempdir().unwrap();
let store = mdstore::Store::create(dir.path()).unwrap();
std::fs::write(
    dir.path().join("prefer-pytest.md"),
    "---\nname: prefer-pytest\ndescription: Tests use pytest\ntype: feedback\n---\nUse pytest.\n",
).unwrap();
let record = store.read_record("prefer-pytest.md".as_ref()).unwrap();
assert_eq!(record.meta.description.as_deref(), Some("Tests use pytest"));
assert_eq!(record.body, "Use pytest.\n");
```
*/
#![forbid(unsafe_code)]

pub mod atomic;
pub mod catalog;
pub mod check;
pub mod clock;
pub mod conflict;
pub mod edit;
pub mod escape;
pub mod expiry;
pub mod frontmatter;
pub mod guard;
pub mod hash;
pub mod id;
pub mod invisible;
pub mod lock;
pub mod markdown;
pub mod record;
pub mod recover;
pub mod redact;
pub mod scope;
pub mod store;
pub mod tombstone;
pub mod txn;
pub mod untrusted;
pub mod view;
pub mod write;

pub use record::{Meta, Problem, Record, RecordType, Severity, Source};
pub use scope::Scope;
pub use store::{
    FileEntry, Met, QuickWalk, RecordStat, SkipReason, Skipped, Store, Summary, WalkItem,
};
