//! The installed model as a caller sees it: deterministic, batch-independent,
//! sensible on paraphrases, total on odd input.

use std::collections::HashMap;
use std::path::Path;

use mdembed::{Model, cosine};

use crate::fixture::fixture;
use crate::reference::some_real_lines;

fn bits(vectors: &[mdembed::Embedding]) -> Vec<Vec<u32>> {
    vectors
        .iter()
        .map(|v| v.iter().map(|x| x.to_bits()).collect())
        .collect()
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel and its reference), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn embeddings_are_bit_identical_across_loads_threads_and_batches() {
    let fixture = fixture("embeddings_are_bit_identical_across_loads_threads_and_batches");
    let texts = some_real_lines();
    let first = Model::open(&fixture.installed).unwrap().with_threads(2);
    let again = Model::open(&fixture.installed).unwrap().with_threads(1);
    let batch = bits(&first.embed_batch(&texts).unwrap());
    assert_eq!(
        batch,
        bits(&again.embed_batch(&texts).unwrap()),
        "threads or loads"
    );
    let reversed: Vec<&String> = texts.iter().rev().collect();
    let mut back = bits(&first.embed_batch(&reversed).unwrap());
    back.reverse();
    assert_eq!(batch, back, "another batch order");
    for (i, text) in texts.iter().enumerate().step_by(37) {
        assert_eq!(
            bits(&[first.embed(text).unwrap()])[0],
            batch[i],
            "{text:?} alone"
        );
    }
    // The package itself, loaded without installing, gives the same bits.
    let wheel = Model::open(&fixture.wheel).unwrap();
    assert_eq!(
        batch,
        bits(&wheel.embed_batch(&texts).unwrap()),
        "from the wheel"
    );
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel and its reference), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn a_text_embedded_again_gets_the_same_bits_and_another_text_its_own() {
    let fixture = fixture("a_text_embedded_again_gets_the_same_bits_and_another_text_its_own");
    let texts = some_real_lines();
    let (one, other) = (&texts[0], &texts[1]);
    let fresh = Model::open(&fixture.installed).unwrap();
    let expected = bits(&fresh.embed_batch(&[one, other]).unwrap());
    let model = Model::open(&fixture.installed).unwrap();
    let asked = [one, one, other, one, other, other];
    for text in asked {
        let i = usize::from(text != one);
        assert_eq!(
            bits(&[model.embed(text).unwrap()])[0],
            expected[i],
            "{text:?}"
        );
    }
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel and its reference), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn the_same_records_rank_first_across_runs() {
    let fixture = fixture("the_same_records_rank_first_across_runs");
    let store = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../crates/bench/fixtures/context");
    let mut records: Vec<(String, String)> = std::fs::read_dir(store.join("store"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    records.sort();
    let prompts: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(store.join("prompts.json")).unwrap())
            .unwrap();
    let prompts: Vec<&str> = prompts
        .iter()
        .filter_map(|p| p["prompt"].as_str())
        .collect();
    let rank = || -> Vec<Vec<String>> {
        let model = Model::open(&fixture.installed).unwrap();
        let bodies: Vec<&str> = records.iter().map(|(_, text)| text.as_str()).collect();
        let vectors = model.embed_batch(&bodies).unwrap();
        prompts
            .iter()
            .map(|prompt| {
                let query = model.embed(prompt).unwrap();
                let mut scored: Vec<(f32, &String)> = vectors
                    .iter()
                    .zip(&records)
                    .map(|(v, (name, _))| (cosine(&query, v), name))
                    .collect();
                scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
                scored.iter().take(5).map(|(_, n)| (*n).clone()).collect()
            })
            .collect()
    };
    let first = rank();
    assert!(prompts.len() > 20 && first.iter().all(|top| top.len() == 5));
    assert_eq!(first, rank());
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel and its reference), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn a_cjk_paraphrase_scores_above_an_unrelated_sentence() {
    let fixture = fixture("a_cjk_paraphrase_scores_above_an_unrelated_sentence");
    let model = Model::open(&fixture.installed).unwrap();
    let cases = [
        (
            "我们每周二把代码部署到生产环境。",
            "每个星期二我们都会发布到线上。",
            "猫喜欢在阳光下睡觉。",
        ),
        (
            "数据库迁移失败时要先回滚。",
            "如果迁移出错，第一步是回退版本。",
            "这家餐厅的面条很好吃。",
        ),
        (
            "毎週火曜日に本番環境へデプロイします。",
            "火曜日ごとに本番にリリースしています。",
            "猫は日なたで眠るのが好きです。",
        ),
        (
            "テストが遅いので夜にだけ実行します。",
            "時間がかかるテストは夜間に回しています。",
            "この店のラーメンはおいしい。",
        ),
        (
            "매주 화요일에 운영 환경에 배포합니다.",
            "화요일마다 프로덕션으로 릴리스합니다.",
            "고양이는 햇볕 아래에서 자는 것을 좋아합니다.",
        ),
        (
            "배포 전에는 팀장의 승인이 필요합니다.",
            "릴리스하기 전에 팀 리더가 허락해야 합니다.",
            "오늘 저녁은 비빔밥을 먹었습니다.",
        ),
    ];
    for (sentence, paraphrase, unrelated) in cases {
        let [a, b, c] = [sentence, paraphrase, unrelated].map(|t| model.embed(t).unwrap());
        let (close, far) = (cosine(&a, &b), cosine(&a, &c));
        eprintln!("{sentence} ~ {paraphrase}: {close:.3}; ~ {unrelated}: {far:.3}");
        assert!(
            close > far + 0.1,
            "{sentence:?}: paraphrase {close}, unrelated {far}"
        );
    }
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (the embedding model wheel and its reference), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn odd_and_hostile_texts_embed_to_unit_vectors() {
    let fixture = fixture("odd_and_hostile_texts_embed_to_unit_vectors");
    let model = Model::open(&fixture.installed).unwrap();
    let long = "deploy the release ".repeat(10_000);
    let texts = [
        "",
        "   \t\n ",
        "\u{0}\u{0}\u{0}",
        "\u{202e}evil\u{202c} \u{2066}bidi\u{2069}",
        "<s></s><unk><s>",
        "\u{e000}\u{e001}\u{10ffff}",
        "ＡＷＳ_ＳＥＣＲＥＴ＝ｘ",
        long.as_str(),
    ];
    let mut seen = HashMap::new();
    for text in texts {
        let ids = model.tokenize(text);
        assert!(
            ids.len() <= mdembed::MAX_TOKENS && ids.len() >= 2,
            "{text:?}"
        );
        let vector = model.embed(text).unwrap();
        let norm: f32 = vector.iter().map(|x| x * x).sum();
        assert!(
            (norm - 1.0).abs() < 1e-4 && vector.iter().all(|x| x.is_finite()),
            "{text:?}"
        );
        seen.insert(text, vector);
    }
    assert_eq!(model.tokenize(&long).len(), mdembed::MAX_TOKENS);
    // The control pieces' texts are text, not control pieces.
    assert!(!model.tokenize("<s>")[1..].contains(&1));
}
