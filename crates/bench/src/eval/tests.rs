use super::*;

#[test]
fn generation_is_deterministic_and_questions_point_at_records() {
    let first = corpora(7, 0.3);
    let again = corpora(7, 0.3);
    for (a, b) in first.iter().zip(&again) {
        assert_eq!(a.docs.len(), b.docs.len());
        assert_eq!(
            a.questions.iter().map(|q| &q.text).collect::<Vec<_>>(),
            b.questions.iter().map(|q| &q.text).collect::<Vec<_>>()
        );
        assert!(
            a.questions.len() >= 10,
            "{}: {}",
            a.language,
            a.questions.len()
        );
        for question in &a.questions {
            assert!(question.answer < a.docs.len());
            assert!(!question.text.contains('{'));
        }
    }
}

#[test]
fn cjk_fragments_skip_stop_bigrams() {
    assert_eq!(
        cjk_fragments("我们的部署冻结是怎么定的"),
        vec!["部署冻结".to_string()]
    );
    assert_eq!(cjk_fragments("测试"), vec!["测试".to_string()]);
}

/// The small version of src/bin/retrieval_eval.rs: our ranking must not be
/// below plain BM25 on either language.
#[test]
fn ours_recalls_at_least_as_much_as_the_baseline() {
    for corpus in corpora(11, 0.3) {
        let baseline = SystemIndex::build(System::Baseline, &corpus.docs).unwrap();
        let ours = SystemIndex::build(System::Ours, &corpus.docs).unwrap();
        let base = score(&corpus.questions, |q| baseline.rank(q, 10)).unwrap();
        let our = score(&corpus.questions, |q| ours.rank(q, 10)).unwrap();
        assert!(
            our.recall_at_10 >= base.recall_at_10,
            "{}: ours {our:?} < baseline {base:?}",
            corpus.language
        );
        assert!(our.recall_at_10 > 0.5, "{}: {our:?}", corpus.language);
    }
}

/// Words must not find less than the bigrams of whole runs did, in any
/// language (the full figures are in docs/RETRIEVAL.md).
#[test]
fn words_recall_at_least_as_much_as_whole_run_bigrams() {
    for corpus in corpora(11, 0.3) {
        let before = SystemIndex::build(System::WholeRuns, &corpus.docs).unwrap();
        let ours = SystemIndex::build(System::Ours, &corpus.docs).unwrap();
        let before = score(&corpus.questions, |q| before.rank(q, 10)).unwrap();
        let our = score(&corpus.questions, |q| ours.rank(q, 10)).unwrap();
        assert!(
            our.recall_at_10 >= before.recall_at_10,
            "{}: ours {our:?} < before {before:?}",
            corpus.language
        );
    }
}
