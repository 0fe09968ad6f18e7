//! Searches while the index is rebuilt by another thread or process answer
//! from the old index or the new one, never with an error.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;

use mdindex::{Index, RebuildCause};
use pretty_assertions::assert_eq;

use crate::child::ChildRebuilder;
use crate::common::Env;

fn store_with_records() -> Env {
    let env = Env::new();
    for i in 0..400 {
        env.write(
            &format!("note-{i:03}"),
            &format!("quokka filler{i} {}", "padding words ".repeat(20)),
        );
    }
    env.write("target", "wombat");
    assert_eq!(env.ids("wombat"), vec!["target".to_string()]);
    env
}

/// Searches, asserting each answer, until `enough` says so (and at least five times).
fn search_until(env: &Env, enough: impl Fn() -> bool) {
    let mut searches = 0;
    while !enough() || searches < 5 {
        assert_eq!(env.ids("wombat"), vec!["target".to_string()]);
        assert_eq!(env.ids("quokka").len(), 400);
        searches += 1;
    }
}

#[test]
fn searches_answer_while_a_thread_rebuilds() {
    let env = store_with_records();
    let stop = AtomicBool::new(false);
    let rebuilds = AtomicUsize::new(0);
    thread::scope(|scope| {
        let rebuilder = scope.spawn(|| {
            let mut index = Index::open(&env.store, &env.cache, &mut |_| {})
                .unwrap()
                .index;
            while !stop.load(Ordering::SeqCst) {
                index.rebuild(RebuildCause::Requested, &mut |_| {}).unwrap();
                rebuilds.fetch_add(1, Ordering::SeqCst);
            }
        });
        // A rebuilder that failed ends the searching (and fails the join).
        search_until(&env, || {
            rebuilds.load(Ordering::SeqCst) >= 3 || rebuilder.is_finished()
        });
        stop.store(true, Ordering::SeqCst);
        rebuilder.join().unwrap();
    });
}

#[test]
fn searches_answer_while_another_process_rebuilds() {
    let env = store_with_records();
    let rebuilder = ChildRebuilder::start(&env);
    let before = rebuilder.rebuilds();
    search_until(&env, || {
        rebuilder.rebuilds() >= before + 3 || rebuilder.has_ended()
    });
    assert!(!rebuilder.has_ended(), "the rebuilding process failed");
}
