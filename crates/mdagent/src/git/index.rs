//! The git index files a commit of memctl's goes through (docs/GIT.md): a
//! temporary one made from `HEAD`, which the commit is made from, so that
//! nothing the user staged comes along, and the repository's own, brought
//! up to date afterwards for the paths the commit holds.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mdstore::store::CATALOG_FILE;

use super::{GitError, Repo, run_command};

/// One index file, driven from the store's folder.
pub struct IndexFile<'a> {
    store_root: &'a Path,
    /// `GIT_INDEX_FILE`; `None` for the repository's own index.
    file: Option<PathBuf>,
}

/// An index in a temporary folder of the repository's git folder, removed
/// when dropped.
pub struct TemporaryIndex<'a> {
    pub index: IndexFile<'a>,
    _folder: tempfile::TempDir,
}

/// A file an index holds at stage 0, as `git ls-files --stage` lists it.
pub struct Entry {
    /// Relative to the store.
    pub rel_path: PathBuf,
    pub mode: String,
    pub object: String,
}

impl<'a> IndexFile<'a> {
    /// The repository's own index, as the user's `git add` leaves it.
    pub fn users(store_root: &'a Path) -> IndexFile<'a> {
        IndexFile {
            store_root,
            file: None,
        }
    }

    /// A git command on this index, run in the store's folder.
    pub fn command(&self) -> Command {
        let mut command = super::git(self.store_root);
        if let Some(file) = &self.file {
            command.env("GIT_INDEX_FILE", file);
        }
        command
    }

    pub fn run<I, S>(&self, args: I) -> Result<std::process::Output, GitError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        run_command(self.command(), args)
    }

    /// Which of `wanted` (paths relative to the store, files or folders)
    /// this index can be given as pathspecs: those on disk, or holding a
    /// file in the index (git refuses a pathspec that matches nothing).
    pub fn known(&self, wanted: &[PathBuf]) -> Result<Vec<PathBuf>, GitError> {
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let listed: Vec<PathBuf> = self
            .run(with_paths(&["ls-files", "-z"], wanted))?
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
            .collect();
        Ok(wanted
            .iter()
            .filter(|p| {
                self.store_root.join(p).exists()
                    || listed.iter().any(|t| t == *p || t.starts_with(p))
            })
            .cloned()
            .collect())
    }

    /// Stages the working-tree state of `paths` (additions, changes and
    /// removals) in this index.
    pub fn stage(&self, paths: &[PathBuf]) -> Result<(), GitError> {
        if !paths.is_empty() {
            self.run(with_paths(&["add", "--all"], paths))?;
        }
        Ok(())
    }

    /// Stores `text` as the index's `MEMORY.md`, whatever the working tree
    /// holds; `prefix` is the store's folder in the repository
    /// (`git rev-parse --show-prefix`).
    pub fn set_catalog(&self, prefix: &str, text: &str) -> Result<(), GitError> {
        let object = self.hash_object(text)?;
        let path = format!("{prefix}{CATALOG_FILE}");
        self.run([
            "update-index",
            "--add",
            "--cacheinfo",
            "100644",
            object.as_str(),
            path.as_str(),
        ])?;
        Ok(())
    }

    /// Writes `text` into the repository as a blob (with the attributes'
    /// filters that `git add MEMORY.md` would apply); its object name.
    fn hash_object(&self, text: &str) -> Result<String, GitError> {
        let args = ["hash-object", "-w", "--stdin", "--path", CATALOG_FILE];
        let mut child = self
            .command()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(GitError::NotRunnable)?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(text.as_bytes())
                .map_err(GitError::NotRunnable)?;
        }
        let output = child.wait_with_output().map_err(GitError::NotRunnable)?;
        if !output.status.success() {
            return Err(GitError::Failed {
                command: super::command_line(&args),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
            });
        }
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    }

    /// Every file of the store this index holds, merged (stage 0) or not.
    pub fn entries(&self) -> Result<Vec<Entry>, GitError> {
        let args = ["ls-files", "--stage", "-z"];
        let output = self.run(args)?;
        let mut entries = Vec::new();
        for line in output.stdout.split(|b| *b == 0).filter(|l| !l.is_empty()) {
            let unreadable = || GitError::Unreadable {
                command: super::command_line(&args),
                what: String::from_utf8_lossy(line).into_owned(),
            };
            // `MODE OBJECT STAGE\tPATH`; a name that is not UTF-8 is no
            // record's (SPEC §2), so it is not read at all.
            let Ok(line) = std::str::from_utf8(line) else {
                continue;
            };
            let (info, path) = line.split_once('\t').ok_or_else(unreadable)?;
            let mut fields = info.split(' ');
            let (Some(mode), Some(object), Some(stage)) =
                (fields.next(), fields.next(), fields.next())
            else {
                return Err(unreadable());
            };
            if stage == "0" {
                entries.push(Entry {
                    rel_path: PathBuf::from(path),
                    mode: mode.to_string(),
                    object: object.to_string(),
                });
            }
        }
        Ok(entries)
    }

    /// The store's files whose working-tree state differs from this index
    /// (changed or removed), by git's stat cache: a file it cannot vouch
    /// for is listed too, which costs a read of its blob, never a wrong
    /// answer.
    pub fn differing(&self) -> Result<Vec<PathBuf>, GitError> {
        let output = self.run(["diff-files", "--name-only", "-z", "--relative", "--", "."])?;
        Ok(output
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
            .collect())
    }

    /// Whether what this index holds differs from `HEAD` (from nothing, on
    /// a branch with no commit yet).
    pub fn differs_from_head(&self) -> Result<bool, GitError> {
        let status = self
            .command()
            .args(["diff", "--cached", "--quiet", "--no-ext-diff"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(GitError::NotRunnable)?;
        match status.code() {
            Some(0) => Ok(false),
            Some(1) => Ok(true),
            _ => Err(GitError::Failed {
                command: "diff --cached --quiet".to_string(),
                stderr: format!("exited with {status}"),
            }),
        }
    }

    /// Commits what this index holds, running the user's hooks as any
    /// commit does; the new commit's short hash.
    pub fn commit(&self, message: &str) -> Result<String, GitError> {
        self.run(["commit", "--quiet", "--message", message])?;
        let head = self.run(["rev-parse", "--short", "HEAD"])?;
        Ok(String::from_utf8_lossy(&head.stdout).trim().to_string())
    }

    /// The blobs named `objects`, each `None` when git does not have it or
    /// it is larger than `max_bytes` (whose size alone is asked first, so
    /// that a huge file committed among the records is never read).
    pub fn blobs(
        &self,
        objects: &[&str],
        max_bytes: u64,
    ) -> Result<Vec<Option<Vec<u8>>>, GitError> {
        let sizes = self.cat_file("--batch-check", objects.iter().copied())?;
        let sizes = parse_batch(&sizes, objects.len(), false).ok_or_else(cut_short)?;
        let wanted: Vec<&str> = objects
            .iter()
            .zip(&sizes)
            .filter(|(_, a)| a.as_ref().is_some_and(|a| a.size <= max_bytes))
            .map(|(o, _)| *o)
            .collect();
        let read = self.cat_file("--batch", wanted.iter().copied())?;
        let mut read = parse_batch(&read, wanted.len(), true)
            .ok_or_else(cut_short)?
            .into_iter();
        Ok(sizes
            .iter()
            .map(|a| match a {
                Some(a) if a.size <= max_bytes => read.next().flatten(),
                _ => None,
            })
            .map(|a| a.filter(|a| a.kind == "blob").map(|a| a.contents))
            .collect())
    }

    /// `git cat-file MODE` fed `objects`, one a line; its whole output.
    fn cat_file<'o>(
        &self,
        mode: &str,
        objects: impl Iterator<Item = &'o str>,
    ) -> Result<Vec<u8>, GitError> {
        let request: String = objects.map(|o| format!("{o}\n")).collect();
        if request.is_empty() {
            return Ok(Vec::new());
        }
        let mut child = self
            .command()
            .args(["cat-file", mode])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(GitError::NotRunnable)?;
        let stdin = child.stdin.take();
        // Written from another thread: git answers as it reads, and a full
        // pipe either way would stop both.
        let output = std::thread::scope(|scope| {
            scope.spawn(move || {
                if let Some(mut stdin) = stdin {
                    // A write that fails means git stopped; its exit says why.
                    let _ = stdin.write_all(request.as_bytes());
                }
            });
            child.wait_with_output()
        })
        .map_err(GitError::NotRunnable)?;
        if !output.status.success() {
            return Err(GitError::Failed {
                command: format!("cat-file {mode}"),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
            });
        }
        Ok(output.stdout)
    }
}

fn cut_short() -> GitError {
    GitError::Unreadable {
        command: "cat-file".to_string(),
        what: "an answer cut short".to_string(),
    }
}

impl<'a> TemporaryIndex<'a> {
    /// An index holding what `HEAD` holds (nothing on a branch with no
    /// commit yet), with the stat data of the user's index kept where it
    /// agrees, so that git need not read every file of the project again.
    pub fn from_head(repo: &Repo, store_root: &'a Path) -> Result<TemporaryIndex<'a>, GitError> {
        let folder = tempfile::Builder::new()
            .prefix("memctl-commit-")
            .tempdir_in(&repo.git_dir)
            .map_err(|source| GitError::TemporaryIndex {
                path: repo.git_dir.clone(),
                source,
            })?;
        let file = folder.path().join("index");
        let index = IndexFile {
            store_root,
            file: Some(file.clone()),
        };
        // No file at all is an empty index to git.
        if super::run(store_root, ["rev-parse", "--verify", "--quiet", "HEAD"]).is_ok() {
            let mut output = OsString::from("--index-output=");
            output.push(&file);
            // `-i`: the working tree is no concern of an index that no
            // checkout will use; without it git refuses a file that
            // differs from the user's index.
            super::run(
                store_root,
                [
                    OsString::from("read-tree"),
                    "-m".into(),
                    "-i".into(),
                    output,
                    "HEAD".into(),
                ],
            )?;
        }
        Ok(TemporaryIndex {
            index,
            _folder: folder,
        })
    }
}

/// `args`, then `--`, then `paths`.
fn with_paths(args: &[&str], paths: &[PathBuf]) -> Vec<OsString> {
    let mut all: Vec<OsString> = args.iter().map(OsString::from).collect();
    all.push("--".into());
    all.extend(paths.iter().map(|p| p.as_os_str().to_os_string()));
    all
}

/// One answer of `git cat-file --batch` or `--batch-check`.
#[derive(Debug, PartialEq, Eq)]
struct Answer {
    kind: String,
    size: u64,
    /// Empty for `--batch-check`.
    contents: Vec<u8>,
}

/// The `count` answers of `git cat-file`: `NAME TYPE SIZE\n`, then (with
/// `contents`, for `--batch`) the contents and a newline; or `NAME
/// missing\n`, which is `None`.
fn parse_batch(mut out: &[u8], count: usize, contents: bool) -> Option<Vec<Option<Answer>>> {
    let mut answers = Vec::with_capacity(count);
    for _ in 0..count {
        let end = out.iter().position(|b| *b == b'\n')?;
        let header = std::str::from_utf8(&out[..end]).ok()?;
        out = &out[end + 1..];
        let mut fields = header.split(' ');
        let (_name, kind, size) = (fields.next()?, fields.next()?, fields.next());
        let Some(size) = size else {
            // `missing`, `ambiguous`: nothing follows.
            answers.push(None);
            continue;
        };
        let size: u64 = size.parse().ok()?;
        let mut answer = Answer {
            kind: kind.to_string(),
            size,
            contents: Vec::new(),
        };
        if contents {
            let len = usize::try_from(size).ok()?;
            answer.contents = out.get(..len)?.to_vec();
            out = out.get(len + 1..)?;
        }
        answers.push(Some(answer));
    }
    Some(answers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cat_file_batch_answers_are_split_by_their_sizes() {
        let answer = |size: u64, contents: &[u8]| {
            Some(Answer {
                kind: "blob".to_string(),
                size,
                contents: contents.to_vec(),
            })
        };
        let out = b"aaa blob 3\na\nb\nbbb missing\nccc blob 0\n\n";
        assert_eq!(
            parse_batch(out, 3, true),
            Some(vec![answer(3, b"a\nb"), None, answer(0, b"")])
        );
        assert_eq!(parse_batch(b"aaa blob 9\nshort\n", 1, true), None);
        assert_eq!(
            parse_batch(b"aaa blob 9\nbbb missing\n", 2, false),
            Some(vec![answer(9, b""), None])
        );
    }
}
