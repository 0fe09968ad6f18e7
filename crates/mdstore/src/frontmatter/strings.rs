//! Every string a frontmatter entry holds once YAML has decoded it: escapes
//! (`"\x41"`), escaped line breaks and folding undone, so that the guards see
//! what a reader of the value sees, not only the raw line.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};

/// The decoded strings (keys included, at any depth) of one entry's raw
/// text; empty when the entry is not YAML on its own.
pub(super) fn decoded_strings(raw: &str) -> Vec<String> {
    serde_saphyr::from_str::<Strings>(raw)
        .map(|strings| strings.0)
        .unwrap_or_default()
}

/// The strings of a YAML value, collected depth first.
#[derive(Default)]
struct Strings(Vec<String>);

impl<'de> de::Deserialize<'de> for Strings {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StringsVisitor)
    }
}

struct StringsVisitor;

impl<'de> Visitor<'de> for StringsVisitor {
    type Value = Strings;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Strings, E> {
        Ok(Strings(vec![v.to_string()]))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Strings, E> {
        Ok(Strings(vec![v]))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Strings, E> {
        Ok(Strings::default())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Strings, E> {
        Ok(Strings::default())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Strings, E> {
        Ok(Strings::default())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Strings, E> {
        Ok(Strings::default())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Strings, E> {
        Ok(Strings::default())
    }

    fn visit_none<E: de::Error>(self) -> Result<Strings, E> {
        Ok(Strings::default())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Strings, D::Error> {
        deserializer.deserialize_any(StringsVisitor)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strings, A::Error> {
        let mut all = Vec::new();
        while let Some(Strings(more)) = seq.next_element()? {
            all.extend(more);
        }
        Ok(Strings(all))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strings, A::Error> {
        let mut all = Vec::new();
        while let Some((Strings(key), Strings(value))) = map.next_entry()? {
            all.extend(key);
            all.extend(value);
        }
        Ok(Strings(all))
    }
}
