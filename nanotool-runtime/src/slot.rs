//! Slots (DESIGN §3): kinds, specs, validation of one value, rendering.
//!
//! STUB — being written; the signatures below are the contract.

use serde_json::Value;
use std::path::Path;
use thiserror::Error;

/// The kind of a slot, and so its JSON Schema type.
#[derive(Debug, Clone, PartialEq)]
pub enum SlotKind {
    /// Any string (`{"type":"string"}`).
    String,
    /// A JSON integer (`2.0` counts), rendered in plain decimal.
    Integer,
    /// A JSON number.
    Number,
    /// One of the author's values (skeleton text: may begin with `-`).
    Enum(Vec<String>),
    /// A path confined to the working directory, rendered `./relative`.
    Path,
}

/// One slot's spec: its kind, description, and constraints.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotSpec {
    name: String,
    kind: SlotKind,
    description: String,
    required: bool,
    default: Option<Value>,
    pattern: Option<String>,
    minimum: Option<f64>,
    maximum: Option<f64>,
}

impl SlotSpec {
    /// A required slot of `kind`.
    pub fn new(name: impl Into<String>, kind: SlotKind, description: impl Into<String>) -> Self {
        SlotSpec {
            name: name.into(),
            kind,
            description: description.into(),
            required: true,
            default: None,
            pattern: None,
            minimum: None,
            maximum: None,
        }
    }

    /// The slot's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Why a call's arguments were refused (error 614).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("argument `{slot}`: {reason}")]
pub struct SlotError {
    /// The slot (or argument name) at fault.
    pub slot: String,
    /// Why, and what to write instead.
    pub reason: String,
}

/// Validates one value against a slot spec and returns its rendered text.
pub fn validate(spec: &SlotSpec, value: &Value, root: &Path) -> Result<String, SlotError> {
    let _ = (spec, value, root);
    unimplemented!()
}
