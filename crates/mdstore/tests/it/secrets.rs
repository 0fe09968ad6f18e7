//! The secret guard measured on the labelled set and on real files
//! (docs/SECRETS.md has the figures; `examples/secrets_eval.rs` prints them).

use std::path::Path;

use mdstore::guard::secrets::{find_secrets, rule_names};

use crate::labelled_secrets::{detection_by_family, negatives, positives, scan_tree};

/// The detection rate measured on the labelled set, kept as a floor.
const MIN_DETECTION: f64 = 1.0;

#[test]
fn labelled_secrets_are_detected_in_every_family() {
    let set = positives();
    assert!(set.len() >= 150, "only {} labelled secrets", set.len());
    let by_family = detection_by_family(&set);
    assert!(by_family.len() >= 10, "{by_family:?}");
    for (family, (found, named, total)) in &by_family {
        let rate = *found as f64 / *total as f64;
        assert!(
            rate >= MIN_DETECTION && named == found,
            "{family}: {found} of {total} found, {named} by the expected rule"
        );
    }
    let missed: Vec<&str> = set
        .iter()
        .filter(|l| find_secrets(&l.line).is_empty())
        .map(|l| l.rule.as_str())
        .collect();
    assert!(missed.is_empty(), "missed: {missed:?}");
}

#[test]
fn every_rule_has_labelled_secrets() {
    let set = positives();
    let unlabelled: Vec<&str> = rule_names()
        .filter(|rule| !set.iter().any(|l| l.rule == *rule))
        .collect();
    assert!(unlabelled.is_empty(), "{unlabelled:?}");
}

#[test]
fn labelled_negatives_are_not_secrets() {
    let set = negatives();
    assert!(set.len() >= 100, "only {} labelled negatives", set.len());
    let reported: Vec<(String, String)> = set
        .iter()
        .filter_map(|l| {
            let findings = find_secrets(&l.line);
            (!findings.is_empty()).then(|| (l.line.clone(), format!("{findings:?}")))
        })
        .collect();
    assert!(reported.is_empty(), "{reported:#?}");
}

#[test]
fn demo_store_has_no_secret_findings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/demo-store");
    let (findings, files, _) = scan_tree(&root);
    assert!(files >= 5, "{} holds {files} records", root.display());
    assert!(findings.is_empty(), "{findings:?}");
}

#[test]
fn frontmatter_wild_sample_has_no_secret_findings() {
    let (findings, files, _) = scan_tree(&crate::wild::sample_root());
    assert!(files >= 120, "{files} files");
    assert!(findings.is_empty(), "{findings:?}");
}

/// Issue 6: an edit that appended `password: …` to a record was saved.
#[test]
fn edit_appending_a_password_line_is_invalid() {
    let text = "---\nname: db\ndescription: The database\ntype: project\n---\nPostgres 16 on db.internal.\npassword: hunter2hunter2\n";
    let problems = mdstore::edit::validate("db", "", text);
    let secret: Vec<(Option<usize>, &str)> = problems
        .iter()
        .filter(|p| p.message.contains("secret"))
        .map(|p| (p.line, p.message.as_str()))
        .collect();
    assert_eq!(secret.len(), 1, "{problems:?}");
    assert_eq!(secret[0].0, Some(7));
    assert!(secret[0].1.contains("password-assignment"), "{problems:?}");
    assert!(!secret[0].1.contains("hunter2hunter2"), "{problems:?}");
}
