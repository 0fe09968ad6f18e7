//! Deterministic synthetic stores: ~1 KB records, a tenth of them Chinese,
//! with a marker word planted in 1% of them for the search timings.

use std::fs;
use std::io;
use std::path::Path;

/// The word planted in 1% of the records, for searches with a known answer count.
pub const MARKER: &str = "zebrafish";

/// xorshift64*: a tiny seeded generator, so every run builds the same store.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

pub const TOPICS: &[&str] = &[
    "deploy",
    "release",
    "pytest",
    "database",
    "migration",
    "cache",
    "frontend",
    "backend",
    "review",
    "logging",
    "metrics",
    "docker",
    "kubernetes",
    "terraform",
    "staging",
    "production",
    "rollback",
    "linter",
    "formatter",
    "typescript",
    "python",
    "rust",
    "golang",
    "postgres",
    "redis",
    "queue",
    "webhook",
    "oauth",
    "session",
    "benchmark",
    "profiling",
    "incident",
    "oncall",
    "changelog",
];
const WORDS: &[&str] = &[
    "the",
    "team",
    "uses",
    "always",
    "never",
    "prefers",
    "because",
    "after",
    "before",
    "when",
    "tests",
    "build",
    "branch",
    "config",
    "service",
    "client",
    "server",
    "script",
    "folder",
    "file",
    "decided",
    "agreed",
    "requires",
    "checks",
    "runs",
    "writes",
    "reads",
    "keeps",
    "moves",
    "asks",
    "weekly",
    "nightly",
    "manual",
    "automatic",
    "shared",
    "local",
    "remote",
    "private",
    "public",
    "version",
    "pinned",
    "latest",
    "stable",
    "flaky",
    "slow",
    "fast",
    "small",
    "large",
    "new",
    "old",
];
const CJK: &[&str] = &[
    "测试",
    "部署",
    "发布",
    "数据库",
    "缓存",
    "前端",
    "后端",
    "代码",
    "审查",
    "日志",
    "监控",
    "回滚",
    "团队",
    "决定",
    "使用",
    "不要",
    "总是",
    "因为",
    "每周",
    "配置",
    "服务",
    "版本",
    "迁移",
    "性能",
];

fn words(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| {
            if rng.below(6) == 0 {
                TOPICS[rng.below(TOPICS.len())]
            } else {
                WORDS[rng.below(WORDS.len())]
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn cjk(rng: &mut Rng, n: usize) -> String {
    (0..n).map(|_| CJK[rng.below(CJK.len())]).collect()
}

/// The text of record `i`.
pub fn record(i: usize, rng: &mut Rng) -> (String, String) {
    let name = format!("rec-{i:06}");
    let types = ["user", "feedback", "project", "reference"];
    let chinese = i % 10 == 7;
    let marker = i % 100 == 42;
    let mut description = if chinese { cjk(rng, 8) } else { words(rng, 10) };
    if marker {
        description.push(' ');
        description.push_str(MARKER);
    }
    let mut body = String::new();
    while body.len() < 800 {
        let sentence = if chinese {
            cjk(rng, 14) + "。"
        } else {
            words(rng, 14) + ". "
        };
        body.push_str(&sentence);
        if body.len() > 300 && body.len() < 330 {
            body.push_str("\n\n**Why:** ");
        }
    }
    let text = format!(
        "---\nname: {name}\ndescription: {description}\ntype: {}\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\nrevision: 1\nsource: user\ntags: [{}, {}]\n---\n{body}\n",
        types[i % 4],
        TOPICS[rng.below(TOPICS.len())],
        TOPICS[rng.below(TOPICS.len())],
    );
    (name, text)
}

/// Writes `n` records into `dir` (created), then a `MEMORY.md` as memctl would.
pub fn store(dir: &Path, n: usize) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    let mut rng = Rng::new(0x5eed ^ n as u64);
    let a_day_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(86_400);
    for i in 0..n {
        let (name, text) = record(i, &mut rng);
        let path = dir.join(format!("{name}.md"));
        fs::write(&path, text)?;
        // A store that has existed for a while: files written moments ago
        // are "racy" (re-hashed by every search for two seconds), which a
        // benchmark of a steady store should not measure.
        fs::File::options()
            .write(true)
            .open(&path)?
            .set_modified(a_day_ago)?;
    }
    Ok(())
}
