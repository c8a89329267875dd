//! [`CommandSpec`]: a parsed template plus its slot specs (DESIGN §3).
//!
//! STUB — being written; the signatures below are the contract.

use crate::policy::PolicyError;
use crate::slot::{SlotError, SlotSpec};
use crate::template::{Template, TemplateError};
use serde_json::Value;
use std::path::Path;
use thiserror::Error;

/// A rendered argv: the binary as written, then one element per token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Argv(pub Vec<String>);

/// A template whose every slot has a spec, checked against the policy.
#[derive(Debug, Clone)]
pub struct CommandSpec {
    name: String,
    description: String,
    template: Template,
    slots: Vec<SlotSpec>,
}

/// Why a [`CommandSpec`] could not be built.
#[derive(Debug, Clone, Error)]
pub enum SpecError {
    /// The template does not parse.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// The policy refuses the template.
    #[error(transparent)]
    Policy(#[from] PolicyError),
}

impl CommandSpec {
    /// Builds a spec: parses the template, checks the policy, matches slots to specs.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        template: &str,
        slots: Vec<SlotSpec>,
    ) -> Result<Self, SpecError> {
        let _ = (name.into(), description.into(), template, slots);
        unimplemented!()
    }

    /// The JSON Schema of the arguments.
    pub fn json_schema(&self) -> Value {
        unimplemented!()
    }

    /// Validates `args` and renders the argv; paths are confined to `root`.
    pub fn render(&self, args: &Value, root: &Path) -> Result<Argv, SlotError> {
        let _ = (
            args,
            root,
            &self.name,
            &self.description,
            &self.template,
            &self.slots,
        );
        unimplemented!()
    }
}
