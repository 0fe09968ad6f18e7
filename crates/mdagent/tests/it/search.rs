//! `mdagent::search::search`: the stores a search covers, their rankings
//! merged, what the face is told on the way, and why a search gives no
//! answer.

use jiff::Timestamp;
use mdagent::search::{self, Face, Found, Request, SearchError};
use mdagent::stores::ScopedStore;
use mdindex::{Progress, RebuildReport};
use mdstore::{RecordType, Scope, Source};
use memctl_testkit::RecordFile;

use crate::support::{Stores, write};

/// What a face was told, in order.
#[derive(Default)]
struct Told {
    rebuilt: Vec<Scope>,
    searched: Vec<Scope>,
    warnings: Vec<String>,
}

impl Face for Told {
    fn progress(&mut self, _: Progress) {}

    fn searched(&mut self, scoped: &ScopedStore, rebuilt: Option<&RebuildReport>) {
        self.searched.push(scoped.scope);
        if rebuilt.is_some() {
            self.rebuilt.push(scoped.scope);
        }
    }

    fn warn(&mut self, line: &str) {
        self.warnings.push(line.to_string());
    }
}

fn request<'a>(text: &'a str, scopes: Option<&'a [Scope]>) -> Request<'a> {
    Request {
        text,
        types: &[],
        limit: 10,
        scopes,
    }
}

fn run(stores: &Stores, global: bool, request: &Request<'_>) -> (Result<Found, SearchError>, Told) {
    let mut told = Told::default();
    let found = search::search(&stores.config(global), request, &mut told);
    (found, told)
}

fn ids(found: &Found) -> Vec<(Scope, &str)> {
    found
        .hits
        .iter()
        .map(|(s, h)| (*s, h.id.as_str()))
        .collect()
}

fn two_stores() -> Stores {
    let stores = Stores::new();
    let deploy = |id: &str| RecordFile::written(id).description("Deploys freeze on Fridays");
    write(&stores.workspace(), deploy("ws-freeze"));
    write(&stores.global(), deploy("global-freeze"));
    write(&stores.global(), RecordFile::written("unrelated"));
    stores
}

#[test]
fn both_stores_are_searched_and_a_tie_goes_to_the_nearer() {
    let stores = two_stores();
    let (found, told) = run(&stores, false, &request("freeze", None));
    let found = found.unwrap();
    assert_eq!(
        ids(&found),
        [
            (Scope::Workspace, "ws-freeze"),
            (Scope::Global, "global-freeze")
        ]
    );
    assert_eq!(found.stores.len(), 2);
    // Each store's own best scores 1 once merged.
    assert!(found.hits.iter().all(|(_, h)| h.score == 1.0));
    assert_eq!(told.searched, [Scope::Workspace, Scope::Global]);
    assert_eq!(told.warnings, Vec::<String>::new());
}

#[test]
fn a_first_search_rebuilds_each_index_and_says_so_once() {
    let stores = two_stores();
    let (_, first) = run(&stores, false, &request("freeze", None));
    assert_eq!(first.rebuilt, [Scope::Workspace, Scope::Global]);
    let (_, second) = run(&stores, false, &request("freeze", None));
    assert_eq!(second.rebuilt, Vec::<Scope>::new());
    assert_eq!(second.searched, [Scope::Workspace, Scope::Global]);
}

#[test]
fn the_stores_asked_for_the_query_scope_and_global_narrow_the_search() {
    let stores = two_stores();
    let only_global = [Scope::Global];
    let (asked, _) = run(&stores, false, &request("freeze", Some(&only_global)));
    assert_eq!(ids(&asked.unwrap()), [(Scope::Global, "global-freeze")]);
    let (by_query, _) = run(&stores, false, &request("freeze scope:workspace", None));
    assert_eq!(ids(&by_query.unwrap()), [(Scope::Workspace, "ws-freeze")]);
    // `--global` wins over what is asked.
    let both = [Scope::Workspace, Scope::Global];
    let (global, told) = run(&stores, true, &request("freeze", Some(&both)));
    assert_eq!(ids(&global.unwrap()), [(Scope::Global, "global-freeze")]);
    assert_eq!(told.searched, [Scope::Global]);
}

#[test]
fn a_hit_carries_its_expires_and_its_type_and_source_typed() {
    let stores = Stores::new();
    write(
        &stores.workspace(),
        RecordFile::written("old-freeze")
            .kind("feedback")
            .source("user")
            .description("The freeze held until 2020")
            .expires("2020-01-31"),
    );
    write(
        &stores.workspace(),
        RecordFile::written("new-freeze").description("The freeze holds"),
    );
    let (found, _) = run(&stores, false, &request("freeze", None));
    let found = found.unwrap();
    let hit = |id: &str| &found.hits.iter().find(|(_, h)| h.id == id).unwrap().1;
    let old = hit("old-freeze");
    assert_eq!(old.expires.as_deref(), Some("2020-01-31"));
    assert_eq!(old.record_type, Some(RecordType::Feedback));
    assert_eq!(old.source, Source::User);
    let now = Timestamp::now();
    assert!(old.has_expired(now));
    let new = hit("new-freeze");
    assert_eq!(new.expires, None);
    assert_eq!(new.record_type, Some(RecordType::Project));
    assert_eq!(new.source, Source::Inferred);
    assert!(!new.has_expired(now));
    // A date holds through its day: not expired the day before it ends.
    let on_the_day: Timestamp = "2020-01-31T23:00:00Z".parse().unwrap();
    assert!(!old.has_expired(on_the_day));
}

#[test]
fn no_store_to_search_names_the_stores_wanted() {
    let stores = Stores::new();
    std::fs::remove_dir(stores.global()).unwrap();
    let only_global = [Scope::Global];
    let (found, _) = run(&stores, false, &request("freeze", Some(&only_global)));
    match found {
        Err(e @ SearchError::NoStore { .. }) => {
            let SearchError::NoStore { wanted, .. } = &e else {
                unreachable!()
            };
            assert_eq!(wanted, &[Scope::Global]);
            let message = e.to_string();
            assert!(
                message.starts_with("no global store to search: ")
                    && message.ends_with(" does not exist"),
                "{message}"
            );
            let explained = mdagent::explain::explain(&e).unwrap();
            assert_eq!(explained.kind, mdagent::explain::Kind::BadInput);
            assert_eq!(
                explained.hint.as_deref(),
                Some("create it with `memctl init --global`")
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_query_that_cannot_be_searched_for_is_the_callers_and_gets_a_hint() {
    let stores = two_stores();
    for (text, hint_starts) in [
        ("type:bogus", "to search for the text itself"),
        ("*", "give a word"),
    ] {
        let (found, told) = run(&stores, false, &request(text, None));
        match found {
            Err(SearchError::Query(e)) => {
                assert!(
                    search::query_hint(&e, false).starts_with(hint_starts),
                    "{text}"
                )
            }
            other => panic!("{text}: {other:?}"),
        }
        // Refused before any store is searched.
        assert_eq!(told.searched, Vec::<Scope>::new(), "{text}");
    }
}
