//! A second generator, written to match real folders rather than this
//! project's idea of them (issue 29): English prose in paragraphs of long
//! lines, project words drawn from a Zipf law (a few everywhere, most in a
//! handful of records), 5% of the records in Chinese or Japanese with
//! English terms inside, one in twelve a long note, one in thirty a revision
//! of an earlier record with a sentence changed (near pairs), and 2% of the
//! files with the faults real folders have: CRLF line ends, a byte-order
//! mark, `type` nested under another key, no frontmatter at all. The marker
//! word is planted in 1% of the records, as in [`crate::generate`].
//!
//! Every record is written from its own seed, so that a revision can
//! rebuild the record it revises.

use std::fs;
use std::io;
use std::path::Path;

use crate::generate::{MARKER, Rng};

const COMMON: &[&str] = &[
    "the", "a", "we", "it", "is", "are", "was", "be", "to", "of", "and", "in", "on", "for", "with",
    "that", "this", "when", "after", "before", "because", "but", "not", "never", "always", "only",
    "use", "uses", "run", "runs", "keep", "keeps", "check", "prefer", "prefers", "ask", "move",
    "write", "read", "build", "test", "tests", "deploy", "release", "review", "branch", "commit",
    "config", "file", "folder", "script", "service", "client", "server", "team", "user", "people",
    "slow", "fast", "flaky", "stable", "old", "new", "first", "last", "every", "each", "other",
    "should", "must", "can", "will", "would", "might", "again", "still", "already", "instead",
    "about", "from", "into", "than", "then", "there", "which", "who", "what", "how", "why",
    "decided", "agreed", "noticed", "found", "broke", "fixed", "changed", "added", "removed",
    "weekly", "nightly", "manual", "shared", "local", "remote", "pinned", "latest", "version",
];
const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ren", "tor", "vex", "qu", "zan", "pel", "dor", "fi", "gra", "hux", "jo",
    "bel", "cy", "nu", "os", "pra", "sil", "tam", "ur", "wy", "xen",
];
const SUFFIXES: &[&str] = &[
    "", "", "", "-svc", "-api", "_v2", "Handler", "-worker", "db", ".rs",
];
/// How many project words a store has, whatever its size.
const PROJECT_WORDS: usize = 6_000;
const ZH: &[&str] = &[
    "我们",
    "团队",
    "总是",
    "不要",
    "使用",
    "部署",
    "发布",
    "测试",
    "数据库",
    "缓存",
    "前端",
    "后端",
    "代码",
    "审查",
    "日志",
    "监控",
    "回滚",
    "决定",
    "因为",
    "每周",
    "配置",
    "服务",
    "版本",
    "迁移",
    "性能",
    "的时候",
    "之前",
    "之后",
    "需要",
    "已经",
    "问题",
    "修复",
];
const JA: &[&str] = &[
    "チーム",
    "は",
    "を",
    "に",
    "で",
    "が",
    "使う",
    "デプロイ",
    "リリース",
    "テスト",
    "前に",
    "後で",
    "必ず",
    "しない",
    "ことにした",
    "データベース",
    "キャッシュ",
    "レビュー",
    "ログ",
    "設定",
    "サービス",
    "バージョン",
    "移行",
    "性能",
    "問題",
    "修正した",
    "毎週",
];

/// Draws project words with probability falling as 1/rank (Zipf, s = 1).
struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    fn new(n: usize) -> Zipf {
        let mut total = 0.0;
        let cumulative = (1..=n)
            .map(|rank| {
                total += 1.0 / rank as f64;
                total
            })
            .collect();
        Zipf { cumulative }
    }

    fn rank(&self, rng: &mut Rng) -> usize {
        let total = self.cumulative.last().copied().unwrap_or(1.0);
        let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * total;
        self.cumulative.partition_point(|&c| c < u)
    }
}

/// The project word of a rank: syllables and a suffix, the same in every run.
fn project_word(rank: usize) -> String {
    let mut rng = Rng::new(0x9e37 + rank as u64);
    let syllables = 2 + rng.below(2);
    let mut word: String = (0..syllables)
        .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
        .collect();
    word.push_str(SUFFIXES[rng.below(SUFFIXES.len())]);
    word
}

/// Writes records for one store: the word list and the Zipf law, built once.
struct Writer {
    words: Vec<String>,
    zipf: Zipf,
}

/// The language a record is written in.
#[derive(Clone, Copy)]
enum Language {
    English,
    Chinese,
    Japanese,
}

impl Writer {
    fn new() -> Writer {
        Writer {
            words: (0..PROJECT_WORDS).map(project_word).collect(),
            zipf: Zipf::new(PROJECT_WORDS),
        }
    }

    fn project(&self, rng: &mut Rng) -> &str {
        &self.words[self.zipf.rank(rng)]
    }

    fn sentence(&self, rng: &mut Rng, language: Language) -> String {
        let n = 6 + rng.below(15);
        match language {
            Language::English => {
                let mut words: Vec<String> = (0..n)
                    .map(|_| match rng.below(10) {
                        0..=2 => self.project(rng).to_string(),
                        3 if rng.below(4) == 0 => format!("`{}`", self.project(rng)),
                        4 if rng.below(6) == 0 => rng.below(5000).to_string(),
                        _ => COMMON[rng.below(COMMON.len())].to_string(),
                    })
                    .collect();
                if let Some(first) = words.first_mut() {
                    let mut chars = first.chars();
                    if let Some(c) = chars.next() {
                        *first = c.to_uppercase().chain(chars).collect();
                    }
                }
                words.join(" ") + "."
            }
            Language::Chinese | Language::Japanese => {
                let pool = if matches!(language, Language::Chinese) {
                    ZH
                } else {
                    JA
                };
                let mut text: String = (0..n)
                    .map(|_| {
                        if rng.below(6) == 0 {
                            self.project(rng).to_string()
                        } else {
                            pool[rng.below(pool.len())].to_string()
                        }
                    })
                    .collect();
                text.push('。');
                text
            }
        }
    }

    fn paragraph(&self, rng: &mut Rng, language: Language) -> String {
        let sentences = 1 + rng.below(6);
        let separator = if matches!(language, Language::English) {
            " "
        } else {
            ""
        };
        let mut lines: Vec<String> = (0..sentences)
            .map(|_| self.sentence(rng, language))
            .collect();
        if rng.below(5) == 0 {
            // A list: one item a line.
            return lines
                .iter_mut()
                .map(|l| format!("- {l}"))
                .collect::<Vec<_>>()
                .join("\n");
        }
        lines.join(separator)
    }

    /// The description and body of record `i` (written from its own seed).
    fn text(&self, i: usize, n: usize) -> (String, String) {
        let mut rng = Rng::new(0x3117_0000 ^ (n as u64) << 24 ^ i as u64);
        let language = match rng.below(40) {
            0 => Language::Chinese,
            1 => Language::Japanese,
            _ => Language::English,
        };
        let paragraphs = if i % 12 == 5 {
            6 + rng.below(15)
        } else {
            1 + rng.below(3)
        };
        let mut body: Vec<String> = (0..paragraphs)
            .map(|_| self.paragraph(&mut rng, language))
            .collect();
        if rng.below(3) == 0 {
            body.push(format!("**Why:** {}", self.sentence(&mut rng, language)));
        }
        let first = body[0].trim_start_matches("- ");
        let description: String = first.chars().take(80).collect();
        (description, body.join("\n\n") + "\n")
    }

    /// Record `i`'s file: a revision of an earlier record for one in
    /// thirty, a faulty file for one in fifty.
    fn file(&self, i: usize, n: usize) -> String {
        let (description, mut body) = self.text(i, n);
        let mut description = description;
        if i % 30 == 11 && i > 40 {
            // Revises an earlier record: its text with one sentence changed.
            let revised = i - 1 - (i * 7919) % 40;
            let (d, b) = self.text(revised, n);
            let mut rng = Rng::new(i as u64);
            let changed = self.sentence(&mut rng, Language::English);
            body = match b.find(". ") {
                Some(end) => format!("{changed}{}", &b[end + 1..]),
                None => format!("{b}{changed}\n"),
            };
            description = d;
        }
        if i % 100 == 42 {
            body.push_str(&format!("\nSee the {MARKER} notes.\n"));
        }
        let types = ["user", "feedback", "project", "reference"];
        let kind = types[(i * 31) % 4];
        let quoted = serde_json::to_string(&description).unwrap_or_default();
        let day = 1 + i % 28;
        let name = format!("rec-{i:06}");
        let head = |type_line: &str| {
            format!(
                "---\nname: {name}\ndescription: {quoted}\n{type_line}\ncreated: 2025-03-{day:02}T10:00:00Z\nupdated: 2026-01-{day:02}T10:00:00Z\n---\n"
            )
        };
        if i % 50 != 17 {
            return head(&format!("type: {kind}")) + &body;
        }
        match (i / 50) % 4 {
            0 => (head(&format!("type: {kind}")) + &body).replace('\n', "\r\n"),
            1 => format!("\u{feff}{}{body}", head(&format!("type: {kind}"))),
            2 => head(&format!("metadata:\n  type: {kind}")) + &body,
            _ => format!("# {description}\n\n{body}"),
        }
    }
}

/// Writes `n` records into `dir` (created), their mtimes a day old.
pub fn store(dir: &Path, n: usize) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    let writer = Writer::new();
    let a_day_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(86_400);
    for i in 0..n {
        let path = dir.join(format!("rec-{i:06}.md"));
        fs::write(&path, writer.file(i, n))?;
        fs::File::options()
            .write(true)
            .open(&path)?
            .set_modified(a_day_ago)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mix_is_as_described() {
        let writer = Writer::new();
        let files: Vec<String> = (0..2_000).map(|i| writer.file(i, 2_000)).collect();
        let count = |f: &dyn Fn(&String) -> bool| files.iter().filter(|t| f(t)).count();
        let cjk = count(&|t| t.chars().any(|c| ('\u{3040}'..='\u{9fff}').contains(&c)));
        assert!((60..=150).contains(&cjk), "{cjk} records hold CJK text");
        assert_eq!(count(&|t| t.contains("\r\n")), 10);
        assert_eq!(count(&|t| t.starts_with('\u{feff}')), 10);
        assert_eq!(count(&|t| t.contains("\n  type: ")), 10);
        assert_eq!(
            count(&|t| !t.trim_start_matches('\u{feff}').starts_with("---")),
            10
        );
        assert_eq!(count(&|t| t.contains(MARKER)), 20);
        // Zipf: the most frequent project word is in many records, most in few.
        let top = project_word(0);
        let with_top = count(&|t| t.contains(&top));
        assert!(with_top > 200, "the top word is in {with_top} records");
    }
}
