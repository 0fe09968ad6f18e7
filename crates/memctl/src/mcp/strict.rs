//! JSON read strictly: an object that names one key twice is refused.
//!
//! serde_json keeps the last of two equal keys without a word, so
//! `{"name": "dupkey", "name": "other"}` writes `other`, while a client
//! that shows its user the first key (for approval) showed `dupkey`: what
//! was approved is not what was done. RFC 8259 leaves duplicate names to
//! the reader; a server that acts on them must not guess.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The longest key a message names; a longer one is cut.
const KEY_SHOWN: usize = 40;

/// Why a message was not read.
#[derive(Debug)]
pub enum StrictError {
    /// Not JSON: serde_json's message (line and column, never the text).
    Syntax(serde_json::Error),
    /// An object names one key twice.
    Duplicate(Duplicate),
}

/// The first key found twice, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duplicate {
    /// The keys of the objects it is inside, outermost first (`params`,
    /// `arguments`); an array's element adds nothing.
    pub path: Vec<String>,
    /// The key as a message may show it (quoted, escaped, cut, or hidden
    /// when it looks like a secret).
    pub key: String,
}

impl fmt::Display for Duplicate {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "the key {} appears twice in one object", self.key)?;
        if !self.path.is_empty() {
            let path: Vec<String> = self.path.iter().map(|k| shown(k)).collect();
            write!(f, " (in {})", path.join(" → "))?;
        }
        Ok(())
    }
}

/// `text` as JSON, or why not.
pub fn parse(text: &[u8]) -> Result<Value, StrictError> {
    let found = RefCell::new(None);
    let mut reader = serde_json::Deserializer::from_slice(text);
    let seed = Seed {
        path: Vec::new(),
        found: &found,
    };
    let parsed = seed.deserialize(&mut reader).and_then(|value| {
        reader.end()?;
        Ok(value)
    });
    match (parsed, found.into_inner()) {
        (_, Some(duplicate)) => Err(StrictError::Duplicate(duplicate)),
        (Ok(value), None) => Ok(value),
        (Err(e), None) => Err(StrictError::Syntax(e)),
    }
}

/// Reads one value at `path`, noting in `found` the first key given twice.
struct Seed<'f> {
    path: Vec<String>,
    found: &'f RefCell<Option<Duplicate>>,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut values = Vec::new();
        loop {
            let seed = Seed {
                path: self.path.clone(),
                found: self.found,
            };
            match seq.next_element_seed(seed)? {
                Some(value) => values.push(value),
                None => return Ok(Value::Array(values)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                let duplicate = Duplicate {
                    path: self.path.clone(),
                    key: shown(&key),
                };
                let message = duplicate.to_string();
                self.found.borrow_mut().get_or_insert(duplicate);
                return Err(de::Error::custom(message));
            }
            let mut path = self.path.clone();
            path.push(key.clone());
            let value = map.next_value_seed(Seed {
                path,
                found: self.found,
            })?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// A key as an error names it: quoted, escaped, cut, and hidden when it
/// looks like a secret (a client may put anything there).
fn shown(key: &str) -> String {
    if let Some(note) = mdstore::guard::secrets::secret_note(key) {
        return note;
    }
    format!("\"{}\"", mdstore::escape::for_message(key, KEY_SHOWN))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_given_twice_is_refused_at_any_depth() {
        for text in [
            r#"{"a":1,"a":2}"#,
            r#"{"params":{"arguments":{"name":"dupkey","name":"other"}}}"#,
            r#"[{"x":[{"k":1,"k":1}]}]"#,
        ] {
            let Err(StrictError::Duplicate(duplicate)) = parse(text.as_bytes()) else {
                panic!("{text} was read");
            };
            assert!(
                duplicate.to_string().contains("appears twice"),
                "{duplicate}"
            );
        }
        let Err(StrictError::Duplicate(duplicate)) =
            parse(br#"{"id":1,"params":{"arguments":{"name":"dupkey","name":"other"}}}"#)
        else {
            panic!("read");
        };
        assert_eq!(duplicate.path, ["params", "arguments"]);
        assert_eq!(
            duplicate.to_string(),
            "the key \"name\" appears twice in one object (in \"params\" → \"arguments\")"
        );
    }

    #[test]
    fn everything_else_reads_as_serde_json_reads_it() {
        for text in [
            r#"{"a":1,"b":[1,2.5,-3,"x",null,true,{"a":{}}],"c":18446744073709551615}"#,
            r#""text""#,
            "[]",
        ] {
            let strict = parse(text.as_bytes()).unwrap();
            let plain: Value = serde_json::from_str(text).unwrap();
            assert_eq!(strict, plain);
        }
        assert!(matches!(parse(b"{\"a\":"), Err(StrictError::Syntax(_))));
        assert!(matches!(parse(b"{} x"), Err(StrictError::Syntax(_))));
    }

    #[test]
    fn a_key_holding_a_secret_or_escapes_is_never_echoed() {
        let text = "{\"ghp_abcdefghijklmnopqrstuvwxyz0123456789\":1,\"ghp_abcdefghijklmnopqrstuvwxyz0123456789\":2}";
        let message = |text: &[u8]| match parse(text) {
            Err(StrictError::Duplicate(duplicate)) => duplicate.to_string(),
            other => panic!("{other:?}"),
        };
        let error = message(text.as_bytes());
        assert!(!error.contains("ghp_abcdef"), "{error}");
        let error = message(b"{\"\\u001b[31m\":1,\"\\u001b[31m\":2}");
        assert!(!error.contains('\u{1b}'), "{error}");
    }
}
