//! When a watcher stops by itself: after a stretch without searches (an
//! agent's session is over), and when its store folder goes away or is
//! replaced by another folder at the same path.

use std::fs;
use std::sync::mpsc;
use std::time::Duration;

use mdindex::{Error, WatchNote, WatchOptions, Watcher, WatcherState};

use crate::common::Env;

/// Far longer than any of these stops should take, even on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(60);

fn state(env: &Env) -> WatcherState {
    mdindex::watcher_state(&mdindex::IndexPaths::new(&env.cache, &env.store))
}

/// Starts a watcher; its notes arrive on the returned channel.
fn start(env: &Env, options: WatchOptions) -> (Watcher, mpsc::Receiver<WatchNote>) {
    let (notes, received) = mpsc::channel();
    let started = Watcher::start_with(&env.store, &env.cache, options, move |note| {
        let _ = notes.send(note);
    })
    .unwrap();
    (started.watcher, received)
}

/// Waits for the watcher to stop by itself, on another thread so that a
/// watcher that never stops fails the test instead of hanging it.
fn stopped(watcher: Watcher) -> Result<(), Error> {
    let (sender, result) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(watcher.wait());
    });
    result
        .recv_timeout(PATIENCE)
        .expect("the watcher stops by itself")
}

#[test]
fn a_watcher_with_an_idle_exit_lives_while_searched_and_stops_after() {
    let env = Env::new();
    env.write("deploy", "quokka");
    let idle = Duration::from_secs(3);
    let (watcher, notes) = start(
        &env,
        WatchOptions {
            idle_exit: Some(idle),
        },
    );
    // Searches more often than the idle time keep it alive well past it.
    for _ in 0..20 {
        assert_eq!(env.ids("quokka"), vec!["deploy".to_string()]);
        std::thread::sleep(Duration::from_millis(300));
    }
    assert_eq!(state(&env), WatcherState::Ready, "stopped while searched");
    stopped(watcher).unwrap();
    assert_eq!(state(&env), WatcherState::Absent);
    assert!(
        notes
            .try_iter()
            .any(|note| note == WatchNote::Idle { after: idle }),
        "no note said why it stopped"
    );
}

#[test]
fn a_watcher_stops_when_its_store_folder_is_deleted() {
    let env = Env::new();
    env.write("deploy", "quokka");
    let (watcher, _notes) = start(&env, WatchOptions::default());
    fs::remove_dir_all(env.root()).unwrap();
    let err = stopped(watcher).unwrap_err();
    assert!(
        matches!(err, Error::WatcherStopped { .. }) && err.to_string().contains("moved or deleted"),
        "{err}"
    );
}

#[test]
fn a_watcher_stops_when_another_folder_takes_its_store_path() {
    let env = Env::new();
    env.write("deploy", "quokka");
    let (watcher, _notes) = start(&env, WatchOptions::default());
    let aside = env.root().with_file_name("store-aside");
    fs::rename(env.root(), &aside).unwrap();
    fs::create_dir(env.root()).unwrap();
    let err = stopped(watcher).unwrap_err();
    assert!(err.to_string().contains("moved or deleted"), "{err}");
}
