//! Deterministic generation of memory records and the questions they answer.

use mdstore::RecordType;

/// One kind of memory, with `{x}` (a service) or `{p}` (a person) to fill.
pub(super) struct Fact {
    pub kind: RecordType,
    pub name: &'static str,
    pub description: &'static str,
    pub body: &'static str,
    pub tags: &'static str,
    /// Questions answered by the record, each with its kind.
    pub questions: &'static [(&'static str, &'static str)],
}

/// The material of one language.
pub(super) struct Language {
    pub code: &'static str,
    pub subjects: &'static [&'static str],
    pub people: &'static [&'static str],
    /// Sentences that carry nothing, appended to bodies to vary their length.
    pub fillers: &'static [&'static str],
    /// Notes that mention several subjects (`{a}`, `{b}`, `{c}`) or people
    /// (`{p}`, `{q}`) in passing, with the vocabulary of the facts: the
    /// distractors of a real store.
    pub mentions: &'static [&'static str],
    pub facts: &'static [Fact],
}

/// How many passing-mention notes a corpus has, per possible fact record.
const MENTIONS_PER_RECORD: f64 = 0.25;

/// A generated record, with the columns of the index.
#[derive(Clone, Debug)]
pub struct Doc {
    pub id: String,
    pub kind: RecordType,
    pub name: String,
    pub description: String,
    pub tags: String,
    pub body: String,
}

impl Doc {
    /// The columns in index order: id, name, description, tags, body.
    pub fn columns(&self) -> [&str; 5] {
        [
            &self.id,
            &self.name,
            &self.description,
            &self.tags,
            &self.body,
        ]
    }
}

/// A question and the index (in [`Corpus::docs`]) of the record answering it.
#[derive(Clone, Debug)]
pub struct Question {
    pub text: String,
    pub answer: usize,
    /// `overlap`, `forms` or `paraphrase` (see the language modules).
    pub kind: &'static str,
}

/// Records and questions of one language.
#[derive(Clone, Debug)]
pub struct Corpus {
    pub language: &'static str,
    pub docs: Vec<Doc>,
    pub questions: Vec<Question>,
}

/// Generates a corpus: each fact for a random `share` of the subjects (or
/// people), and a question for about two records in three.
pub(super) fn generate(language: &Language, seed: u64, share: f64) -> Corpus {
    let mut rng = SplitMix64(seed);
    let mut docs = Vec::new();
    let mut questions = Vec::new();
    for fact in language.facts {
        let about_people = fact.name.contains("{p}");
        let fillers = if about_people {
            language.people
        } else {
            language.subjects
        };
        for subject in fillers.iter().copied() {
            if rng.f64() >= share {
                continue;
            }
            let fill = |template: &str| template.replace("{x}", subject).replace("{p}", subject);
            let mut body = fill(fact.body);
            for _ in 0..rng.below(3) {
                body.push(' ');
                body.push_str(language.fillers[rng.below(language.fillers.len())]);
            }
            let name = fill(fact.name).to_lowercase();
            if rng.f64() < 0.7 {
                let (text, kind) = fact.questions[rng.below(fact.questions.len())];
                questions.push(Question {
                    text: fill(text),
                    answer: docs.len(),
                    kind,
                });
            }
            docs.push(Doc {
                id: name.clone(),
                kind: fact.kind,
                name,
                description: fill(fact.description),
                tags: fact.tags.to_string(),
                body,
            });
        }
    }
    let mentions = (docs.len() as f64 * MENTIONS_PER_RECORD).round() as usize;
    for i in 0..mentions {
        let mut body = language.mentions[rng.below(language.mentions.len())].to_string();
        for (slot, pool) in [
            ("{a}", language.subjects),
            ("{b}", language.subjects),
            ("{c}", language.subjects),
            ("{p}", language.people),
            ("{q}", language.people),
        ] {
            body = body.replace(slot, pool[rng.below(pool.len())]);
        }
        let name = format!("notes-{i}");
        let description = body
            .split(['.', '。', ':', '：'])
            .next()
            .unwrap_or_default()
            .to_string();
        docs.push(Doc {
            id: name.clone(),
            kind: if i % 2 == 0 {
                RecordType::Project
            } else {
                RecordType::Reference
            },
            name,
            description,
            tags: String::new(),
            body,
        });
    }
    Corpus {
        language: language.code,
        docs,
        questions,
    }
}

/// SplitMix64: a few lines that give the same corpus for a seed on every
/// platform and with every dependency version, which a random-number crate
/// does not promise across its releases.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn f64(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in 0..n (n > 0; the tiny modulo bias does not matter here).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
