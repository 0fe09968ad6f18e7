//! Record ids and the paths they resolve to (SPEC §2, "Names memctl writes").
//!
//! Two levels of strictness: [`normalize_name`] is for names memctl is asked
//! to write (untrusted: agents, imports), [`record_path`] accepts any id a
//! person could have made by hand (subfolders included) but never lets it
//! leave the store.

use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use unicode_normalization::UnicodeNormalization;
use unicode_security::mixed_script::AugmentedScriptSet;

use crate::guard::builtin_regex;

/// The most characters (not bytes) a written name may have.
pub const MAX_NAME_CHARS: usize = 80;

/// Why a proposed name is not a valid id. Messages name the rule broken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("a name must have 1 to 80 characters, this one has {0}")]
    Length(usize),
    #[error("a name may not contain {0}")]
    Forbidden(String),
    #[error("a name may not start with {0:?}")]
    BadStart(char),
    #[error("{0:?} is a reserved name")]
    Reserved(String),
    #[error("the path of {0:?} leaves the store")]
    Escapes(String),
    #[error(
        "a name may not mix scripts the way look-alike names do: {} (U+{:04X}) is of another script than the letters before it",
        quote_char(*.0),
        u32::from(*.0)
    )]
    MixedScripts(char),
}

/// A character outside the allowed set: letters of any script with their
/// combining marks (Devanagari vowel signs and viramas, Thai tone marks are
/// marks, not letters), decimal digits of any script, `-`, `_`, `.`.
static DISALLOWED_CHAR: LazyLock<Regex> =
    LazyLock::new(|| builtin_regex(r"[^\p{L}\p{M}\p{Nd}_.\-]"));

/// Whitespace other than control characters: those are refused by name
/// rather than silently turned into `-`.
static SPACE_RUN: LazyLock<Regex> = LazyLock::new(|| builtin_regex(r"[\s&&[^\p{Cc}]]+"));

/// Normalises a name memctl is asked to write (NFKC, lower case, spaces to
/// `-`, one `.md` extension dropped) and validates it. Returns the id.
pub fn normalize_name(raw: &str) -> Result<String, NameError> {
    let lowered: String = raw.nfkc().collect::<String>().to_lowercase();
    // Lower-casing can leave a sequence that NFKC composes differently.
    let lowered: String = lowered.nfkc().collect();
    let name = SPACE_RUN.replace_all(lowered.trim(), "-").into_owned();
    // `--name x.md` names the file, not a record called `x.md`.
    let name = match name.strip_suffix(".md") {
        Some(stem) => stem.to_string(),
        None => name,
    };
    // `x.md.md` would be the id `x.md`, which `--name x.md` could never
    // name again.
    if name.ends_with(".md") {
        return Err(NameError::Forbidden(
            "\".md\" twice at the end (the id is the file name without one \".md\")".to_string(),
        ));
    }

    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(NameError::Forbidden(format!(
            "the control character {}",
            quote_char(c)
        )));
    }
    for separator in ['/', '\\'] {
        if name.contains(separator) {
            return Err(NameError::Forbidden(format!(
                "{} (a name is one file in the store, not a path)",
                quote_char(separator)
            )));
        }
    }
    if name.contains("..") {
        return Err(NameError::Forbidden("\"..\"".to_string()));
    }
    if let Some(found) = DISALLOWED_CHAR.find(&name) {
        let c = found.as_str().chars().next().unwrap_or_default();
        return Err(NameError::Forbidden(format!(
            "{} (only letters, digits, '-', '_' and '.' are allowed)",
            quote_char(c)
        )));
    }
    let length = name.chars().count();
    if length == 0 || length > MAX_NAME_CHARS {
        return Err(NameError::Length(length));
    }
    if let Some(first @ ('.' | '-')) = name.chars().next() {
        return Err(NameError::BadStart(first));
    }
    if let Some(c) = first_mixed_script_char(&name) {
        return Err(NameError::MixedScripts(c));
    }
    if is_catalog_stem(&name) || is_windows_device_name(&name) {
        return Err(NameError::Reserved(name));
    }
    Ok(name)
}

/// The key under which two ids are the same record: NFKC and case folded,
/// so full-width `ｆｏｏ` is `foo`.
///
/// Folding is lower(upper(lower(NFKC))): it equates everything plain lower
/// casing does, and also what case-insensitive file systems merge through
/// upper case (`ς`/`σ`, `ß`/`ss`). Over-merging is the safe direction: two
/// ids that might be one file on some disk must be one record everywhere.
pub fn id_key(id: &str) -> String {
    let lowered = id.nfkc().collect::<String>().to_lowercase();
    let folded = lowered.to_uppercase().to_lowercase();
    folded.nfkc().collect()
}

/// The first character at which `name` stops meeting UTS #39's "highly
/// restrictive" level: one script (digits and punctuation count as every
/// script), or Latin with Han and Japanese kana, Han and Hangul, or Han and
/// Bopomofo. Latin mixed with Cyrillic or Greek, where look-alikes hide
/// (`pаypal`), is past it. Identifier-profile checks are left out on
/// purpose: the allowed characters are [`DISALLOWED_CHAR`]'s business.
fn first_mixed_script_char(name: &str) -> Option<char> {
    if name.is_ascii() {
        return None;
    }
    let latin = AugmentedScriptSet::for_char('a');
    let mut all = AugmentedScriptSet::default();
    let mut without_latin = AugmentedScriptSet::default();
    for c in name.chars() {
        let set = AugmentedScriptSet::for_char(c);
        all.intersect_with(set);
        let mut shared_with_latin = set;
        shared_with_latin.intersect_with(latin);
        if shared_with_latin.is_empty() {
            without_latin.intersect_with(set);
        }
        let single_script = !all.is_empty();
        let latin_with_cjk = without_latin.hanb || without_latin.jpan || without_latin.kore;
        if !single_script && !latin_with_cjk {
            return Some(c);
        }
    }
    None
}

/// Whether `name` is a Windows device name (`con`, `nul`, `aux`, `prn`,
/// `com0`…`com9`, `lpt0`…`lpt9`), alone or with an extension (`con.txt`),
/// in any case. Windows opens the device instead of such a file.
pub fn is_windows_device_name(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name).to_ascii_lowercase();
    match stem.as_str() {
        "con" | "nul" | "aux" | "prn" => true,
        _ => {
            let bytes = stem.as_bytes();
            bytes.len() == 4
                && (stem.starts_with("com") || stem.starts_with("lpt"))
                && bytes[3].is_ascii_digit()
        }
    }
}

/// `memory` would be written as `memory.md`, which is `MEMORY.md` on a
/// case-insensitive disk.
fn is_catalog_stem(name: &str) -> bool {
    id_key(name) == "memory"
}

fn quote_char(c: char) -> String {
    format!("'{}'", c.escape_debug())
}

/// The path of the file for `id` inside `root`, checked to stay inside it.
///
/// Hand-made ids may hold `/` for subfolders (`team/ci-cache`); each segment
/// must be non-empty and may not start with `.` (so neither `.` nor `..`).
/// The resolved path, with every symlink that exists followed, must stay
/// inside the resolved root.
pub fn record_path(root: &Path, id: &str) -> Result<PathBuf, NameError> {
    if let Some(c) = id.chars().find(|c| c.is_control()) {
        return Err(NameError::Forbidden(format!(
            "the control character {}",
            quote_char(c)
        )));
    }
    if id.contains('\\') {
        return Err(NameError::Forbidden(format!(
            "{} (folders are separated by '/')",
            quote_char('\\')
        )));
    }
    if id.is_empty() {
        return Err(NameError::Length(0));
    }
    let escapes = || NameError::Escapes(id.to_string());
    let segments: Vec<&str> = id.split('/').collect();
    for segment in &segments {
        if segment.is_empty() {
            // A leading `/` is an absolute path; elsewhere an empty segment.
            return Err(if id.starts_with('/') {
                escapes()
            } else {
                NameError::Forbidden(
                    "an empty folder name (\"//\" or a '/' at the end)".to_string(),
                )
            });
        }
        if *segment == ".." {
            return Err(escapes());
        }
        if segment.starts_with('.') {
            return Err(NameError::BadStart('.'));
        }
    }
    if let Some(last) = segments.last()
        && is_catalog_stem(last)
    {
        return Err(NameError::Reserved(id.to_string()));
    }
    // On Windows `c:x` is a drive-relative path; only plain names may join.
    if !Path::new(id)
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
    {
        return Err(escapes());
    }

    let mut path = root.to_path_buf();
    for segment in &segments {
        path.push(segment);
    }
    path.as_mut_os_string().push(".md");

    let resolved_root = resolve(root).ok_or_else(escapes)?;
    let resolved = resolve(&path).ok_or_else(escapes)?;
    if resolved.starts_with(&resolved_root) {
        Ok(path)
    } else {
        Err(escapes())
    }
}

/// `rel` (`/`-separated, relative to the store at `root`) as a relative
/// path, when it is a plain path that stays inside the store, symlinks
/// included; `None` otherwise (`..`, an absolute path, a link out).
pub(crate) fn inside(root: &Path, rel: &str) -> Option<PathBuf> {
    let path = Path::new(rel);
    if rel.is_empty()
        || rel.contains('\\')
        || !path.components().all(|c| matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let resolved_root = resolve(root)?;
    let resolved = resolve(&root.join(path))?;
    resolved
        .starts_with(&resolved_root)
        .then(|| path.to_path_buf())
}

/// `path` with its deepest existing ancestor canonicalised (every symlink on
/// the way followed) and the not-yet-existing rest appended as it is. `None`
/// when an existing entry cannot be resolved (a dangling symlink, say):
/// where it would lead cannot be checked, so it is not trusted.
fn resolve(path: &Path) -> Option<PathBuf> {
    let mut existing = path;
    let mut missing = Vec::new();
    loop {
        if fs::symlink_metadata(existing).is_ok() {
            let mut resolved = fs::canonicalize(existing).ok()?;
            resolved.extend(missing.iter().rev());
            return Some(resolved);
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_os_string());
                existing = if parent.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    parent
                };
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use rstest::rstest;

    #[rstest]
    #[case::plain("prefer-pytest", "prefer-pytest")]
    #[case::lower_cased("Prefer-PyTest", "prefer-pytest")]
    #[case::spaces_to_dash("prefer  pytest\u{3000}always", "prefer-pytest-always")]
    #[case::ends_trimmed("  prefer pytest \n", "prefer-pytest")]
    #[case::nfc("cafe\u{301}", "caf\u{e9}")]
    #[case::unicode_lower("ÉCOLE", "école")]
    #[case::devanagari("नमस्ते", "नमस्ते")]
    #[case::thai("ภาษาไทย่", "ภาษาไทย่")]
    #[case::chinese("测试 用 pytest", "测试-用-pytest")]
    #[case::digits_dot_underscore("v1.2_notes", "v1.2_notes")]
    #[case::underscore_start("_private", "_private")]
    #[case::not_a_device_name("console", "console")]
    #[case::not_memory("memory-notes", "memory-notes")]
    #[case::exactly_80(&"a".repeat(80), &"a".repeat(80))]
    #[case::eighty_chars_not_bytes(&"é".repeat(80), &"é".repeat(80))]
    #[case::fullwidth_name_is_the_same_record("ｆｕｌｌｗｉｄｔｈ", "fullwidth")]
    #[case::name_with_md_extension_is_not_doubled("x.md", "x")]
    #[case::upper_md_extension("Notes.MD", "notes")]
    #[case::md_inside_kept("x.mdx", "x.mdx")]
    #[case::korean("한국어 메모", "한국어-메모")]
    #[case::korean_with_latin("한국어-pytest", "한국어-pytest")]
    #[case::japanese_han_and_kana("日本語のテスト", "日本語のテスト")]
    #[case::japanese_with_latin("pytestの使い方", "pytestの使い方")]
    #[case::all_cyrillic("привет-мир", "привет-мир")]
    #[case::all_greek("αβγ-2", "αβγ-2")]
    fn valid_names(#[case] raw: &str, #[case] id: &str) {
        assert_eq!(normalize_name(raw), Ok(id.to_string()));
    }

    #[rstest]
    #[case::empty("", NameError::Length(0))]
    #[case::only_spaces("   ", NameError::Length(0))]
    #[case::too_long(&"a".repeat(81), NameError::Length(81))]
    #[case::too_long_in_chars(&"é".repeat(81), NameError::Length(81))]
    #[case::slash("team/ci", NameError::Forbidden("'/' (a name is one file in the store, not a path)".into()))]
    #[case::backslash("team\\ci", NameError::Forbidden("'\\\\' (a name is one file in the store, not a path)".into()))]
    #[case::dot_dot("a..b", NameError::Forbidden("\"..\"".into()))]
    #[case::bell("a\u{7}b", NameError::Forbidden("the control character '\\u{7}'".into()))]
    #[case::inner_newline("a\nb", NameError::Forbidden("the control character '\\n'".into()))]
    #[case::tab("a\tb", NameError::Forbidden("the control character '\\t'".into()))]
    #[case::punctuation("hello!", NameError::Forbidden("'!' (only letters, digits, '-', '_' and '.' are allowed)".into()))]
    #[case::zero_width_space("a\u{200b}b", NameError::Forbidden("'\\u{200b}' (only letters, digits, '-', '_' and '.' are allowed)".into()))]
    #[case::colon("c:x", NameError::Forbidden("':' (only letters, digits, '-', '_' and '.' are allowed)".into()))]
    #[case::dot_start(".hidden", NameError::BadStart('.'))]
    #[case::dash_start("-rf", NameError::BadStart('-'))]
    #[case::memory("memory", NameError::Reserved("memory".into()))]
    #[case::memory_upper("MEMORY", NameError::Reserved("memory".into()))]
    #[case::con("con", NameError::Reserved("con".into()))]
    #[case::nul_ext("NUL.txt", NameError::Reserved("nul.txt".into()))]
    #[case::aux("Aux", NameError::Reserved("aux".into()))]
    #[case::prn("prn.tar.gz", NameError::Reserved("prn.tar.gz".into()))]
    #[case::com1("COM1", NameError::Reserved("com1".into()))]
    #[case::lpt9("lpt9.log", NameError::Reserved("lpt9.log".into()))]
    #[case::memory_md("MEMORY.md", NameError::Reserved("memory".into()))]
    #[case::md_extension_twice("x.md.md", NameError::Forbidden("\".md\" twice at the end (the id is the file name without one \".md\")".into()))]
    #[case::only_an_extension(".md", NameError::Length(0))]
    #[case::cyrillic_lookalike_name_is_refused("раураl", NameError::MixedScripts('l'))]
    #[case::one_cyrillic_letter_in_latin("p\u{430}ypal", NameError::MixedScripts('\u{430}'))]
    #[case::latin_with_greek("alpha-\u{3b1}", NameError::MixedScripts('\u{3b1}'))]
    #[case::cyrillic_with_han("при-测", NameError::MixedScripts('测'))]
    fn invalid_names(#[case] raw: &str, #[case] error: NameError) {
        assert_eq!(normalize_name(raw), Err(error));
    }

    #[test]
    fn errors_read_as_rules() {
        let err = normalize_name("a\u{7}b").unwrap_err();
        assert_eq!(
            err.to_string(),
            "a name may not contain the control character '\\u{7}'"
        );
        assert_eq!(
            normalize_name(".x").unwrap_err().to_string(),
            "a name may not start with '.'"
        );
        assert_eq!(
            normalize_name("con").unwrap_err().to_string(),
            "\"con\" is a reserved name"
        );
        assert_eq!(
            normalize_name("p\u{430}ypal").unwrap_err().to_string(),
            "a name may not mix scripts the way look-alike names do: 'а' (U+0430) is of another script than the letters before it"
        );
    }

    proptest::proptest! {
        /// An id memctl wrote is its own name: `--name ID` finds the same
        /// record again, whatever the name it was first given.
        #[test]
        fn a_normalised_name_normalises_to_itself(
            raw in "[a-zA-Z0-9 ._\\-ｆＦ한국어日本語のテスト\u{301}\u{3000}ﬁℌΩΣςİ]{0,24}(\\.md|\\.MD)?|\\PC{0,16}"
        ) {
            if let Ok(id) = normalize_name(&raw) {
                proptest::prop_assert_eq!(normalize_name(&id), Ok(id.clone()));
                proptest::prop_assert_eq!(id_key(&id_key(&id)), id_key(&id));
            }
        }
    }

    #[rstest]
    #[case::case("Prefer-Pytest", "prefer-pytest")]
    #[case::normalisation("cafe\u{301}", "caf\u{e9}")]
    #[case::both("CAFE\u{301}", "caf\u{e9}")]
    #[case::final_sigma("ΟΔΟΣ", "οδοσ")]
    #[case::sharp_s("straße", "STRASSE")]
    #[case::subfolder("Team/CI-Cache", "team/ci-cache")]
    #[case::fullwidth_name_is_the_same_record("ｆｕｌｌｗｉｄｔｈ", "fullwidth")]
    #[case::fullwidth_upper("ＦＯＯ", "foo")]
    #[case::ligature("ﬁle", "file")]
    fn same_key(#[case] a: &str, #[case] b: &str) {
        assert_eq!(id_key(a), id_key(b));
    }

    #[test]
    fn different_ids_have_different_keys() {
        assert_ne!(id_key("prefer-pytest"), id_key("prefer-unittest"));
        assert_ne!(id_key("cafe"), id_key("café"));
    }

    #[rstest]
    #[case("con", true)]
    #[case("CON.txt", true)]
    #[case("com0", true)]
    #[case("lpt5.md", true)]
    #[case("com10", false)]
    #[case("comx", false)]
    #[case("icon", false)]
    #[case("nullable", false)]
    fn windows_device_names(#[case] name: &str, #[case] reserved: bool) {
        assert_eq!(is_windows_device_name(name), reserved);
    }

    #[test]
    fn record_path_inside_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(
            record_path(root, "prefer-pytest"),
            Ok(root.join("prefer-pytest.md"))
        );
        assert_eq!(record_path(root, "v1.2"), Ok(root.join("v1.2.md")));
        assert_eq!(
            record_path(root, "team/ci-cache"),
            Ok(root.join("team").join("ci-cache.md"))
        );
    }

    #[rstest]
    #[case::absolute("/etc/passwd", NameError::Escapes("/etc/passwd".into()))]
    #[case::parent("../outside", NameError::Escapes("../outside".into()))]
    #[case::inner_parent("team/../../x", NameError::Escapes("team/../../x".into()))]
    #[case::dot_segment("team/./x", NameError::BadStart('.'))]
    #[case::hidden_folder(".git/config", NameError::BadStart('.'))]
    #[case::empty_segment("team//x", NameError::Forbidden("an empty folder name (\"//\" or a '/' at the end)".into()))]
    #[case::trailing_slash("team/", NameError::Forbidden("an empty folder name (\"//\" or a '/' at the end)".into()))]
    #[case::backslash("team\\x", NameError::Forbidden("'\\\\' (folders are separated by '/')".into()))]
    #[case::nul("a\u{0}b", NameError::Forbidden("the control character '\\0'".into()))]
    #[case::empty("", NameError::Length(0))]
    #[case::catalog("MEMORY", NameError::Reserved("MEMORY".into()))]
    fn record_path_refuses(#[case] id: &str, #[case] error: NameError) {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(record_path(dir.path(), id), Err(error));
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_folder_leading_outside_is_caught() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("store");
        fs::create_dir(&root).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("team")).unwrap();
        assert_eq!(
            record_path(&root, "team/ci-cache"),
            Err(NameError::Escapes("team/ci-cache".into()))
        );
        // Also when the file already exists there.
        fs::write(outside.path().join("x.md"), "x").unwrap();
        assert_eq!(
            record_path(&root, "team/x"),
            Err(NameError::Escapes("team/x".into()))
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_that_stay_inside_are_fine() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("store");
        fs::create_dir_all(root.join("real")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
        assert_eq!(
            record_path(&root, "alias/x"),
            Ok(root.join("alias").join("x.md"))
        );
        // The root itself reached through a symlink.
        let link_to_root = dir.path().join("link");
        std::os::unix::fs::symlink(&root, &link_to_root).unwrap();
        assert_eq!(
            record_path(&link_to_root, "x"),
            Ok(link_to_root.join("x.md"))
        );
    }

    #[cfg(unix)]
    #[test]
    fn record_file_symlinked_outside_is_caught() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.md"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), dir.path().join("x.md"))
            .unwrap();
        assert_eq!(
            record_path(dir.path(), "x"),
            Err(NameError::Escapes("x".into()))
        );
    }

    #[cfg(unix)]
    #[test]
    fn dangling_symlinked_folder_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/nonexistent/memctl-test", dir.path().join("team")).unwrap();
        assert_eq!(
            record_path(dir.path(), "team/x"),
            Err(NameError::Escapes("team/x".into()))
        );
    }

    #[test]
    fn root_that_does_not_exist_yet() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("not-yet");
        assert_eq!(record_path(&root, "a/b"), Ok(root.join("a").join("b.md")));
    }
}
