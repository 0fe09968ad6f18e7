//! The e5 port on a tiny model written here (hidden 32, one layer, eight
//! pieces): what a hostile or damaged file gets (a clear error naming the
//! file and the part), and the windows of a long text. The real model's
//! parity with the C engine is tested in tests/it/e5.rs.

use std::path::Path;

use super::forward::f16_to_f32;
use super::{E5, Kind};

const H: usize = 32;
const FF: usize = 64;
const PIECES: [&str; 8] = [
    "<s>",
    "<pad>",
    "</s>",
    "<unk>",
    "\u{2581}",
    "a",
    "b",
    "\u{2581}ab",
];
const POSITIONS: usize = 8;

/// What the tiny file holds; a test changes a field to make it hostile.
struct Spec {
    hidden: i32,
    heads: i32,
    bos: i32,
    offsets: Vec<u32>,
    normalization: Vec<(u32, Vec<u32>)>,
    /// A tensor to write with the wrong value count.
    short_tensor: Option<&'static str>,
    /// Added to every tensor's offset.
    offset_shift: u64,
}

impl Spec {
    fn good() -> Spec {
        let mut offsets = vec![0u32];
        for piece in PIECES {
            offsets.push(offsets[offsets.len() - 1] + piece.len() as u32);
        }
        Spec {
            hidden: H as i32,
            heads: 2,
            bos: 0,
            offsets,
            normalization: vec![(0x41, vec![0x61]), (0xff21, vec![0x61])],
            short_tensor: None,
            offset_shift: 0,
        }
    }

    fn tensors(&self) -> Vec<(String, u8, usize)> {
        let mut out = vec![
            ("emb.word".to_string(), 1, PIECES.len() * H),
            ("emb.pos".to_string(), 0, POSITIONS * H),
            ("emb.type".to_string(), 0, H),
            ("emb.ln.w".to_string(), 0, H),
            ("emb.ln.b".to_string(), 0, H),
        ];
        for (part, dtype, values) in [
            ("q.w", 1, H * H),
            ("q.b", 0, H),
            ("k.w", 1, H * H),
            ("k.b", 0, H),
            ("v.w", 1, H * H),
            ("v.b", 0, H),
            ("ao.w", 1, H * H),
            ("ao.b", 0, H),
            ("aln.w", 0, H),
            ("aln.b", 0, H),
            ("fi.w", 1, FF * H),
            ("fi.b", 0, FF),
            ("fo.w", 1, H * FF),
            ("fo.b", 0, H),
            ("oln.w", 0, H),
            ("oln.b", 0, H),
        ] {
            out.push((format!("l0.{part}"), dtype, values));
        }
        out
    }

    fn bytes(&self) -> Vec<u8> {
        let mut b = b"E5S1".to_vec();
        let i32s = |b: &mut Vec<u8>, values: &[i32]| {
            values.iter().for_each(|v| b.extend(v.to_le_bytes()));
        };
        b.extend(1u32.to_le_bytes());
        i32s(&mut b, &[self.hidden, 1, self.heads, FF as i32]);
        i32s(&mut b, &[PIECES.len() as i32, POSITIONS as i32, 1]);
        b.extend(1e-12f32.to_le_bytes());
        i32s(&mut b, &[32, PIECES.len() as i32, self.bos, 2, 1, 3]);
        let blob: String = PIECES.concat();
        b.extend((blob.len() as u64).to_le_bytes());
        self.offsets.iter().for_each(|o| b.extend(o.to_le_bytes()));
        for i in 0..PIECES.len() {
            b.extend((if i < 4 { 0.0f32 } else { -(i as f32) }).to_le_bytes());
        }
        b.extend(blob.as_bytes());
        let mut map = Vec::new();
        for (from, to) in &self.normalization {
            map.extend(from.to_le_bytes());
            map.push(to.len() as u8);
            to.iter().for_each(|c| map.extend(c.to_le_bytes()));
        }
        i32s(&mut b, &[self.normalization.len() as i32]);
        b.extend((map.len() as u32).to_le_bytes());
        b.extend(map);
        let tensors = self.tensors();
        i32s(&mut b, &[tensors.len() as i32]);
        let directory_len: usize = tensors.iter().map(|(n, ..)| 2 + n.len() + 21).sum();
        let mut offset = (b.len() + directory_len) as u64;
        let mut data = Vec::new();
        let mut seed = 7u32;
        for (name, dtype, values) in &tensors {
            let values = if self.short_tensor == Some(name.as_str()) {
                values - 32
            } else {
                *values
            };
            let len = if *dtype == 0 {
                values * 4
            } else {
                values / 32 * 18
            };
            b.extend((name.len() as u16).to_le_bytes());
            b.extend(name.as_bytes());
            b.push(*dtype);
            b.extend((values as u32).to_le_bytes());
            b.extend((offset + self.offset_shift).to_le_bytes());
            b.extend((len as u64).to_le_bytes());
            offset += len as u64;
            for i in 0..len {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let byte = (seed >> 16) as u8;
                // f32 tensors: small values; Q4 scales: f16 0.0625.
                data.push(match (*dtype, i % if *dtype == 0 { 4 } else { 18 }) {
                    (0, 3) => 0x3c | (byte & 0x80),
                    (1, 0) => 0x00,
                    (1, 1) => 0x2c,
                    _ => byte,
                });
            }
        }
        b.extend(data);
        b
    }
}

fn open(bytes: &[u8]) -> crate::Result<E5> {
    E5::from_bytes(Path::new("/models/tiny-e5.bin"), bytes)
}

fn refusal(bytes: &[u8]) -> String {
    let message = open(bytes)
        .expect_err("a hostile file is refused")
        .to_string();
    assert!(message.starts_with("/models/tiny-e5.bin"), "{message}");
    message
}

#[test]
fn a_tiny_model_embeds_unit_vectors_and_long_texts_in_windows() {
    let model = open(&Spec::good().bytes()).unwrap().with_threads(2);
    assert_eq!(model.dim(), H);
    // "Ａ" and "A" normalize to "a"; runs of spaces collapse.
    let ids = model.tokenize("Ａb  ab", Kind::Query);
    assert_eq!(ids, model.tokenize("ab ab", Kind::Query));
    assert_eq!(&ids[ids.len() - 2..], &[7, 7]);
    let long = "ab ".repeat(40);
    assert!(model.tokenize(&long, Kind::Passage).len() > 3 * (POSITIONS - 2));
    for text in ["", "ab", long.as_str(), "\u{0}ab", "ＡＢ ✓ 漢字"] {
        let v = model.embed(text, Kind::Passage);
        let norm: f32 = v.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-4, "{text:?}: norm {norm}");
    }
    // The text ends at its first NUL, as the C engine reads it.
    assert_eq!(
        model.tokenize("ab\0ab", Kind::Query),
        model.tokenize("ab", Kind::Query)
    );
    let batch = model
        .embed_batch(&["ab", long.as_str()], Kind::Query)
        .unwrap();
    assert_eq!(batch[1], model.embed(&long, Kind::Query));
}

#[test]
fn every_truncation_of_the_file_is_refused_naming_it() {
    let bytes = Spec::good().bytes();
    for cut in (0..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
        let message = refusal(&bytes[..cut]);
        assert!(
            message.contains("truncated")
                || message.contains("past the end")
                || message.contains("magic"),
            "cut at {cut}: {message}"
        );
    }
}

#[test]
fn hostile_sizes_offsets_and_tables_are_refused() {
    let with = |change: &dyn Fn(&mut Spec)| {
        let mut spec = Spec::good();
        change(&mut spec);
        refusal(&spec.bytes())
    };
    assert!(with(&|s| s.hidden = 40).contains("header"));
    assert!(with(&|s| s.heads = 0).contains("head count"));
    assert!(with(&|s| s.heads = 3).contains("not a multiple"));
    assert!(with(&|s| s.bos = 8).contains("<s> id"));
    assert!(with(&|s| s.offsets.swap(2, 3)).contains("out of order"));
    assert!(with(&|s| s.offsets[8] = 1 << 30).contains("piece 7"));
    assert!(with(&|s| s.normalization.reverse()).contains("normalization entry 1"));
    assert!(with(&|s| s.normalization[0].1 = vec![0xd800]).contains("not a character"));
    assert!(with(&|s| s.short_tensor = Some("l0.fi.w")).contains("tensor l0.fi.w"));
    assert!(with(&|s| s.offset_shift = 64).contains("past the end"));
    assert!(refusal(b"GGUF and more bytes").contains("E5S1"));
}

#[test]
fn a_file_over_the_limit_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.bin");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(super::MAX_MODEL_BYTES + 1).unwrap();
    let message = E5::open(&path).unwrap_err().to_string();
    assert!(
        message.contains("huge.bin") && message.contains("larger than"),
        "{message}"
    );
    let missing = E5::open(&dir.path().join("missing.bin"))
        .unwrap_err()
        .to_string();
    assert!(missing.contains("missing.bin"), "{missing}");
}

#[test]
fn f16_scales_convert_as_the_c_engine_does() {
    assert_eq!(f16_to_f32(0x3c00), 1.0);
    assert_eq!(f16_to_f32(0xc000), -2.0);
    assert_eq!(f16_to_f32(0x2c00), 0.0625);
    assert_eq!(f16_to_f32(0x0000), 0.0);
    assert!(f16_to_f32(0x7c00).is_infinite());
    // Subnormals come out at half their value, as e5.c's fp16_to_fp32
    // gives them (0x0200 is 2^-15).
    assert_eq!(f16_to_f32(0x0200), 2f32.powi(-16));
}
