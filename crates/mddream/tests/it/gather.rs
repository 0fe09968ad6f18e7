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
