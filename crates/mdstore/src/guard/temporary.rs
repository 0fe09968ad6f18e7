//! The temporary-text guard: "for now", "this task", "暂时", "今回だけ" …
//!
//! A memory is meant to outlive the task that produced it; text that says it
//! holds only now is refused (or warned about, interactively) by `remember`.
//!
//! Choices, since some markers also occur in durable facts:
//! - "temporary" (adjective) is not a marker: "tests write temporary files
//!   under target/tmp" is durable. Likewise 临时/臨時 before a thing (临时文件,
//!   临时目录, 临时表 …) and in the idioms 临时工, 临时抱佛脚.
//! - "temporarily" is a marker, except in the HTTP reason phrases "Service
//!   Temporarily Unavailable" and "Moved Temporarily", which durable facts
//!   about an API quote. It still fires on mechanisms ("the migration
//!   temporarily locks the table"); so may "right now" and "this task" in a
//!   preference. Such false alarms are accepted: the finding names the phrase
//!   and line, so the writer rephrases, while a temporary fact stored as
//!   durable misleads every later session.
//! - English markers match as whole words (ASCII word boundaries, so that they
//!   are found next to CJK text too) and not inside hyphenated compounds
//!   ("support for now-removed flags").
//! - CJK has no spaces, so CJK markers match inside runs of CJK text. The ones
//!   that begin longer non-temporary expressions are checked around: 今だけ /
//!   今回だけ followed by でなく・ではなく・じゃなく mean "not only now"; 当面 is
//!   Japanese "for the time being" but Chinese "face to face" (当面沟通), so it
//!   counts only on a line that holds kana, which Chinese never does.

use std::sync::LazyLock;

use regex::Regex;

use crate::guard::builtin_regex;

/// One temporary marker found, with its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemporaryFinding {
    /// The marker as listed (lower case, single spaces), not as written.
    pub phrase: String,
    pub line: usize,
}

/// Longest first where one marker begins another (本次任务 before 本次), since
/// the first alternative that matches at a position wins.
const ENGLISH: &[&str] = &[
    "for the time being",
    "for now",
    "this task",
    "this session",
    "just this once",
    "this time only",
    "temporarily",
    "until further notice",
    "right now",
];
const CHINESE: &[&str] = &[
    "本次任务",
    "这次任务",
    "本次任務",
    "這次任務",
    "目前先",
    "先这样",
    "先這樣",
    "暂时",
    "暫時",
    "临时",
    "臨時",
    "这次",
    "這次",
    "本次",
];
const JAPANESE: &[&str] = &[
    "今回だけ",
    "今回のみ",
    "一時的",
    "暫定",
    "今だけ",
    "取り敢えず",
    "取りあえず",
    "とりあえず",
    "当面",
];

/// What follows 临时/臨時 when it names a thing or forms an idiom.
const TEMPORARY_THING: &[&str] = &[
    "文件",
    "目录",
    "表",
    "变量",
    "对象",
    "缓存",
    "工",
    "抱佛脚",
    "檔案",
    "目錄",
    "變數",
    "物件",
    "快取",
    "抱佛腳",
];
/// What turns 今だけ / 今回だけ into "not only now".
const NOT_ONLY: &[&str] = &["でなく", "ではなく", "じゃなく"];

static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    let english = ENGLISH.iter().map(|phrase| phrase.replace(' ', r"\s+"));
    let cjk = CHINESE
        .iter()
        .chain(JAPANESE)
        .map(|phrase| regex::escape(phrase));
    let alternatives: Vec<String> = english.chain(cjk).collect();
    builtin_regex(&format!("(?i)(?:{})", alternatives.join("|")))
});

/// Every temporary marker in `text`, matched as words or phrases.
pub fn find_temporary(text: &str) -> Vec<TemporaryFinding> {
    let mut findings: Vec<TemporaryFinding> = Vec::new();
    let mut line = 1;
    let mut counted_to = 0;
    for found in MARKER.find_iter(text) {
        let (before, after) = (&text[..found.start()], &text[found.end()..]);
        let phrase = canonical(found.as_str());
        if !is_marker_here(&phrase, before, after) {
            continue;
        }
        line += text[counted_to..found.start()].matches('\n').count();
        counted_to = found.start();
        let finding = TemporaryFinding { phrase, line };
        if !findings.contains(&finding) {
            findings.push(finding);
        }
    }
    findings
}

fn canonical(matched: &str) -> String {
    matched
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn is_marker_here(phrase: &str, before: &str, after: &str) -> bool {
    let glued = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    match phrase {
        "temporarily" => {
            let previous = before.trim_end().to_lowercase();
            let next = after.trim_start().to_lowercase();
            let http_503 = previous.ends_with("service") && next.starts_with("unavailable");
            let http_302 = previous.ends_with("moved");
            !(http_503 || http_302) && is_whole_word(before, after, glued)
        }
        "临时" | "臨時" => !TEMPORARY_THING.iter().any(|thing| after.starts_with(thing)),
        "今だけ" | "今回だけ" => !NOT_ONLY.iter().any(|tail| after.starts_with(tail)),
        "当面" => line_has_kana(before, after),
        _ if phrase.is_ascii() => is_whole_word(before, after, glued),
        _ => true,
    }
}

fn is_whole_word(before: &str, after: &str, glued: impl Fn(char) -> bool) -> bool {
    !before.chars().next_back().is_some_and(&glued) && !after.chars().next().is_some_and(&glued)
}

/// Whether the line around a match (the match itself is CJK) holds kana.
fn line_has_kana(before: &str, after: &str) -> bool {
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let end = after.find('\n').unwrap_or(after.len());
    before[start..]
        .chars()
        .chain(after[..end].chars())
        .any(is_kana)
}

fn is_kana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{309f}' | '\u{30a0}'..='\u{30ff}' | '\u{31f0}'..='\u{31ff}')
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use rstest::rstest;

    fn phrases(text: &str) -> Vec<String> {
        find_temporary(text).into_iter().map(|f| f.phrase).collect()
    }

    #[rstest]
    #[case::for_now("For now use port 8080.", "for now")]
    #[case::for_now_newline("Use port 8080 for\nnow.", "for now")]
    #[case::for_the_time_being("For the time being, CI runs on one runner.", "for the time being")]
    #[case::this_task("Skip the lint step in this task.", "this task")]
    #[case::this_session("In this session we work on the parser.", "this session")]
    #[case::just_this_once("Push to main just this once.", "just this once")]
    #[case::this_time_only("Allow warnings this time only.", "this time only")]
    #[case::temporarily("Temporarily pin serde to 1.0.100.", "temporarily")]
    #[case::until_further_notice(
        "Deploys are frozen until further notice.",
        "until further notice"
    )]
    #[case::right_now("Right now the staging DB is down.", "right now")]
    #[case::extra_spaces("for   the  time\tbeing", "for the time being")]
    #[case::next_to_cjk("这个for now先这么用", "for now")]
    #[case::before_punctuation("(for now)", "for now")]
    fn english_markers(#[case] text: &str, #[case] phrase: &str) {
        assert_eq!(phrases(text), vec![phrase.to_string()]);
    }

    #[rstest]
    #[case::taskbar("fix the taskbar")]
    #[case::temporary_files("Tests write temporary files under target/tmp.")]
    #[case::temporary_adjective("A temporary table holds the import.")]
    #[case::nowhere("The config is found nowhere else.")]
    #[case::nowcast("The model is for nowcast data.")]
    #[case::inside_word("Use the fornow helper.")]
    #[case::hyphen_compound("Support for now-removed flags stays.")]
    #[case::this_tasks("this tasks list")]
    #[case::sessions("Keep this sessionless.")]
    #[case::http_503("The API answers 503 Service Temporarily Unavailable when rate limited.")]
    #[case::http_302("Old links answer 302 Moved Temporarily.")]
    #[case::session_word("Each session starts with MEMORY.md.")]
    #[case::time_word("The build takes a long time.")]
    fn english_near_misses(#[case] text: &str) {
        assert_eq!(phrases(text), Vec::<String>::new());
    }

    #[rstest]
    #[case::zanshi("暂时用 8080 端口", "暂时")]
    #[case::zanshi_traditional("暫時使用 8080", "暫時")]
    #[case::linshi("这是临时方案", "临时")]
    #[case::linshi_traditional("這是臨時方案", "臨時")]
    #[case::this_task("本次任务只改文档", "本次任务")]
    #[case::this_task_zhe("这次任务不跑测试", "这次任务")]
    #[case::zheci("这次跳过 lint", "这次")]
    #[case::zheci_traditional("這次跳過 lint", "這次")]
    #[case::benci("本次不发布", "本次")]
    #[case::muqian_xian("目前先用 sqlite", "目前先")]
    #[case::xian_zheyang("先这样吧", "先这样")]
    fn chinese_markers(#[case] text: &str, #[case] phrase: &str) {
        assert_eq!(phrases(text), vec![phrase.to_string()]);
    }

    #[rstest]
    #[case::temp_file("测试把临时文件写到 target/tmp")]
    #[case::temp_dir("临时目录在 /tmp 下")]
    #[case::idiom("用户不喜欢临时抱佛脚")]
    #[case::face_to_face("有问题当面沟通")]
    #[case::durable("测试一律用 pytest")]
    #[case::each_time("每次提交前运行 cargo fmt")]
    fn chinese_near_misses(#[case] text: &str) {
        assert_eq!(phrases(text), Vec::<String>::new());
    }

    #[rstest]
    #[case::konkai_dake("今回だけ main に直接 push する", "今回だけ")]
    #[case::konkai_nomi("今回のみ警告を許可", "今回のみ")]
    #[case::ichijiteki("一時的にポート 8080 を使う", "一時的")]
    #[case::zantei("暫定対応として無効化", "暫定")]
    #[case::ima_dake("今だけこの設定", "今だけ")]
    #[case::toriaezu("とりあえず sqlite を使う", "とりあえず")]
    #[case::toriaezu_kanji("取り敢えず sqlite を使う", "取り敢えず")]
    #[case::toumen("当面は sqlite を使う", "当面")]
    fn japanese_markers(#[case] text: &str, #[case] phrase: &str) {
        assert_eq!(phrases(text), vec![phrase.to_string()]);
    }

    #[rstest]
    #[case::not_only_now("今だけでなく今後もこの方針")]
    #[case::not_only_this_time("今回だけではなく毎回テストを実行する")]
    #[case::durable("テストは常に pytest を使う")]
    #[case::konkai_alone("今回のリリースノート")]
    fn japanese_near_misses(#[case] text: &str) {
        assert_eq!(phrases(text), Vec::<String>::new());
    }

    #[test]
    fn lines_are_one_based_and_every_marker_is_reported() {
        let text =
            "Durable fact.\r\nFor now use port 8080.\n\n暂时不用 docker, right now.\n今回だけ";
        assert_eq!(
            find_temporary(text),
            vec![
                TemporaryFinding {
                    phrase: "for now".into(),
                    line: 2
                },
                TemporaryFinding {
                    phrase: "暂时".into(),
                    line: 4
                },
                TemporaryFinding {
                    phrase: "right now".into(),
                    line: 4
                },
                TemporaryFinding {
                    phrase: "今回だけ".into(),
                    line: 5
                },
            ]
        );
    }

    #[test]
    fn a_repeated_marker_on_one_line_is_reported_once() {
        assert_eq!(
            find_temporary("for now, and for now only\nfor now"),
            vec![
                TemporaryFinding {
                    phrase: "for now".into(),
                    line: 1
                },
                TemporaryFinding {
                    phrase: "for now".into(),
                    line: 2
                },
            ]
        );
    }

    #[test]
    fn a_skipped_near_miss_does_not_shift_lines() {
        let text = "临时文件\n\n暂时";
        assert_eq!(
            find_temporary(text),
            vec![TemporaryFinding {
                phrase: "暂时".into(),
                line: 3
            }]
        );
    }
}
