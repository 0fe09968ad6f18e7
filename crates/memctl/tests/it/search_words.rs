//! `memctl search` over words as people write them: Chinese, Japanese and
//! Korean inside unspaced runs, English word forms, case and accents.

use pretty_assertions::assert_eq;

use crate::freshness::set;
use crate::search::{hits, ids, search, world};

#[test]
fn chinese_japanese_and_korean_match_inside_unspaced_runs() {
    let env = world();
    assert_eq!(ids(&env, &["测试"]), set(&["prefer-pytest"]));
    assert_eq!(
        ids(&env, &["一律"]),
        set(&["prefer-pytest"]),
        "two characters mid-run"
    );
    let mixed = hits(&env, &["pytest", "测试"]);
    assert_eq!(
        mixed.first().map(|(id, _)| id.as_str()),
        Some("prefer-pytest"),
        "the record with both words ranks first: {mixed:?}"
    );
    assert_eq!(mixed.len(), 2, "{mixed:?}");
    assert_eq!(ids(&env, &["テスト"]), set(&["review-language"]));
    assert_eq!(ids(&env, &["日本語"]), set(&["review-language"]));
    assert_eq!(
        ids(&env, &["テスト", "type:feedback"]),
        set(&["review-language"])
    );
    assert_eq!(ids(&env, &["테스트"]), set(&["staging-server"]));
    assert_eq!(
        ids(&env, &["테스트를", "어디서", "해요?"]),
        set(&["staging-server"]),
        "a Korean word with another particle, its question words dropped"
    );
    assert_eq!(
        ids(&env, &["レビューの言語は"]),
        set(&["review-language"]),
        "Japanese words without their particles"
    );
    assert_eq!(
        ids(&env, &["서버는"]),
        set(&["staging-server"]),
        "a particle is not part of the word"
    );
    assert_eq!(
        ids(&env, &["测验"]),
        set(&[]),
        "a different word is not a match"
    );

    let run = search(&env, &["测试"]);
    run.assert_success();
    assert!(run.stdout.contains("[测试]一律用"), "{}", run.render());
}

#[test]
fn english_word_forms_case_and_accents() {
    let env = world();
    for query in ["test", "tests", "testing", "TESTED"] {
        assert!(
            ids(&env, &[query]).contains("prefer-pytest"),
            "{query} finds the record whose description says Tests"
        );
    }
    assert_eq!(
        ids(&env, &["deploying"]),
        set(&["deploy-checklist", "deploy-freeze"])
    );
    assert_eq!(ids(&env, &["cafe"]), set(&["cafe-hours"]));
    assert_eq!(ids(&env, &["CAFÉ"]), set(&["cafe-hours"]));
    assert_eq!(ids(&env, &["Café"]), set(&["cafe-hours"]));
}
