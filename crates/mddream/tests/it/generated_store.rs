//! A store of generated records (English with Chinese and Japanese ones,
//! long lines, values, planted copies, near copies and changed values):
//! the plan is a snapshot, so that a change to how gathering holds its
//! data (issue 29: memory at 100,000 records) is seen to keep every
//! operation as it was.

use jiff::Timestamp;
use mddream::gather::gather;
use mddream::plan::{Finding, Operation};

use crate::support::{NOW, assert_each_record_read_once, record, store};

/// The records generated: enough that buckets hold several records.
const RECORDS: usize = 1_500;

const WORDS: &[&str] = &[
    "cache",
    "deploy",
    "branch",
    "review",
    "staging",
    "release",
    "tests",
    "build",
    "config",
    "database",
    "migration",
    "schema",
    "index",
    "query",
    "worker",
    "queue",
    "retry",
    "timeout",
    "token",
    "session",
    "payments",
    "billing",
    "invoice",
    "ledger",
    "search",
    "ranking",
    "embedding",
    "parser",
    "lexer",
    "compiler",
    "linker",
    "docker",
    "kubernetes",
    "cluster",
    "node",
    "python",
    "rust",
    "golang",
    "frontend",
    "backend",
    "api",
    "gateway",
    "proxy",
    "logging",
    "metrics",
    "tracing",
    "alerts",
    "oncall",
    "rotation",
    "backup",
    "restore",
    "snapshot",
    "replica",
    "primary",
    "failover",
    "latency",
    "throughput",
    "budget",
    "owner",
    "team",
    "alice",
    "module",
    "service",
    "client",
    "server",
    "feature",
    "flag",
    "rollout",
];

const GLUE: &[&str] = &[
    "the", "a", "with", "before", "after", "always", "never", "when", "for", "in", "on", "and",
    "uses", "runs", "keeps", "needs", "should", "must",
];

const CJK: &[&str] = &[
    "部署之前先运行测试",
    "缓存放在共享目录里",
    "数据库迁移需要审查",
    "デプロイの前にテストを実行する",
    "キャッシュは共有フォルダに置く",
    "レビューは二人で行う",
];

/// xorshift64*: the same store on every run and platform.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A word, the first ones far more often (close to Zipf).
    fn word(&mut self) -> &'static str {
        let r = self.below(WORDS.len());
        WORDS[self.below(r + 1)]
    }

    fn sentence(&mut self) -> String {
        let mut words = Vec::new();
        for _ in 0..6 + self.below(8) {
            words.push(if self.below(3) == 0 {
                GLUE[self.below(GLUE.len())].to_string()
            } else {
                self.word().to_string()
            });
        }
        match self.below(4) {
            0 => words.push(format!("port {}", 3000 + self.below(60))),
            1 => words.push(format!("`src/{}.rs`", self.word())),
            _ => {}
        }
        let mut text = words.join(" ");
        text[..1].make_ascii_uppercase();
        text.push('.');
        text
    }
}

/// The generated files, each `(path, text)`.
fn files() -> Vec<(String, String)> {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let mut files: Vec<(String, String)> = Vec::new();
    for n in 0..RECORDS {
        let kind = ["project", "feedback", "reference"][random.below(3)];
        let day = 1 + n % 28;
        let updated = format!("2026-0{}-{day:02}T00:00:00Z", 1 + n % 5);
        let (description, body) = match n % 20 {
            // An earlier record with a sentence added: a near copy.
            5 | 12 if n > 40 => {
                let (_, text) = &files[n - 1 - random.below(30)];
                let body = text.rsplit("---\n").next().unwrap_or("").trim_end();
                let description = random.sentence();
                (description, format!("{body}\n{}", random.sentence()))
            }
            // An earlier record word for word.
            7 if n > 40 => {
                let (_, text) = &files[n - 1 - random.below(30)];
                files.push((format!("copy-{n}.md"), text.clone()));
                continue;
            }
            // An earlier record with its port changed: a correction.
            9 if n > 40 => {
                let (_, text) = &files[n - 1 - random.below(30)];
                let text = text.replacen("port 30", "port 31", 1);
                files.push((format!("changed-{n}.md"), text));
                continue;
            }
            // Chinese or Japanese.
            3 | 17 => {
                let line = CJK[random.below(CJK.len())];
                (
                    line.to_string(),
                    format!("{line}。{} {}", CJK[random.below(CJK.len())], random.word()),
                )
            }
            // One long line.
            11 => {
                let long: Vec<String> = (0..12).map(|_| random.sentence()).collect();
                (random.sentence(), long.join(" "))
            }
            _ => {
                let lines: Vec<String> = (0..1 + random.below(4))
                    .map(|_| format!("- {}", random.sentence()))
                    .collect();
                (random.sentence(), lines.join("\n"))
            }
        };
        let name = format!("record-{n}");
        let text = record(&name, kind, "user", &updated, &description, &body);
        files.push((format!("{name}.md"), text));
    }
    files
}

#[test]
fn a_generated_store_gets_the_same_plan() {
    let owned = files();
    let files: Vec<(&str, String)> = owned.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
    let (_dir, records) = store(&files);
    let now: Timestamp = NOW.parse().unwrap_or_else(|e| panic!("{NOW}: {e}"));
    let plan = gather(&records, now);
    assert_each_record_read_once(&plan);
    let count = |f: Finding| {
        plan.operations
            .iter()
            .filter(|op| op.finding() == f)
            .count()
    };
    // The store plants all three, so the snapshot below cannot pass empty.
    assert!(count(Finding::ExactDuplicate) > 10, "{plan:#?}");
    assert!(count(Finding::NearDuplicate) > 10, "{plan:#?}");
    let lines: Vec<String> = plan
        .operations
        .iter()
        .map(|op| {
            let reads: Vec<&str> = op.reads().iter().map(|r| r.id.as_str()).collect();
            let kind = match op {
                Operation::Merge { into, .. } => format!("merge into {}", into.name),
                Operation::Update { .. } => "update".to_string(),
                Operation::Retire { .. } => "retire".to_string(),
            };
            format!("{:?} {kind}: {}", op.finding(), reads.join(" "))
        })
        .chain(
            plan.left_alone
                .iter()
                .map(|left| format!("left alone: {left:?}")),
        )
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
}
