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
use std::io;
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

/// What a tombstone's file is named while its forget is under way: a
/// dotfile (not a tombstone to any reader) in `.tombstones/`, named after
/// the file it becomes. See [`write_pending`].
pub const PENDING_PREFIX: &str = ".forgetting.";

/// A tombstone written but not yet in place: the record it forgets may
/// still be there. [`finish`] puts it in place once the record is gone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    /// `.tombstones/.forgetting.<name>.json`
    pub path: PathBuf,
    /// `.tombstones/<name>.json`
    pub target: PathBuf,
}

impl Pending {
    /// The pending file at `path` (in `.tombstones/`), if its name is one.
    pub fn at(path: &Path) -> Option<Pending> {
        let name = path.file_name()?.to_str()?;
        let target = name.strip_prefix(PENDING_PREFIX)?;
        if target.is_empty() || target.starts_with('.') || !target.ends_with(".json") {
            return None;
        }
        Some(Pending {
            path: path.to_path_buf(),
            target: path.with_file_name(target),
        })
    }

    /// The tombstone it holds.
    pub fn read(&self) -> Result<Tombstone, String> {
        read_tombstone_text(&self.path).and_then(|text| parse_tombstone(&text))
    }
}

/// Writes (atomically) the tombstone of `tombstone.id`.
pub fn write(root: &Path, tombstone: &Tombstone) -> std::io::Result<()> {
    let pending = write_pending(root, tombstone)?;
    finish(&pending)
}

/// Writes the tombstone of `tombstone.id` where no reader takes it for one
/// yet (SPEC §6: a forget is whole or not at all). `forget` writes it,
/// removes the record, then [`finish`]es it: at every instant the record is
/// either there with no tombstone, or gone with its tombstone written (in
/// place, or pending, which the next write puts in place; see
/// `crate::recover`). A record and its own tombstone are never both seen.
pub fn write_pending(root: &Path, tombstone: &Tombstone) -> std::io::Result<Pending> {
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
    let target = free_path(root, tombstone);
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let pending = Pending {
        path: target.with_file_name(format!("{PENDING_PREFIX}{name}")),
        target,
    };
    atomic::write_file(&pending.path, &json)?;
    Ok(pending)
}

/// Puts a pending tombstone in place (one rename, made durable).
pub fn finish(pending: &Pending) -> std::io::Result<()> {
    atomic::rename_file(&pending.path, &pending.target)
}

/// Drops a pending tombstone whose record stayed: its forget never happened.
pub fn abandon(pending: &Pending) -> std::io::Result<()> {
    atomic::remove_file(&pending.path)
}

/// Every pending tombstone in the store's `.tombstones/`, sorted.
pub fn pending(root: &Path) -> Vec<Pending> {
    let Ok(entries) = fs::read_dir(root.join(TOMBSTONE_DIR)) else {
        return Vec::new();
    };
    let mut found: Vec<Pending> = entries
        .filter_map(Result::ok)
        .filter_map(|e| Pending::at(&e.path()))
        .collect();
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
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

/// The tombstone in the file at `path`, if it is a readable one.
pub fn read_at(path: &Path) -> Option<Tombstone> {
    read_tombstone(path).ok()
}

fn read_tombstone(path: &Path) -> Result<Tombstone, String> {
    parse_tombstone(&read_text(path)?)
}

fn read_text(path: &Path) -> Result<String, String> {
    if path.extension().is_none_or(|e| e != "json") {
        return Err("not a tombstone: tombstones are .json files".to_string());
    }
    read_tombstone_text(path)
}

/// The text of a tombstone file: a regular file (a symbolic link is not
/// followed), of at most [`MAX_TOMBSTONE_BYTES`].
fn read_tombstone_text(path: &Path) -> Result<String, String> {
    match crate::untrusted::read(path, MAX_TOMBSTONE_BYTES) {
        Ok(Some(bytes)) => {
            String::from_utf8(bytes).map_err(|_| "cannot be read: not UTF-8 text".to_string())
        }
        Ok(None) => Err("cannot be read: no such file".to_string()),
        Err(crate::untrusted::ReadError::Refused(why)) => Err(format!("not a tombstone: {why}")),
        Err(crate::untrusted::ReadError::Io(e)) => Err(format!("cannot be read: {e}")),
    }
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
mod tests;
