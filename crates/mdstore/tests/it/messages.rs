//! What the library says: no message names a command that does not exist.

use mdstore::catalog::{Budget, Catalog};

#[test]
fn budget_warning_names_no_command_that_does_not_exist() {
    let catalog = Catalog {
        text: String::new(),
        listed: 180,
        omitted: 12,
        lines: 200,
        bytes: 24_000,
        budget: Budget::default(),
        preserved: None,
    };
    let warning = mdstore::write::budget_warning(&catalog);
    assert!(warning.contains("12 records are left out"), "{warning}");
    // A library does not know which commands its clients have.
    assert!(!warning.contains("memctl"), "{warning}");
}
