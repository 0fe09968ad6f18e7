//! Each gatherer on its own records, the expected plan a snapshot.

use insta::assert_json_snapshot;

use crate::support::{plan_of, record};

#[test]
fn exact_duplicates_merge_within_a_source_and_retire_a_less_trusted_copy() {
    let plan = plan_of(&[
        (
            "pnpm.md",
            record(
                "pnpm",
                "feedback",
                "user",
                "2026-03-01T00:00:00Z",
                "Package manager",
                "- Use **pnpm**, never npm.\n",
            ),
        ),
        (
            "pnpm-again.md",
            record(
                "pnpm-again",
                "feedback",
                "user",
                "2026-04-01T00:00:00Z",
                "package  manager",
                "* use pnpm,   NEVER npm.\n\n",
            ),
        ),
        (
            "pnpm-agent.md",
            record(
                "pnpm-agent",
                "feedback",
                "inferred",
                "2026-05-01T00:00:00Z",
                "Package manager",
                "Use `pnpm`, never npm.\n",
            ),
        ),
        (
            "other.md",
            record(
                "other",
                "feedback",
                "user",
                "2026-03-01T00:00:00Z",
                "Package manager",
                "Use pnpm, never yarn.\n",
            ),
        ),
    ]);
    assert_json_snapshot!(plan);
}

#[test]
fn exact_duplicates_in_chinese_japanese_and_korean() {
    let plan = plan_of(&[
        (
            "zh-a.md",
            record(
                "zh-a",
                "project",
                "user",
                "2026-03-01T00:00:00Z",
                "测试规范",
                "测试一律用 pytest。\n",
            ),
        ),
        (
            "zh-b.md",
            record(
                "zh-b",
                "project",
                "user",
                "2026-03-02T00:00:00Z",
                "测试规范",
                "- 测试一律用 **pytest**。\n",
            ),
        ),
        (
            "ja-a.md",
            record(
                "ja-a",
                "project",
                "user",
                "2026-03-01T00:00:00Z",
                "デプロイ",
                "デプロイは金曜日に行わない。\n",
            ),
        ),
        (
            "ja-b.md",
            record(
                "ja-b",
                "project",
                "user",
                "2026-03-05T00:00:00Z",
                "デプロイ",
                "デプロイは金曜日に行わない。\n",
            ),
        ),
        (
            "ko-a.md",
            record(
                "ko-a",
                "project",
                "verified",
                "2026-03-01T00:00:00Z",
                "배포",
                "배포는 금요일에 하지 않는다.\n",
            ),
        ),
        (
            "ko-b.md",
            record(
                "ko-b",
                "project",
                "user",
                "2026-02-01T00:00:00Z",
                "배포",
                "배포는 금요일에 하지 않는다.\n",
            ),
        ),
    ]);
    assert_json_snapshot!(plan);
}

#[test]
fn expired_records_are_retired_the_day_after_their_date() {
    let with_expiry = |name: &str, expires: &str| {
        record(
            name,
            "project",
            "user",
            "2026-03-01T00:00:00Z",
            &format!("freeze {name}"),
            "Deploy freeze.\n",
        )
        .replacen(
            "source: user\n",
            &format!("source: user\nexpires: {expires}\n"),
            1,
        )
    };
    let plan = plan_of(&[
        ("past-date.md", with_expiry("past-date", "2026-05-31")),
        ("today.md", with_expiry("today", "2026-06-01")),
        ("future.md", with_expiry("future", "2026-12-31")),
        (
            "past-time.md",
            with_expiry("past-time", "2026-06-01T11:59:00Z"),
        ),
    ]);
    assert_json_snapshot!(plan);
}

#[test]
fn a_newer_correction_retires_the_older_record_and_quotes_both_values() {
    let plan = plan_of(&[
        (
            "node-old.md",
            record(
                "node-old",
                "project",
                "user",
                "2026-01-10T00:00:00Z",
                "Node version",
                "We use Node 18 for every service.\n",
            ),
        ),
        (
            "node-new.md",
            record(
                "node-new",
                "project",
                "user",
                "2026-04-02T00:00:00Z",
                "Node version",
                "We use Node 22 for every service.\n",
            ),
        ),
        (
            "freeze-a.md",
            record(
                "freeze-a",
                "project",
                "verified",
                "2026-02-01T00:00:00Z",
                "冻结期",
                "部署冻结到3月1日。\n",
            ),
        ),
        (
            "freeze-b.md",
            record(
                "freeze-b",
                "project",
                "user",
                "2026-02-20T00:00:00Z",
                "冻结期",
                "部署冻结到4月15日。\n",
            ),
        ),
        (
            "db-a.md",
            record(
                "db-a",
                "project",
                "user",
                "2026-01-01T00:00:00Z",
                "データベース",
                "メインのデータベースは Postgres を使う。\n",
            ),
        ),
        (
            "db-b.md",
            record(
                "db-b",
                "project",
                "user",
                "2026-05-01T00:00:00Z",
                "データベース",
                "メインのデータベースは MySQL を使う。\n",
            ),
        ),
        (
            "cfg-a.md",
            record(
                "cfg-a",
                "reference",
                "user",
                "2026-01-01T00:00:00Z",
                "설정 파일",
                "설정은 /etc/app/config.toml 에서 읽는다.\n",
            ),
        ),
        (
            "cfg-b.md",
            record(
                "cfg-b",
                "reference",
                "user",
                "2026-02-01T00:00:00Z",
                "설정 파일",
                "설정은 /opt/app/settings.toml 에서 읽는다.\n",
            ),
        ),
    ]);
    assert_json_snapshot!(plan);
}

#[test]
fn a_correction_from_a_less_trusted_or_undated_record_is_left_alone() {
    let plan = plan_of(&[
        (
            "port-user.md",
            record(
                "port-user",
                "project",
                "user",
                "2026-01-10T00:00:00Z",
                "API port",
                "The API listens on port 8080.\n",
            ),
        ),
        (
            "port-agent.md",
            record(
                "port-agent",
                "project",
                "inferred",
                "2026-04-02T00:00:00Z",
                "API port",
                "The API listens on port 9090.\n",
            ),
        ),
        (
            "go-a.md",
            record(
                "go-a",
                "project",
                "user",
                "2026-04-02T00:00:00Z",
                "Go version",
                "Services are built with Go 1.21.\n",
            ),
        ),
        (
            "go-b.md",
            record(
                "go-b",
                "project",
                "user",
                "2026-04-02T00:00:00Z",
                "Go version",
                "Services are built with Go 1.23.\n",
            ),
        ),
    ]);
    assert_json_snapshot!(plan);
}

#[test]
fn hard_negatives_same_subject_different_fact_propose_nothing() {
    let plan = plan_of(&[
        (
            "node-18.md",
            record(
                "node-18",
                "project",
                "user",
                "2026-01-10T00:00:00Z",
                "Node",
                "Use Node 18.\n",
            ),
        ),
        (
            "node-pnpm.md",
            record(
                "node-pnpm",
                "project",
                "user",
                "2026-04-02T00:00:00Z",
                "Node",
                "Use pnpm for Node.\n",
            ),
        ),
        (
            "port-api.md",
            record(
                "port-api",
                "project",
                "user",
                "2026-01-10T00:00:00Z",
                "Ports",
                "Port 8080 is for the API.\n",
            ),
        ),
        (
            "port-db.md",
            record(
                "port-db",
                "project",
                "user",
                "2026-04-02T00:00:00Z",
                "Ports",
                "Port 5432 is for the database.\n",
            ),
        ),
        (
            "zh-18.md",
            record(
                "zh-18",
                "project",
                "user",
                "2026-01-10T00:00:00Z",
                "Node",
                "使用 Node 18。\n",
            ),
        ),
        (
            "zh-pnpm.md",
            record(
                "zh-pnpm",
                "project",
                "user",
                "2026-04-02T00:00:00Z",
                "Node",
                "Node 项目用 pnpm 安装依赖。\n",
            ),
        ),
        (
            "friday-prod.md",
            record(
                "friday-prod",
                "project",
                "user",
                "2026-01-10T00:00:00Z",
                "No deploys on Friday",
                "Never deploy to production on a Friday afternoon.\n",
            ),
        ),
        (
            "friday-staging.md",
            record(
                "friday-staging",
                "project",
                "user",
                "2026-04-02T00:00:00Z",
                "No deploys on Friday",
                "Deploys to staging happen every Friday morning.\n",
            ),
        ),
        (
            "ko-prod.md",
            record(
                "ko-prod",
                "project",
                "user",
                "2026-01-10T00:00:00Z",
                "금요일 배포 금지",
                "금요일 오후에는 운영 환경에 배포하지 않는다.\n",
            ),
        ),
        (
            "ko-staging.md",
            record(
                "ko-staging",
                "project",
                "user",
                "2026-04-02T00:00:00Z",
                "금요일 배포 금지",
                "스테이징 배포는 매주 금요일 오전에 한다.\n",
            ),
        ),
    ]);
    assert!(
        plan.operations.is_empty() && plan.left_alone.is_empty(),
        "{plan:#?}"
    );
}

#[test]
fn near_duplicates_merge_keeping_every_line_and_across_sources_are_left_alone() {
    let plan = plan_of(&[
        (
            "prs.md",
            record(
                "prs",
                "feedback",
                "user",
                "2026-01-10T00:00:00Z",
                "Prefer small pull requests",
                "Keep pull requests small, under 400 lines of diff, so reviews stay quick.\n**Why:** big ones wait for days.\n",
            ),
        ),
        (
            "small-prs.md",
            record(
                "small-prs",
                "feedback",
                "user",
                "2026-03-02T00:00:00Z",
                "Small pull requests",
                "Keep each pull request small, under 400 lines of diff, so that reviews stay quick.\n",
            ),
        ),
        (
            "zh-log.md",
            record(
                "zh-log",
                "project",
                "user",
                "2026-01-10T00:00:00Z",
                "日志格式",
                "日志使用结构化 JSON，每行都带请求编号。\n",
            ),
        ),
        (
            "zh-log-2.md",
            record(
                "zh-log-2",
                "project",
                "user",
                "2026-02-10T00:00:00Z",
                "结构化日志",
                "日志统一使用结构化 JSON 格式，每一行都带上请求编号。\n",
            ),
        ),
        (
            "ja-retry.md",
            record(
                "ja-retry",
                "project",
                "user",
                "2026-01-10T00:00:00Z",
                "リトライ",
                "失敗したジョブは指数バックオフで三回リトライする。\n",
            ),
        ),
        (
            "ja-retry-agent.md",
            record(
                "ja-retry-agent",
                "project",
                "inferred",
                "2026-02-10T00:00:00Z",
                "ジョブの再試行",
                "失敗したジョブは指数バックオフで三回までリトライする。\n",
            ),
        ),
    ]);
    assert_json_snapshot!(plan);
}

#[test]
fn claude_code_memory_folder_without_revision_or_source() {
    let file = |name: &str, kind: &str, description: &str, body: &str| {
        format!("---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n\n{body}\n")
    };
    let plan = plan_of(&[
        (
            "MEMORY.md",
            "# Memory index\n- [testing](feedback_testing.md) — how we test\n".to_string(),
        ),
        (
            "feedback_testing.md",
            file(
                "testing",
                "feedback",
                "How we test",
                "Run the integration tests against a real database, never mocks.\n\n**Why:** mocked tests passed while the migration broke prod.",
            ),
        ),
        (
            "feedback_testing_again.md",
            file(
                "testing-again",
                "feedback",
                "how we test",
                "run the integration tests against a real database, never mocks.\n\n**Why:**  mocked tests passed while the migration broke prod.",
            ),
        ),
        (
            "project_freeze.md",
            file(
                "freeze",
                "project",
                "Merge freeze",
                "Merge freeze begins 2026-03-05 for the mobile release cut.",
            ),
        ),
        (
            "project_freeze_moved.md",
            file(
                "freeze-moved",
                "project",
                "Merge freeze",
                "Merge freeze begins 2026-03-12 for the mobile release cut.",
            ),
        ),
    ]);
    assert_json_snapshot!(plan);
}

#[test]
fn over_budget_memory_md_names_the_records_to_merge_or_retire_first() {
    let mut files = Vec::new();
    for i in 0..230 {
        let source = if i % 50 == 7 { "inferred" } else { "user" };
        let updated = format!("2026-0{}-01T00:00:00Z", 1 + i % 5);
        let body = format!("Fact number {i} about subsystem {}.\n", i * 7919 % 1000);
        files.push((
            format!("r{i:03}.md"),
            record(
                &format!("r{i:03}"),
                "project",
                source,
                &updated,
                &format!("note {i} on part {}", i * 31 % 97),
                &body,
            ),
        ));
    }
    let files: Vec<(&str, String)> = files.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
    let plan = plan_of(&files);
    assert_json_snapshot!(plan);
}
