//! Deterministic stores written the way people write memories: a title and
//! a few short lines about one service, tool or rule, often with a
//! `**Why:**` line, a tenth of them longer notes; 5% in Chinese, Japanese
//! or Korean as users write them (particles attached to English terms,
//! numbers and names inside the sentence). Names, numbers and paths vary
//! from record to record as they do in a real project, so two records
//! share words without being the same fact.

use std::fs;
use std::io;
use std::path::Path;

use crate::generate::Rng;

const SERVICES: &[&str] = &[
    "billing",
    "auth",
    "search",
    "gateway",
    "checkout",
    "inventory",
    "payments",
    "ledger",
    "notifier",
    "scheduler",
    "importer",
    "exporter",
    "reports",
    "profile",
    "catalog",
    "pricing",
    "shipping",
    "tickets",
    "wiki",
    "metrics",
];
const TOOLS: &[&str] = &[
    "pnpm",
    "cargo",
    "pytest",
    "terraform",
    "helm",
    "docker",
    "kubectl",
    "ruff",
    "black",
    "eslint",
    "prettier",
    "sqlx",
    "alembic",
    "redis",
    "postgres",
    "kafka",
    "nginx",
    "grafana",
    "sentry",
    "renovate",
];
const PEOPLE: &[&str] = &[
    "Alice", "Bob", "Priya", "Tomás", "Mei", "Yusuf", "Ingrid", "Kenji", "Amara", "Lukas",
];
const EN_RULES: &[&str] = &[
    "The {s} service is deployed with {t} from the release branch.",
    "Run {t} before pushing changes to {s}.",
    "{p} owns the {s} service and reviews its migrations.",
    "The {s} API listens on port {n} in staging.",
    "Never restart {s} during the nightly import at {h}:00.",
    "Config for {s} lives in config/{s}/{t}.toml.",
    "Tests for {s} must pass with {t} on every pull request.",
    "The {s} cache expires after {n} seconds.",
    "Ask {p} before changing the {s} schema.",
    "Logs from {s} go to {t} with a request id on every line.",
    "Keep {s} handlers under {n} lines.",
    "The {s} queue retries a failed job {n} times.",
];
const EN_WHY: &[&str] = &[
    "**Why:** the last outage started there.",
    "**Why:** {p} asked for it after the incident review.",
    "**Why:** it broke the build twice this quarter.",
    "**How to apply:** check this before every release of {s}.",
];
const ZH_RULES: &[&str] = &[
    "{s}服务用{t}部署，只从release分支发版。",
    "改{s}之前先跑{t}，不要直接push。",
    "{s}的配置在config/{s}/{t}.toml里，改之前先跟{p}确认。",
    "{s}的缓存{n}秒后过期。",
    "每天{h}点导入的时候不要重启{s}。",
];
const JA_RULES: &[&str] = &[
    "{s}サービスは{t}でデプロイし、releaseブランチからだけリリースする。",
    "{s}を変更する前に{t}を実行すること。",
    "{s}の設定はconfig/{s}/{t}.tomlにあり、変える前に{p}さんに確認する。",
    "{s}のキャッシュは{n}秒で切れる。",
    "毎晩{h}時のインポート中は{s}を再起動しない。",
];
const KO_RULES: &[&str] = &[
    "{s} 서비스는 {t}로 배포하고 release 브랜치에서만 릴리스한다.",
    "{s}를 바꾸기 전에 {t}를 먼저 돌린다.",
    "{s} 설정은 config/{s}/{t}.toml에 있고 바꾸기 전에 {p}에게 확인한다.",
    "{s} 캐시는 {n}초 뒤에 만료된다.",
    "매일 밤 {h}시 가져오기 중에는 {s}를 재시작하지 않는다.",
];

/// Which language a record is written in: 5% Chinese, Japanese or Korean.
fn rules_of(i: usize) -> &'static [&'static str] {
    match (i % 20, (i / 20) % 3) {
        (7, 0) => ZH_RULES,
        (7, 1) => JA_RULES,
        (7, _) => KO_RULES,
        _ => EN_RULES,
    }
}

fn fill(template: &str, rng: &mut Rng, service: &str) -> String {
    template
        .replace("{s}", service)
        .replace("{t}", TOOLS[rng.below(TOOLS.len())])
        .replace("{p}", PEOPLE[rng.below(PEOPLE.len())])
        .replace("{n}", &(10 + rng.below(990)).to_string())
        .replace("{h}", &rng.below(24).to_string())
}

/// The description and body of record `i` of a store of `n`.
pub fn text(i: usize, n: usize, rng: &mut Rng) -> (String, String) {
    let rules = rules_of(i);
    // A service name with a number, as real projects have many of them:
    // about two and a half records per service, in a store of any size (a
    // larger project has more things to remember, not more notes on each).
    let service = format!(
        "{}-{}",
        SERVICES[rng.below(SERVICES.len())],
        rng.below((n / 50).max(10))
    );
    let first = fill(rules[rng.below(rules.len())], rng, &service);
    let description: String = first.chars().take(60).collect();
    let lines = if i % 10 == 3 {
        8 + rng.below(6)
    } else {
        1 + rng.below(3)
    };
    let mut body = first;
    for _ in 1..lines {
        body.push('\n');
        body.push_str(&fill(rules[rng.below(rules.len())], rng, &service));
    }
    if rules == EN_RULES && rng.below(2) == 0 {
        body.push('\n');
        body.push_str(&fill(EN_WHY[rng.below(EN_WHY.len())], rng, &service));
    }
    body.push('\n');
    (description, body)
}

/// A record file as memctl writes one.
pub fn file(name: &str, i: usize, description: &str, body: &str, updated: &str) -> String {
    let types = ["user", "feedback", "project", "reference"];
    let description = serde_json::to_string(description).unwrap_or_default();
    format!(
        "---\nname: {name}\ndescription: {description}\ntype: {}\ncreated: 2026-01-01T00:00:00Z\nupdated: {updated}\nrevision: 1\nsource: user\n---\n{body}",
        types[i % 4]
    )
}

/// Writes `n` records into `dir` (created).
pub fn store(dir: &Path, n: usize) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    let mut rng = Rng::new(0x05e5 ^ n as u64);
    let a_day_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(86_400);
    for i in 0..n {
        let (description, body) = text(i, n, &mut rng);
        let name = format!("rec-{i:06}");
        let path = dir.join(format!("{name}.md"));
        fs::write(
            &path,
            file(&name, i, &description, &body, "2026-01-01T00:00:00Z"),
        )?;
        // As in generate.rs: a store that has existed for a while.
        fs::File::options()
            .write(true)
            .open(&path)?
            .set_modified(a_day_ago)?;
    }
    Ok(())
}
