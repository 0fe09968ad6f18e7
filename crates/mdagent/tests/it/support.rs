//! A workspace store, a global store and a cache folder in one temporary
//! folder, and the settings that name them.

use std::path::{Path, PathBuf};

use mdagent::Config;
use mdagent::config::Environment;
use memctl_testkit::RecordFile;
use tempfile::TempDir;

pub struct Stores {
    pub dir: TempDir,
}

impl Stores {
    /// Both stores, empty.
    pub fn new() -> Stores {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["project/.memory", "global", "cache", "home"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Stores { dir }
    }

    pub fn workspace(&self) -> PathBuf {
        self.dir.path().join("project/.memory")
    }

    pub fn global(&self) -> PathBuf {
        self.dir.path().join("global")
    }

    /// Settings as a command in the project folder resolves them; `global`
    /// as `--global`.
    pub fn config(&self, global: bool) -> Config {
        let root = self.dir.path();
        let env = Environment::from_vars([
            ("HOME", root.join("home")),
            ("XDG_CONFIG_HOME", root.join("home/.config")),
            ("MEMCTL_GLOBAL_DIR", self.global()),
            ("MEMCTL_CACHE_DIR", root.join("cache")),
        ])
        .in_folder(root.join("project"));
        Config::resolve(env, None, global)
    }
}

pub fn write(store: &Path, record: RecordFile) {
    record.write_in(store).unwrap();
}
