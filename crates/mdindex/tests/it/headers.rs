//! The index as a header view: `expires` is kept, so that a caller can
//! leave out expired records without reading every file.

use std::fs;

use mdindex::Index;

use crate::common::Env;

fn record(id: &str, expires: Option<&str>) -> String {
    let expires = expires.map_or(String::new(), |e| format!("expires: {e}\n"));
    format!(
        "---\nname: {id}\ndescription: About {id}\ntype: project\n{expires}---\nBody of {id}.\n"
    )
}

fn expiring(env: &Env) -> Vec<(String, Option<String>)> {
    let mut index = Index::open(&env.store, &env.cache, &mut |_| {})
        .unwrap()
        .index;
    index.sync().unwrap();
    index
        .expiring()
        .unwrap()
        .into_iter()
        .map(|s| (s.id, s.meta.expires))
        .collect()
}

#[test]
fn only_records_with_an_expires_are_expiring_and_a_changed_expires_is_seen() {
    let env = Env::new();
    fs::write(env.path("freeze"), record("freeze", Some("2026-03-03"))).unwrap();
    fs::write(env.path("pytest"), record("pytest", None)).unwrap();
    assert_eq!(
        expiring(&env),
        vec![("freeze".to_string(), Some("2026-03-03".to_string()))]
    );
    // Only `expires` changes: the index must not keep the old value.
    fs::write(env.path("freeze"), record("freeze", Some("2027-01-01"))).unwrap();
    fs::write(env.path("pytest"), record("pytest", Some("2026-12-31"))).unwrap();
    assert_eq!(
        expiring(&env),
        vec![
            ("freeze".to_string(), Some("2027-01-01".to_string())),
            ("pytest".to_string(), Some("2026-12-31".to_string())),
        ]
    );
    let index = Index::open_existing(&env.store, &env.cache).unwrap();
    let all = index.summaries().unwrap();
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(|s| s.meta.expires.is_some()));
}
