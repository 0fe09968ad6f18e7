//! Tombstones: what `forget` leaves so that a forgotten fact is not silently
//! re-added (SPEC §6). One small JSON file per tombstone under
//! `<store>/.tombstones/`, so that teams merge them file by file in git.
//! A tombstone holds the id, the time, the reason and a hash of the
//! forgotten content; never the content.
//!
//! ```json
//! {
//!   "id": "prefer-pytest",
//!   "forgotten_at": "2026-11-29T14:32:05Z",
//!   "reason": "we moved to nox",
//!   "content_hash": "…64 hex digits…"
//! }
//! ```

use std::fmt::Write as _;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::id::{id_key, is_windows_device_name};
use crate::{atomic, conflict};

/// The folder, relative to the store root, that holds tombstones.
pub const TOMBSTONE_DIR: &str = ".tombstones";

/// A tombstone file is a few hundred bytes; anything far larger is not one.
const MAX_TOMBSTONE_BYTES: u64 = 64 * 1024;

/// Longest file stem written, in bytes: file systems allow 255 per name.
const MAX_STEM_BYTES: usize = 200;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tombstone {
    pub id: String,
    pub forgotten_at: Timestamp,
    pub reason: Option<String>,
    /// [`crate::hash::content_hash`] of the forgotten record.
    pub content_hash: String,
}

/// The file format; unknown fields are ignored so that a later version may
/// add some.
#[derive(Serialize, Deserialize)]
struct TombstoneFile {
    id: String,
    /// RFC 3339.
    forgotten_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    content_hash: String,
}

/// Where the tombstone of `id` lives.
///
/// The file is named from [`id_key`], so that case and normalisation
/// variants of an id share one tombstone. The name is percent-encoded where
/// it would not be a safe, plain file name: `/`, `\`, `%`, a leading or
/// trailing `.`, Windows device names, and every character that is not a
/// letter, digit, `-`, `_` or an inner `.`. An overlong name is cut and ends
/// with a hash of the whole key (`~` marks it; encoding never emits `~`).
pub fn tombstone_path(root: &Path, id: &str) -> PathBuf {
    root.join(TOMBSTONE_DIR)
        .join(format!("{}.json", file_stem(&id_key(id))))
}

fn file_stem(key: &str) -> String {
    let mut stem = String::with_capacity(key.len());
    let last = key.chars().count().saturating_sub(1);
    for (index, c) in key.chars().enumerate() {
        let plain = c.is_ascii_alphanumeric()
            || matches!(c, '-' | '_')
            || (c == '.' && index != 0 && index != last)
            || (!c.is_ascii() && c.is_alphanumeric());
        // The first character is encoded too when the name is a device name.
        if plain && !(index == 0 && is_windows_device_name(key)) {
            stem.push(c);
        } else {
            percent_encode(c, &mut stem);
        }
    }
    if stem.len() <= MAX_STEM_BYTES {
        return stem;
    }
    let mut cut = MAX_STEM_BYTES - 17;
    while !stem.is_char_boundary(cut) {
        cut -= 1;
    }
    let hash = blake3::hash(key.as_bytes()).to_hex();
    format!("{}~{}", &stem[..cut], &hash[..16])
}

fn percent_encode(c: char, out: &mut String) {
    let mut buffer = [0; 4];
    for byte in c.encode_utf8(&mut buffer).bytes() {
        // Writing to a String cannot fail.
        let _ = write!(out, "%{byte:02X}");
    }
}

/// Writes (atomically) the tombstone of `tombstone.id`.
pub fn write(root: &Path, tombstone: &Tombstone) -> std::io::Result<()> {
    if tombstone.id.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a tombstone needs a record id",
        ));
    }
    // Teams commit tombstones: whoever writes one, its reason holds no secret.
    if let Some(found) = tombstone
        .reason
        .as_deref()
        .map(crate::guard::secrets::find_secrets)
        && let Some(first) = found.first()
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "the tombstone's reason looks like it holds a secret (rule {})",
                first.rule
            ),
        ));
    }
    ensure_folder_inside(root)?;
    let file = TombstoneFile {
        id: tombstone.id.clone(),
        forgotten_at: tombstone.forgotten_at.to_string(),
        reason: tombstone.reason.clone(),
        content_hash: tombstone.content_hash.clone(),
    };
    let mut json = serde_json::to_vec_pretty(&file).map_err(io::Error::other)?;
    json.push(b'\n');
    atomic::write_file(&free_path(root, tombstone), &json)
}

/// Where `tombstone` goes: its id's path, unless a tombstone of other
/// content is already there (`A.md` and `a.md` share an id key; a record a
/// merge kept beside its tombstone is forgotten again), which must keep
/// forbidding its content: then beside it, named with the new content's hash.
fn free_path(root: &Path, tombstone: &Tombstone) -> PathBuf {
    let [path, beside] = possible_paths(root, tombstone);
    match read_tombstone(&path) {
        Ok(earlier)
            if !earlier
                .content_hash
                .eq_ignore_ascii_case(&tombstone.content_hash) =>
        {
            beside
        }
        _ => path,
    }
}

/// The two files [`write`] may have put `tombstone` in: its id's path, and
/// the one beside it named with its content's hash. A forced re-add removes
/// both, or the one beside would still refuse the id.
pub fn possible_paths(root: &Path, tombstone: &Tombstone) -> [PathBuf; 2] {
    let path = tombstone_path(root, &tombstone.id);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let hash = tombstone
        .content_hash
        .get(..16)
        .unwrap_or(&tombstone.content_hash);
    let beside = path.with_file_name(format!("{stem}~{hash}.json"));
    [path, beside]
}

/// Fails unless `.tombstones` is missing or a real folder: a symlink there
/// (which a cloned repository can carry) would write tombstones outside the
/// store, and a file there would fail with a bare "File exists".
fn ensure_folder_inside(root: &Path) -> io::Result<()> {
    let dir = root.join(TOMBSTONE_DIR);
    let what = match fs::symlink_metadata(&dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
        Ok(meta) if meta.file_type().is_symlink() => "a symbolic link",
        Ok(meta) if meta.is_dir() => return Ok(()),
        Ok(_) => "not a folder",
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is {what}; memctl writes tombstones only in a folder inside the store (move it away)",
            dir.display()
        ),
    ))
}

/// Every tombstone in the store; unreadable ones are skipped (and returned as
/// problems: path and reason).
///
/// Dotfiles in the folder (memctl's temporary files, a `.gitkeep`) are not
/// tombstones and are passed over silently. Results are sorted by file name.
pub fn load_all(root: &Path) -> (Vec<Tombstone>, Vec<(PathBuf, String)>) {
    let dir = root.join(TOMBSTONE_DIR);
    let mut tombstones = Vec::new();
    let mut problems = Vec::new();
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return (tombstones, problems),
        Err(e) => {
            problems.push((dir, format!("cannot list the tombstones: {e}")));
            return (tombstones, problems);
        }
    };
    let mut paths = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => paths.push(entry.path()),
            Err(e) => problems.push((dir.clone(), format!("cannot list the tombstones: {e}"))),
        }
    }
    paths.sort();
    for path in paths {
        let is_dotfile = path
            .file_name()
            .is_some_and(|name| name.to_string_lossy().starts_with('.'));
        if is_dotfile {
            continue;
        }
        match read_text(&path).map(|text| (parse_tombstone(&text), text)) {
            Err(reason) => problems.push((path, reason)),
            Ok((Ok(tombstone), _)) => tombstones.push(tombstone),
            Ok((Err(reason), text)) => {
                let (sides, reason) = conflicted_sides(&text, reason);
                tombstones.extend(sides);
                problems.push((path, reason));
            }
        }
    }
    (tombstones, problems)
}

/// A tombstone git left with conflict markers (two branches forgot one id):
/// both sides' tombstones count, so that the id stays refused until a person
/// resolves the file, and the problem says that it is a conflict.
fn conflicted_sides(text: &str, reason: String) -> (Vec<Tombstone>, String) {
    let Some((ours, theirs)) = conflict::sides(text) else {
        return (Vec::new(), reason);
    };
    let lines: Vec<String> = conflict::marker_lines(text)
        .iter()
        .map(ToString::to_string)
        .collect();
    let sides = [ours, theirs]
        .iter()
        .filter_map(|side| parse_tombstone(&side.text).ok())
        .collect();
    let reason = format!(
        "an unresolved git merge conflict (markers at lines {}): resolve it, then `git add` it; both sides' tombstones count meanwhile",
        lines.join(", ")
    );
    (sides, reason)
}

fn read_tombstone(path: &Path) -> Result<Tombstone, String> {
    parse_tombstone(&read_text(path)?)
}

fn read_text(path: &Path) -> Result<String, String> {
    if path.extension().is_none_or(|e| e != "json") {
        return Err("not a tombstone: tombstones are .json files".to_string());
    }
    let metadata = fs::metadata(path).map_err(|e| format!("cannot be read: {e}"))?;
    if !metadata.is_file() {
        return Err("not a tombstone: not a regular file".to_string());
    }
    if metadata.len() > MAX_TOMBSTONE_BYTES {
        return Err(format!(
            "not a tombstone: {} bytes, more than {MAX_TOMBSTONE_BYTES}",
            metadata.len()
        ));
    }
    let mut text = String::new();
    fs::File::open(path)
        .and_then(|file| file.take(MAX_TOMBSTONE_BYTES).read_to_string(&mut text))
        .map_err(|e| format!("cannot be read: {e}"))?;
    Ok(text)
}

fn parse_tombstone(text: &str) -> Result<Tombstone, String> {
    let file: TombstoneFile =
        serde_json::from_str(text).map_err(|e| format!("invalid tombstone JSON: {e}"))?;
    if file.id.is_empty() {
        return Err("`id` is empty".to_string());
    }
    let forgotten_at = file.forgotten_at.parse::<Timestamp>().map_err(|e| {
        format!(
            "`forgotten_at` {:?} is not an RFC 3339 time: {e}",
            file.forgotten_at
        )
    })?;
    let hash = &file.content_hash;
    if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "`content_hash` {hash:?} is not a hash (64 hexadecimal digits)"
        ));
    }
    Ok(Tombstone {
        id: file.id,
        forgotten_at,
        reason: file.reason,
        content_hash: file.content_hash.to_ascii_lowercase(),
    })
}

/// The tombstone that forbids writing a record with this id or this content
/// hash, if any. A tombstone of the same id (compared by [`id_key`]) wins
/// over one of the same content.
pub fn find_match<'a>(
    tombstones: &'a [Tombstone],
    id: &str,
    content_hash: &str,
) -> Option<&'a Tombstone> {
    let key = id_key(id);
    tombstones
        .iter()
        .find(|t| id_key(&t.id) == key)
        .or_else(|| {
            tombstones.iter().find(|t| {
                !content_hash.is_empty() && t.content_hash.eq_ignore_ascii_case(content_hash)
            })
        })
}

#[cfg(test)]
mod tests {
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
        let reason = |id: &str, hash: &str| {
            find_match(&tombstones, id, hash).and_then(|t| t.reason.as_deref())
        };
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
}
