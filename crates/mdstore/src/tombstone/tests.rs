use super::*;
use crate::hash::content_hash;
use pretty_assertions::assert_eq;
use rstest::rstest;

#[test]
fn tombstones_symlinked_out_of_the_store_are_not_written() {
    let store = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), store.path().join(TOMBSTONE_DIR)).unwrap();
    let err = write(store.path(), &tombstone("a", None, "body")).unwrap_err();
    assert!(err.to_string().contains("a symbolic link"), "{err}");
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn tombstones_folder_that_is_a_file_is_named() {
    let store = tempfile::tempdir().unwrap();
    fs::write(store.path().join(TOMBSTONE_DIR), "").unwrap();
    let err = write(store.path(), &tombstone("a", None, "body")).unwrap_err();
    assert!(
        err.to_string().contains(".tombstones is not a folder"),
        "{err}"
    );
}

#[test]
fn a_second_tombstone_of_the_same_id_key_keeps_the_first() {
    let store = tempfile::tempdir().unwrap();
    write(store.path(), &tombstone("A", None, "upper body")).unwrap();
    write(store.path(), &tombstone("a", None, "lower body")).unwrap();
    let (all, problems) = load_all(store.path());
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(all.len(), 2);
    let upper = content_hash("a description", "upper body");
    assert!(
        find_match(&all, "other", &upper).is_some(),
        "A's content stays forgotten"
    );
    // The same content forgotten twice is one tombstone.
    write(store.path(), &tombstone("a", None, "lower body")).unwrap();
    assert_eq!(load_all(store.path()).0.len(), 2);
}

/// Issue 9 (found by the model-based test's merges): two branches
/// that both forgot an id merge into a tombstone with conflict markers,
/// which read as no tombstone, so the id could be re-added unforced.
#[test]
fn tombstone_left_with_git_conflict_markers_still_refuses_its_id() {
    let store = tempfile::tempdir().unwrap();
    let folder = store.path().join(TOMBSTONE_DIR);
    fs::create_dir(&folder).unwrap();
    let hashes = [content_hash("d", "ours"), content_hash("d", "theirs")];
    let text = format!(
        "{{\n  \"id\": \"r0\",\n<<<<<<< HEAD\n  \"forgotten_at\": \"2026-11-30T12:00:00Z\",\n  \"content_hash\": \"{}\"\n=======\n  \"forgotten_at\": \"2026-11-30T12:00:01Z\",\n  \"content_hash\": \"{}\"\n>>>>>>> left\n}}\n",
        hashes[0], hashes[1]
    );
    fs::write(folder.join("r0.json"), text).unwrap();
    let (all, problems) = load_all(store.path());
    let found: Vec<&str> = all.iter().map(|t| t.content_hash.as_str()).collect();
    assert_eq!(found, [hashes[0].as_str(), hashes[1].as_str()]);
    assert!(find_match(&all, "R0", "").is_some());
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0]
            .1
            .starts_with("an unresolved git merge conflict (markers at lines 3, 6, 9)"),
        "{problems:?}"
    );
}

fn tombstone(id: &str, reason: Option<&str>, body: &str) -> Tombstone {
    Tombstone {
        id: id.to_string(),
        forgotten_at: Timestamp::new(1_795_962_725, 123_000_000).unwrap(),
        reason: reason.map(str::to_string),
        content_hash: content_hash("a description", body),
    }
}

fn file_names(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root.join(TOMBSTONE_DIR))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let with_reason = tombstone("prefer-pytest", Some("we moved to nox"), "use pytest");
    let without_reason = tombstone("ci-cache", None, "cache in ~/.cache");
    write(dir.path(), &with_reason).unwrap();
    write(dir.path(), &without_reason).unwrap();
    let (loaded, problems) = load_all(dir.path());
    assert_eq!(problems, vec![]);
    assert_eq!(loaded, vec![without_reason, with_reason]);
    assert_eq!(
        file_names(dir.path()),
        vec!["ci-cache.json", "prefer-pytest.json"]
    );
}

#[test]
fn file_holds_the_documented_fields_and_not_the_content() {
    let dir = tempfile::tempdir().unwrap();
    let stone = tombstone("prefer-pytest", Some("outdated"), "the forgotten body text");
    write(dir.path(), &stone).unwrap();
    let text = fs::read_to_string(tombstone_path(dir.path(), "prefer-pytest")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "id": "prefer-pytest",
            "forgotten_at": "2026-11-29T14:32:05.123Z",
            "reason": "outdated",
            "content_hash": stone.content_hash,
        })
    );
    assert!(!text.contains("forgotten body"));
    assert!(text.ends_with("}\n"));
}

#[test]
fn id_with_a_folder_is_one_flat_file() {
    let dir = tempfile::tempdir().unwrap();
    let stone = tombstone("team/ci-cache", None, "x");
    write(dir.path(), &stone).unwrap();
    assert_eq!(file_names(dir.path()), vec!["team%2Fci-cache.json"]);
    let (loaded, problems) = load_all(dir.path());
    assert_eq!((loaded, problems), (vec![stone.clone()], vec![]));
    let tombstones = [stone];
    assert_eq!(
        find_match(&tombstones, "Team/CI-Cache", "other").map(|t| t.id.as_str()),
        Some("team/ci-cache")
    );
}

#[test]
fn unicode_case_variants_share_one_tombstone() {
    let dir = tempfile::tempdir().unwrap();
    let decomposed_upper = "CAFE\u{301}-NOTES";
    let composed_lower = "caf\u{e9}-notes";
    assert_eq!(
        tombstone_path(dir.path(), decomposed_upper),
        tombstone_path(dir.path(), composed_lower)
    );
    write(dir.path(), &tombstone(decomposed_upper, Some("first"), "a")).unwrap();
    // The same content: one tombstone, the later reason.
    write(dir.path(), &tombstone(composed_lower, Some("second"), "a")).unwrap();
    assert_eq!(file_names(dir.path()), vec!["caf\u{e9}-notes.json"]);
    let (loaded, _) = load_all(dir.path());
    assert_eq!(loaded.len(), 1);
    assert_eq!(
        find_match(&loaded, "Caf\u{c9}-Notes", "").and_then(|t| t.reason.as_deref()),
        Some("second")
    );
}

#[rstest]
#[case::plain("prefer-pytest", "prefer-pytest.json")]
#[case::upper_case("Prefer-Pytest", "prefer-pytest.json")]
#[case::inner_dot("v1.2", "v1.2.json")]
#[case::leading_dot(".hidden", "%2Ehidden.json")]
#[case::trailing_dot("end.", "end%2E.json")]
#[case::percent("100%", "100%25.json")]
#[case::slash("team/ci", "team%2Fci.json")]
#[case::backslash("team\\ci", "team%5Cci.json")]
#[case::colon("a:b", "a%3Ab.json")]
#[case::space("a b", "a%20b.json")]
#[case::control("a\u{1}b", "a%01b.json")]
#[case::device_name("con", "%63on.json")]
#[case::device_name_with_extension("LPT1.log", "%6Cpt1.log.json")]
#[case::chinese("测试一律用pytest", "测试一律用pytest.json")]
#[case::combining_mark("ไทย่", "ไทย%E0%B9%88.json")]
fn file_names_are_safe(#[case] id: &str, #[case] name: &str) {
    let path = tombstone_path(Path::new("/store"), id);
    assert_eq!(path, Path::new("/store/.tombstones").join(name));
}

#[test]
fn long_ids_are_cut_and_stay_distinct() {
    let root = Path::new("/store");
    let long_a = format!("{}a", "測".repeat(120));
    let long_b = format!("{}b", "測".repeat(120));
    let name = |id: &str| {
        tombstone_path(root, id)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    assert!(name(&long_a).len() <= MAX_STEM_BYTES + ".json".len());
    assert_ne!(name(&long_a), name(&long_b));
    assert_eq!(name(&long_a), name(&long_a.to_uppercase()));
}

#[test]
fn write_leaves_no_temporary_file_and_replaces_the_old_tombstone() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &tombstone("x", Some("old"), "a")).unwrap();
    write(dir.path(), &tombstone("x", Some("new"), "a")).unwrap();
    assert_eq!(file_names(dir.path()), vec!["x.json"]);
    let (loaded, _) = load_all(dir.path());
    assert_eq!(loaded[0].reason.as_deref(), Some("new"));
}

#[test]
fn write_refuses_an_empty_id() {
    let dir = tempfile::tempdir().unwrap();
    let err = write(dir.path(), &tombstone("", None, "a")).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
}

#[test]
fn secret_in_a_tombstone_reason_is_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let tomb = tombstone("x", Some("key AKIAIOSFODNN7REALKEY"), "b");
    let err = write(dir.path(), &tomb).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    assert!(!err.to_string().contains("AKIA"), "{err}");
    assert!(!tombstone_path(dir.path(), "x").exists());
}

#[test]
fn no_tombstone_folder_means_no_tombstones() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(load_all(dir.path()), (vec![], vec![]));
}

#[test]
fn bad_files_are_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let good = tombstone("good", None, "a");
    write(dir.path(), &good).unwrap();
    let folder = dir.path().join(TOMBSTONE_DIR);
    let hash = "ab".repeat(32);
    let files = [
        ("a-broken.json", "{ not json".to_string()),
        (
            "b-no-hash.json",
            r#"{"id": "x", "forgotten_at": "2026-01-01T00:00:00Z"}"#.to_string(),
        ),
        (
            "c-bad-time.json",
            format!(r#"{{"id": "x", "forgotten_at": "yesterday", "content_hash": "{hash}"}}"#),
        ),
        (
            "d-bad-hash.json",
            r#"{"id": "x", "forgotten_at": "2026-01-01T00:00:00Z", "content_hash": "xyz"}"#
                .to_string(),
        ),
        (
            "e-empty-id.json",
            format!(
                r#"{{"id": "", "forgotten_at": "2026-01-01T00:00:00Z", "content_hash": "{hash}"}}"#
            ),
        ),
        ("f-notes.txt", "hello".to_string()),
        ("g-not-utf8.json", String::new()),
    ];
    for (name, text) in &files {
        fs::write(folder.join(name), text).unwrap();
    }
    fs::write(folder.join("g-not-utf8.json"), [0xff, 0xfe]).unwrap();
    fs::create_dir(folder.join("h-folder.json")).unwrap();
    fs::write(folder.join(".gitkeep"), "").unwrap();
    fs::write(folder.join(format!(".x{}", atomic::TEMP_SUFFIX)), "{").unwrap();
    fs::write(
        folder.join("i-huge.json"),
        vec![b' '; MAX_TOMBSTONE_BYTES as usize + 1],
    )
    .unwrap();

    let (loaded, problems) = load_all(dir.path());
    assert_eq!(loaded, vec![good]);
    let reported: Vec<(String, &str)> = problems
        .iter()
        .map(|(path, reason)| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let kind = reason.split([':', ' ']).next().unwrap_or("");
            (name, kind)
        })
        .collect();
    assert_eq!(
        reported,
        vec![
            ("a-broken.json".to_string(), "invalid"),
            ("b-no-hash.json".to_string(), "invalid"),
            ("c-bad-time.json".to_string(), "`forgotten_at`"),
            ("d-bad-hash.json".to_string(), "`content_hash`"),
            ("e-empty-id.json".to_string(), "`id`"),
            ("f-notes.txt".to_string(), "not"),
            ("g-not-utf8.json".to_string(), "cannot"),
            ("h-folder.json".to_string(), "not"),
            ("i-huge.json".to_string(), "not"),
        ]
    );
    assert!(problems[1].1.contains("content_hash"), "{}", problems[1].1);
    assert!(problems[0].1.contains("line 1"), "{}", problems[0].1);
}

#[test]
fn find_match_by_id_key_or_content_hash() {
    let by_id = tombstone("prefer-pytest", Some("by id"), "one");
    let by_hash = tombstone("old-name", Some("by hash"), "two");
    let tombstones = [by_hash.clone(), by_id.clone()];
    let reason =
        |id: &str, hash: &str| find_match(&tombstones, id, hash).and_then(|t| t.reason.as_deref());
    assert_eq!(reason("Prefer-PyTest", "unrelated"), Some("by id"));
    assert_eq!(reason("new-name", &by_hash.content_hash), Some("by hash"));
    assert_eq!(
        reason("new-name", &by_hash.content_hash.to_uppercase()),
        Some("by hash")
    );
    // Both match: the id's own tombstone is the one to report.
    assert_eq!(
        reason("prefer-pytest", &by_hash.content_hash),
        Some("by id")
    );
    assert_eq!(
        reason("new-name", &content_hash("a description", "three")),
        None
    );
    assert_eq!(reason("new-name", ""), None);
}
