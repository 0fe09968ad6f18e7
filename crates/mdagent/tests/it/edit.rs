//! `mdagent::edit::save`: a hand edit saved under the lock only when the
//! file is still what the editor started from.

use std::path::Path;
use std::time::Duration;

use mdagent::edit::{self, EditError};
use mdagent::stores::read_stores;
use memctl_testkit::RecordFile;

use crate::support::{Stores, write};

#[test]
fn an_edit_is_saved_with_a_new_revision_unless_the_file_changed_meanwhile() {
    let stores = Stores::new();
    write(
        &stores.workspace(),
        RecordFile::written("deploys").body("Fridays.\n"),
    );
    let config = stores.config(false);
    let store = read_stores(&config).unwrap().remove(0).store;
    let rel = Path::new("deploys.md");
    let file = stores.workspace().join(rel);
    let original = std::fs::read(&file).unwrap();
    let edited = String::from_utf8(original.clone())
        .unwrap()
        .replace("Fridays.", "Never on Fridays.");
    let wait = Duration::from_secs(5);

    let done = edit::save(&config, &store, rel, &original, &edited, wait).unwrap();
    assert_eq!(done.saved.unwrap(), 2);
    assert!(
        done.committed.changed.contains(&rel.to_path_buf()),
        "{:?}",
        done.committed.changed
    );
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("Never on Fridays.")
    );

    // The editor started from the first text; the file is no longer it.
    let again = edit::save(&config, &store, rel, &original, &edited, wait).unwrap();
    assert!(
        matches!(again.saved, Err(EditError::Changed(_))),
        "{:?}",
        again.saved
    );
    assert!(again.committed.changed.is_empty());
}

#[test]
fn an_edited_copy_is_the_text_to_save_only_when_it_is_a_whole_record_in_utf8() {
    let stores = Stores::new();
    write(
        &stores.workspace(),
        RecordFile::written("deploys").body("Fridays.\n"),
    );
    let original = std::fs::read(stores.workspace().join("deploys.md")).unwrap();
    let text = String::from_utf8(original.clone()).unwrap();
    let edited = text.replace("Fridays.", "Never on Fridays.");

    assert_eq!(
        edit::validate("deploys", &original, edited.clone().into_bytes()).unwrap(),
        edited
    );
    let not_utf8 = edit::validate("deploys", &original, b"---\xff\n".to_vec()).unwrap_err();
    assert!(
        not_utf8[0].message.starts_with("not valid UTF-8"),
        "{not_utf8:?}"
    );
    let no_header = edit::validate("deploys", &original, b"just text\n".to_vec()).unwrap_err();
    assert!(!no_header.is_empty());
}
