//! Reading JSON for descriptors and MCP frames: a key given twice in one object is refused,
//! and a syntax error says where and what to fix.

use super::DescriptorError;
use serde_json::{Map, Value};
use std::fmt;
use std::path::Path;

/// Parses JSON like `serde_json::from_str::<Value>`, but refuses a key given twice in one
/// object: `serde_json` would keep the last silently, so a reader could check one `command`
/// while another runs. The descriptor loader and the MCP server's framing both read JSON
/// through it.
pub fn parse_json(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde::de::DeserializeSeed::deserialize(UniqueKeys, &mut de)?;
    de.end()?;
    Ok(value)
}

/// A [`Value`] seed that errors on a duplicate object key.
#[derive(Clone, Copy)]
struct UniqueKeys;

impl<'de> serde::de::DeserializeSeed<'de> for UniqueKeys {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for UniqueKeys {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
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
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(self)?;
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format_args!(
                    "the key `{key}` is given twice in one object; keep one"
                )));
            }
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

pub(super) fn json_error(file: &Path, e: &serde_json::Error) -> DescriptorError {
    let full = e.to_string();
    let what = match full.rfind(" at line ") {
        Some(cut) => &full[..cut],
        None => &full,
    };
    let advice = match e.classify() {
        serde_json::error::Category::Eof => {
            "; the file ends too early: close every `{`, `[` and `\"` that is opened"
        }
        serde_json::error::Category::Syntax => {
            "; check for a missing or extra comma, quote, colon or brace there (JSON allows no \
             comments and no trailing commas)"
        }
        _ => "",
    };
    DescriptorError {
        file: file.to_path_buf(),
        message: format!("invalid JSON: {what}{advice}"),
        pointer: None,
        position: (e.line() > 0).then(|| (e.line(), e.column())),
    }
}
