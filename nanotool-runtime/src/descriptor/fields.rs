//! A descriptor's fields: their shape (types, unknown fields with a suggestion, contradictions),
//! each argument read into a [`SlotSpec`], and a [`SpecError`] turned into a 613 error that
//! points at the field at fault. The run settings among the fields, which a host's per-tool
//! entry may set too, are read by `settings`.

use super::settings::{Problem, run_settings};
use super::{ARGUMENT_FIELDS, ARGUMENT_TYPES, DESCRIPTOR_FIELDS, DescriptorError};
use crate::hint;
use crate::kernel::{Access, RunSettings, RunSettingsError};
use crate::slot::{SlotKind, SlotSpec};
use crate::spec::{ExitCodes, SpecError, check_exit_code, is_tool_name};
use crate::template::is_slot_name;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;

/// Turns a [`SpecError`] into a 613 error: a template or policy error points into `command`
/// with a caret line; an error about one argument points at the field at fault.
pub(super) fn spec_error(file: &Path, command: &str, e: &SpecError) -> DescriptorError {
    let arg = |slot: &str, field: &str| {
        if field.is_empty() {
            format!("arguments.{slot}")
        } else {
            format!("arguments.{slot}.{field}")
        }
    };
    let (pointer, mut message) = match e {
        SpecError::Template(t) => return DescriptorError::at(file, "command", t.to_string()),
        SpecError::Policy(_) | SpecError::PolicyVariant { .. } => {
            ("command".to_owned(), e.to_string())
        }
        SpecError::InvalidName { .. } => ("name".to_owned(), e.to_string()),
        SpecError::EmptyDescription { .. } => ("description".to_owned(), e.to_string()),
        SpecError::SlotWithoutSpec { slot, braced, .. } => (
            "arguments".to_owned(),
            if *braced {
                format!(
                    "the command has `{{{slot}}}`, which reads as a slot that `arguments` does not \
                     describe: if it is literal text, write `{{{{{slot}}}}}` (as in Rust's \
                     `format!`, `{{{{` and `}}}}` write a literal brace); if it is a slot, add \
                     \"{slot}\": {{\"type\": \"string\", \"description\": \"...\"}} to `arguments`"
                )
            } else {
                format!(
                    "the command has the slot `<{slot}>` but `arguments` does not describe it: add \
                     \"{slot}\": {{\"type\": \"string\", \"description\": \"...\"}} to `arguments`, or \
                     remove the placeholder"
                )
            },
        ),
        SpecError::SpecWithoutSlot { slot } => (
            arg(slot, ""),
            format!(
                "the command has no `<{slot}>`: add the placeholder to the command where the \
                 value goes, or remove this argument"
            ),
        ),
        SpecError::DuplicateSpec { slot, .. } => (arg(slot, ""), e.to_string()),
        SpecError::EmptySlotDescription { slot, .. } => (arg(slot, "description"), e.to_string()),
        SpecError::EmptyEnum { slot, .. } | SpecError::EnumValue { slot, .. } => {
            (arg(slot, "enum"), e.to_string())
        }
        SpecError::PatternNotForKind { slot, .. } | SpecError::InvalidPattern { slot, .. } => {
            (arg(slot, "pattern"), e.to_string())
        }
        SpecError::RangeNotForKind { slot, .. } | SpecError::InvalidRange { slot, .. } => {
            (arg(slot, "minimum"), e.to_string())
        }
        SpecError::InvalidDefault { slot, .. } => (arg(slot, "default"), e.to_string()),
        SpecError::Settings(settings) => {
            let pointer = match settings {
                RunSettingsError::EnvName { name, .. }
                | RunSettingsError::EnvValue { name, .. } => {
                    format!("env.{name}")
                }
                other => other.field().to_owned(),
            };
            (pointer, e.to_string())
        }
        SpecError::ExitCode(exit) => match exit.code() {
            Some(code) => (format!("exit_codes.{code}"), e.to_string()),
            None => ("exit_codes".to_owned(), e.to_string()),
        },
    };
    if let Some(span) = e.span() {
        message.push('\n');
        message.push_str(&crate::template::caret_line(command, span));
    }
    DescriptorError::at(file, pointer, message)
}

pub(super) fn did_you_mean(word: &str, candidates: &[&str]) -> String {
    let near = hint::closest(word, candidates.iter().copied());
    match hint::did_you_mean(&near[..near.len().min(1)]) {
        Some(hint) => format!("{hint} "),
        None => String::new(),
    }
}

/// A descriptor's fields, checked for shape (types of fields, unknown fields, contradictions);
/// everything about the command and the slots' meaning is left to [`CommandSpec::new`].
pub(super) struct RawDescriptor<'v> {
    pub(super) name: &'v str,
    pub(super) description: &'v str,
    pub(super) command: &'v str,
    pub(super) slots: Vec<SlotSpec>,
    pub(super) access: Access,
    pub(super) settings: RunSettings,
    pub(super) exit_codes: ExitCodes,
}

impl<'v> RawDescriptor<'v> {
    pub(super) fn from_value(
        value: &'v Value,
        cache: &mut PatternCache,
    ) -> Result<Self, Vec<Problem>> {
        let mut problems = Vec::new();
        let Some(object) = value.as_object() else {
            return Err(vec![(
                String::new(),
                format!(
                    "the descriptor is {}, not a JSON object: write \
                     {{\"name\": ..., \"description\": ..., \"command\": ..., \"arguments\": {{...}}}}",
                    hint::json_kind(value)
                ),
            )]);
        };
        for key in object.keys() {
            if !DESCRIPTOR_FIELDS.contains(&key.as_str()) {
                problems.push((
                    key.clone(),
                    format!(
                        "unknown field `{key}`; {}a descriptor has only the fields {}",
                        did_you_mean(key, DESCRIPTOR_FIELDS),
                        hint::backticked(DESCRIPTOR_FIELDS)
                    ),
                ));
            }
        }
        if let Some(schema) = object.get("$schema")
            && !schema.is_string()
        {
            problems.push((
                "$schema".into(),
                format!(
                    "is {}; write the schema's URL as a string",
                    hint::json_kind(schema)
                ),
            ));
        }
        let name = required_str(object, "name", None, &mut problems, "e.g. \"search_text\"");
        if let Some(name) = name
            && !is_tool_name(name)
        {
            problems.push((
                "name".into(),
                format!(
                    "`{name}` is not a valid tool name: use 1 to 64 ASCII letters, digits, `_` \
                         or `-` (e.g. `{}`)",
                    crate::spec::suggest_tool_name(name)
                ),
            ));
        }
        let description = required_str(
            object,
            "description",
            None,
            &mut problems,
            "what the tool does, for the model",
        );
        let command = required_str(
            object,
            "command",
            None,
            &mut problems,
            "the template, e.g. \"grep -rn <pattern> <path>\"",
        );
        let mut flag = |field: &str| match object.get(field) {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                problems.push((
                    field.to_owned(),
                    format!(
                        "is {}; write `true` or `false` (default `false`)",
                        hint::json_kind(other)
                    ),
                ));
                false
            }
        };
        let writes = flag("writes");
        // `network`: `true`, `false`, or `"local"` (a private loopback only).
        let (network, local_network) = match object.get("network") {
            None => (false, false),
            Some(Value::Bool(b)) => (*b, false),
            Some(Value::String(s)) if s == "local" => (false, true),
            Some(other) => {
                problems.push((
                    "network".to_owned(),
                    format!(
                        "is {}; write `true` (TCP and UDP anywhere), `\"local\"` (a private loopback: 127.0.0.1 and ::1 of the call's own) or `false` (default: offline)",
                        hint::json_kind(other)
                    ),
                ));
                (false, false)
            }
        };
        let access = Access {
            writes,
            network,
            local_network,
        };
        let settings = run_settings(object, &mut problems);
        let exit_codes = exit_codes(object, &mut problems);
        let mut slots = Vec::new();
        match object.get("arguments") {
            None => {}
            Some(Value::Object(arguments)) => {
                for (arg, spec) in arguments {
                    let cached = cached_slot(cache, arg, spec);
                    if let Some(slot) = cached {
                        slots.push(slot);
                    } else if let Some(slot) = argument(arg, spec, &mut problems) {
                        remember_slot(cache, arg, spec, &slot);
                        slots.push(slot);
                    }
                }
            }
            Some(other) => problems.push((
                "arguments".into(),
                format!(
                    "is {}; write an object with one entry per slot of the command, e.g. \
                     {{\"path\": {{\"type\": \"path\", \"description\": \"...\"}}}}",
                    hint::json_kind(other)
                ),
            )),
        }
        match (name, description, command) {
            (Some(name), Some(description), Some(command)) if problems.is_empty() => {
                Ok(RawDescriptor {
                    name,
                    description,
                    command,
                    slots,
                    access,
                    settings,
                    exit_codes,
                })
            }
            _ => Err(problems),
        }
    }
}

/// `exit_codes`: an object from exit status (as a string: JSON keys are strings) to what it
/// means, each checked by [`check_exit_code`], the rule the macro's `exit_codes(...)` follows.
fn exit_codes(object: &Map<String, Value>, problems: &mut Vec<Problem>) -> ExitCodes {
    let mut codes = ExitCodes::new();
    let Some(value) = object.get("exit_codes") else {
        return codes;
    };
    let Value::Object(entries) = value else {
        problems.push((
            "exit_codes".into(),
            format!(
                "is {}; write an object from exit status to what it means, e.g. {{\"1\": \"no match\"}}",
                hint::json_kind(value)
            ),
        ));
        return codes;
    };
    if entries.len() > crate::spec::MAX_EXIT_CODES {
        problems.push((
            "exit_codes".into(),
            format!(
                "{} statuses; a tool may declare at most {}",
                entries.len(),
                crate::spec::MAX_EXIT_CODES
            ),
        ));
    }
    for (key, meaning) in entries {
        let at = format!("exit_codes.{key}");
        let code = match key.parse::<i64>() {
            Ok(code) if key.bytes().all(|b| b.is_ascii_digit() || b == b'-') => code,
            _ => {
                problems.push((
                    at,
                    format!(
                        "`{key}` is not an exit status; the keys are whole numbers from 1 to {}, e.g. \"1\": \"no match\"",
                        crate::spec::MAX_DECLARED_EXIT_CODE
                    ),
                ));
                continue;
            }
        };
        let Value::String(meaning) = meaning else {
            problems.push((
                at,
                format!(
                    "is {}; write what the status means as a string, e.g. \"{key}\": \"no match\"",
                    hint::json_kind(meaning)
                ),
            ));
            continue;
        };
        match check_exit_code(code, meaning) {
            Ok(()) => codes = codes.with(code, meaning.as_str()),
            Err(e) => problems.push((at, e.to_string())),
        }
    }
    codes
}

/// A required, non-blank string field: of the descriptor (`argument: None`) or of one
/// argument's object.
pub(super) fn required_str<'v>(
    object: &'v Map<String, Value>,
    field: &str,
    argument: Option<&str>,
    problems: &mut Vec<Problem>,
    example: &str,
) -> Option<&'v str> {
    // The pointer is only written down for a problem: a good file formats nothing.
    let pointer = || match argument {
        Some(name) => format!("arguments.{name}.{field}"),
        None => field.to_owned(),
    };
    match object.get(field) {
        None => {
            problems.push((pointer(), format!("missing; write \"{field}\": {example}")));
            None
        }
        Some(Value::String(s)) if s.trim().is_empty() => {
            problems.push((pointer(), format!("is empty; write {example}")));
            None
        }
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            problems.push((
                pointer(),
                format!("is {}; write a string: {example}", hint::json_kind(other)),
            ));
            None
        }
    }
}

/// Slot specs already built for arguments with a `pattern`, keyed by the argument's name and
/// JSON text (keys sorted, so equal objects give equal text).
#[derive(Debug, Clone, Default)]
pub(super) struct PatternCache(HashMap<String, SlotSpec>);

pub(super) fn cache_key(name: &str, value: &Value) -> Option<String> {
    value.get("pattern")?;
    Some(format!("{name}\u{0}{value}"))
}

pub(super) fn cached_slot(cache: &PatternCache, name: &str, value: &Value) -> Option<SlotSpec> {
    cache.0.get(&cache_key(name, value)?).cloned()
}

pub(super) fn remember_slot(cache: &mut PatternCache, name: &str, value: &Value, slot: &SlotSpec) {
    if let Some(key) = cache_key(name, value) {
        cache.0.insert(key, slot.clone());
    }
}

/// One argument's fields into a [`SlotSpec`], or problems.
pub(super) fn argument(name: &str, value: &Value, problems: &mut Vec<Problem>) -> Option<SlotSpec> {
    let at = |field: &str| format!("arguments.{name}.{field}");
    let before = problems.len();
    if !is_slot_name(name) {
        problems.push((
            format!("arguments.{name}"),
            format!(
                "`{name}` is not a valid argument name: use lowercase ASCII letters, digits and \
                 `_`, not starting with a digit (e.g. `max_count`), the same name as its `<slot>` \
                 in the command"
            ),
        ));
    }
    let Some(object) = value.as_object() else {
        problems.push((
            format!("arguments.{name}"),
            format!(
                "is {}; write an object, e.g. {{\"type\": \"string\", \"description\": \"...\"}}",
                hint::json_kind(value)
            ),
        ));
        return None;
    };
    for key in object.keys() {
        if !ARGUMENT_FIELDS.contains(&key.as_str()) {
            problems.push((
                at(key),
                format!(
                    "unknown field `{key}`; {}an argument has only the fields {}",
                    did_you_mean(key, ARGUMENT_FIELDS),
                    hint::backticked(ARGUMENT_FIELDS)
                ),
            ));
        }
    }
    let description = required_str(
        object,
        "description",
        Some(name),
        problems,
        "what the model should put here",
    );
    let enum_values = match object.get("enum") {
        None => None,
        Some(Value::Array(items)) => {
            let mut values = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) => {
                        if values.contains(s) {
                            problems.push((
                                format!("{}[{i}]", at("enum")),
                                format!("`{s}` is listed twice; list each value once"),
                            ));
                        }
                        values.push(s.clone());
                    }
                    other => problems.push((
                        format!("{}[{i}]", at("enum")),
                        format!(
                            "is {}; enum values are strings (write \"{}\")",
                            hint::json_kind(other),
                            other
                        ),
                    )),
                }
            }
            if items.is_empty() {
                problems.push((
                    at("enum"),
                    "is empty; list the values the model may choose, e.g. [\"-l\", \"-1\"]".into(),
                ));
            }
            Some(values)
        }
        Some(other) => {
            problems.push((
                at("enum"),
                format!(
                    "is {}; write the values as an array of strings, e.g. [\"-l\", \"-1\"]",
                    hint::json_kind(other)
                ),
            ));
            None
        }
    };
    let kind = match object.get("type") {
        None => {
            let hint = if object.contains_key("enum") {
                "\"enum\""
            } else {
                "\"string\" (or \"integer\", \"number\", \"enum\", \"path\")"
            };
            problems.push((at("type"), format!("missing; write \"type\": {hint}")));
            None
        }
        Some(Value::String(t)) => match (t.as_str(), enum_values) {
            ("enum" | "string", Some(values)) => Some(SlotKind::Enum(values)),
            ("enum", None) => {
                if !object.contains_key("enum") {
                    problems.push((
                        at("enum"),
                        "missing: an argument of type `enum` lists its values, e.g. \
                         \"enum\": [\"-l\", \"-1\"]"
                            .into(),
                    ));
                }
                None
            }
            ("string", None) => Some(SlotKind::String),
            ("integer", None) => Some(SlotKind::Integer),
            ("number", None) => Some(SlotKind::Number),
            ("path", None) => Some(SlotKind::Path),
            (other @ ("integer" | "number" | "path"), Some(_)) => {
                problems.push((
                    at("enum"),
                    format!(
                        "an argument of type `{other}` takes no `enum`; write \"type\": \"enum\" \
                         for a choice among strings, or remove `enum`"
                    ),
                ));
                None
            }
            (other, _) => {
                problems.push((
                    at("type"),
                    format!(
                        "unknown type `{other}`; {}write one of {}",
                        did_you_mean(other, ARGUMENT_TYPES),
                        hint::backticked(ARGUMENT_TYPES)
                    ),
                ));
                None
            }
        },
        Some(other) => {
            problems.push((
                at("type"),
                format!(
                    "is {}; write one of {} as a string",
                    hint::json_kind(other),
                    hint::backticked(ARGUMENT_TYPES)
                ),
            ));
            None
        }
    };
    let required = match object.get("required") {
        None => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            problems.push((
                at("required"),
                format!("is {}; write true or false", hint::json_kind(other)),
            ));
            None
        }
    };
    let default = object.get("default");
    if required == Some(true) && default.is_some() {
        problems.push((
            at("required"),
            "`\"required\": true` beside a `\"default\"` is a contradiction: an argument with a \
             default is optional; remove `required`, or remove `default` if the model must \
             always give it"
                .into(),
        ));
    }
    let pattern = match object.get("pattern") {
        None => None,
        Some(Value::String(p)) => {
            if !matches!(kind, Some(SlotKind::String) | None) {
                problems.push((
                    at("pattern"),
                    "only a `string` argument takes a `pattern`; remove it, or write \
                     \"type\": \"string\""
                        .into(),
                ));
            }
            Some(p.as_str())
        }
        Some(other) => {
            problems.push((
                at("pattern"),
                format!(
                    "is {}; write a regex as a string, e.g. \"^\\\\d+$\"",
                    hint::json_kind(other)
                ),
            ));
            None
        }
    };
    let mut bound = |field: &str| -> Option<f64> {
        match object.get(field) {
            None => None,
            Some(Value::Number(n)) => {
                if !matches!(kind, Some(SlotKind::Integer | SlotKind::Number) | None) {
                    problems.push((
                        at(field),
                        format!(
                            "only an `integer` or `number` argument takes `{field}`; remove it"
                        ),
                    ));
                }
                n.as_f64()
            }
            Some(other) => {
                problems.push((
                    at(field),
                    format!("is {}; write a number", hint::json_kind(other)),
                ));
                None
            }
        }
    };
    let minimum = bound("minimum");
    let maximum = bound("maximum");
    if let (Some(lo), Some(hi)) = (minimum, maximum)
        && lo > hi
    {
        problems.push((
            at("minimum"),
            format!("{lo} is above the maximum {hi}; swap them"),
        ));
    }
    if problems.len() > before {
        return None;
    }
    let (kind, description) = (kind?, description?);
    let mut slot = SlotSpec::new(name, kind, description);
    if let Some(default) = default {
        slot = slot.with_default(default.clone());
    } else if required == Some(false) {
        slot = slot.optional();
    }
    if let Some(pattern) = pattern {
        slot = slot.with_pattern(pattern);
    }
    if let Some(minimum) = minimum {
        slot = slot.with_minimum(minimum);
    }
    if let Some(maximum) = maximum {
        slot = slot.with_maximum(maximum);
    }
    Some(slot)
}
