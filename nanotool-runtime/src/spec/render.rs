//! [`CommandSpec::render`]: a call's arguments to argv, in named stages, each a function:
//! the arguments object, unknown arguments, the values in template order, option injection,
//! path confinement, then the argv. This is the one validator every form goes through.

use super::{Argv, CommandSpec};
use crate::hint;
use crate::slot::{SlotError, SlotKind, SlotSpec, Typed};
use crate::template::{Fill, Part};
use serde_json::{Map, Value};
use std::path::Path;

impl CommandSpec {
    /// Validates `args` and renders the argv; paths are confined to `root` (the kernel's
    /// working directory). This is the one validator every form goes through.
    ///
    /// The checks run in this order, each over every slot (in template order) before the
    /// next: the arguments are a JSON object; unknown argument; missing required (`null`
    /// counts as missing for a required slot, and as absent for an optional one); wrong type;
    /// out of enum, range or pattern; then on the rendered values: forbidden characters (see
    /// [`crate::slot::is_forbidden_char`]: only characters that mislead a reader; spaces,
    /// quotes and `;|&$<>` are one argv element's text), a token beginning with `-` that the
    /// author's text (the template's literal text or an enum value) does not begin — unless
    /// the binary cannot read that token as an option in the command this call makes (the
    /// separate value of a literal option, a data operand after `--`:
    /// [`crate::policy::not_option_tokens`]) or the slot is a number whose minimum is
    /// negative —, a path beginning with `-`, path confinement (an absolute path inside the
    /// working directory is rendered relative; of each path value, and of the whole argument when a path
    /// slot shares its token with other text: `<path>.txt` and `<path><ext>` name the file
    /// the command opens, so that argument may hold no `..` and must resolve inside the
    /// working directory too; an option prefix such as `--file=` or `-o` is not part of the
    /// path). The first failure is returned. An absent optional slot without
    /// a default drops its whole token; every literal part is kept as written. Arguments that
    /// are not a JSON object are refused with an error whose [`SlotError::slot`] is `""`.
    pub fn render(&self, args: &Value, root: &Path) -> Result<Argv, SlotError> {
        let object = self.arguments_object(args)?;
        self.check_unknown(object)?;
        let values = self.values_in_template_order(object)?;
        self.check_option_injection(&values)?;
        let finals = self.confine_paths(values, root)?;
        Ok(Argv(self.template.render(|name| value_of(&finals, name))))
    }

    /// Stage 1: the arguments must be a JSON object of named arguments.
    fn arguments_object<'a>(&self, args: &'a Value) -> Result<&'a Map<String, Value>, SlotError> {
        match args {
            Value::Object(object) => Ok(object),
            other => Err(SlotError::new(
                "",
                format!(
                    "expected a JSON object of named arguments, got {}; write e.g. `{}`",
                    match other {
                        Value::Null => "`null`",
                        other => hint::json_kind(other),
                    },
                    self.example_call()
                ),
            )),
        }
    }

    /// Stage 2: every argument names a slot (the closest unused one is suggested).
    fn check_unknown(&self, object: &Map<String, Value>) -> Result<(), SlotError> {
        if let Some(key) = object.keys().find(|k| self.slot(k).is_none()) {
            let reason = if self.slots.is_empty() {
                "unknown argument: this tool takes no arguments; send `{}`".to_owned()
            } else {
                let near = hint::closest(
                    key,
                    self.slots
                        .iter()
                        .map(SlotSpec::name)
                        .filter(|name| !object.contains_key(*name)),
                );
                let names: Vec<&str> = self.slots.iter().map(SlotSpec::name).collect();
                format!(
                    "unknown argument: this tool takes only {}{}",
                    hint::backticked(&names),
                    hint::did_you_mean(&near[..near.len().min(1)])
                        .map(|hint| format!("; {hint}"))
                        .unwrap_or_default()
                )
            };
            return Err(SlotError::new(crate::slot::shown(key), reason));
        }
        Ok(())
    }

    /// Stage 3: each slot's value, in template order: present when required, of its type,
    /// within its enum, range or pattern, free of forbidden characters, rendered to text
    /// (`None` for a slot left out without a default).
    fn values_in_template_order<'s>(
        &'s self,
        object: &Map<String, Value>,
    ) -> Result<Vec<(&'s SlotSpec, Option<String>)>, SlotError> {
        // The slots in template order (every slot has a spec and every spec a slot).
        let ordered: Vec<&SlotSpec> = self
            .template
            .slot_names()
            .filter_map(|n| self.slot(n))
            .collect();

        // Missing required.
        for spec in &ordered {
            let given = object.get(spec.name()).filter(|v| !v.is_null());
            if spec.is_required() && given.is_none() {
                return Err(spec.error(format!(
                    "missing: this argument is required ({}); add `\"{}\": {}`",
                    spec.description(),
                    spec.name(),
                    placeholder_value(spec.kind())
                )));
            }
        }

        // Wrong type.
        let mut typed: Vec<(&SlotSpec, Option<Typed>)> = Vec::with_capacity(ordered.len());
        for spec in &ordered {
            let value = object
                .get(spec.name())
                .filter(|v| !v.is_null())
                .or(spec.default());
            let t = value.map(|v| spec.check_type(v)).transpose()?;
            typed.push((spec, t));
        }

        // Out of enum, range or pattern.
        for (spec, t) in &typed {
            if let Some(t) = t {
                spec.check_constraints(t)?;
            }
        }

        // Forbidden characters in the rendered values.
        let mut texts: Vec<(&SlotSpec, Option<String>)> = Vec::with_capacity(typed.len());
        for (spec, t) in typed {
            let text = t.map(|t| t.render());
            if let Some(text) = &text {
                spec.check_chars(text)?;
            }
            texts.push((spec, text));
        }
        Ok(texts)
    }

    /// Stage 4: no value smuggles in an option: a token may begin with `-` only where the
    /// author's text begins it or the template has made a leading `-` harmless, and a path
    /// never begins with `-`.
    fn check_option_injection(
        &self,
        texts: &[(&SlotSpec, Option<String>)],
    ) -> Result<(), SlotError> {
        // What each slot renders to: a path's lexical form (it always begins with `.`; a path
        // that has none is refused by the confinement check below).
        let rendered_for_tokens: Vec<(&str, Option<String>)> = texts
            .iter()
            .map(|(spec, text)| {
                let shown = text.as_ref().map(|text| {
                    if spec.kind() == &SlotKind::Path {
                        spec.lexical_path(text)
                            .map(|c| crate::slot::render_components(&c))
                            .unwrap_or_else(|_| "./".to_owned())
                    } else {
                        text.clone()
                    }
                });
                (spec.name(), shown)
            })
            .collect();
        let lookup = |name: &str| value_of(&rendered_for_tokens, name);

        // A token may begin with `-` only if the author's text begins it: the template's
        // literal text, or an enum value (skeleton too). What counts is the first non-empty
        // piece of the rendered token, so `<a><b>` with `a` empty and `b` = `-x` is refused,
        // while `<a>-x` with `a` empty renders the author's own `-x`. Where the template has
        // already made a leading `-` harmless, a value may begin with it: an integer or number
        // whose author-set minimum is negative, and a token the binary cannot read as an
        // option in the command this call makes (the value of a literal option that takes
        // one, `-e <pattern>`; a data operand after a literal `--`).
        let mut not_options: Option<Vec<usize>> = None;
        for (at, token) in self.template.args().iter().enumerate() {
            let Some(text) = token.render(lookup) else {
                continue;
            };
            if !text.starts_with('-') {
                continue;
            }
            let leader = token.parts().iter().find_map(|part| match part {
                Part::Literal(text) if !text.is_empty() => Some(None),
                Part::Literal(_) => None,
                Part::Slot(slot) => lookup(slot.name())
                    .is_some_and(|t| !t.is_empty())
                    .then_some(Some(slot.name())),
            });
            let Some(Some(culprit)) = leader else {
                continue;
            };
            let Some(spec) = self.slot(culprit) else {
                continue;
            };
            if matches!(spec.kind(), SlotKind::Enum(_)) || negative_allowed(spec) {
                continue;
            }
            let free = not_options.get_or_insert_with(|| {
                let texts = &texts;
                self.not_option_tokens(&move |name: &str| match texts
                    .iter()
                    .find(|(spec, _)| spec.name() == name)
                {
                    Some((_, None)) => Fill::Drop,
                    Some((spec, Some(value))) if matches!(spec.kind(), SlotKind::Enum(_)) => {
                        Fill::Text(value.as_str())
                    }
                    _ => Fill::Slot,
                })
            });
            if free.contains(&(at + 1)) {
                continue;
            }
            return Err(SlotError::new(
                culprit,
                format!(
                    "the argument would be `{}`, which begins with `-` and would be read as an \
                     option; a value here may not begin with `-`. Drop the leading `-` if what \
                     you need is still found without it (in a regular expression `[-]` matches \
                     a dash, but a fixed-string search would look for the text `[-]`); a value \
                     may begin with `-` only where the tool's template reads it as an option's \
                     value (`-e <pattern>`) or puts `--` before it",
                    crate::slot::shown(&text)
                ),
            ));
        }

        // A path may not begin with `-`.
        for (spec, text) in texts {
            if let (SlotKind::Path, Some(text)) = (spec.kind(), text) {
                spec.check_path_dash(text)?;
            }
        }
        Ok(())
    }

    /// Stage 5: every path stays inside `root`, alone in its token and as the whole token it
    /// shares with literal text or other slots; returns each slot's final text.
    fn confine_paths<'s>(
        &'s self,
        texts: Vec<(&'s SlotSpec, Option<String>)>,
        root: &Path,
    ) -> Result<Vec<(&'s str, Option<String>)>, SlotError> {
        // Path confinement.
        let mut finals: Vec<(&str, Option<String>)> = Vec::with_capacity(texts.len());
        for (spec, text) in texts {
            let text = match (spec.kind(), text) {
                (SlotKind::Path, Some(text)) => Some(spec.confine_path(&text, root)?),
                (_, text) => text,
            };
            finals.push((spec.name(), text));
        }
        let value = |name: &str| value_of(&finals, name);

        // A path slot that shares its token (`<path>.txt`, `<path><ext>`, `logs/<path>`): the
        // command opens the whole argument, so the whole argument is confined too.
        for token in self.template.args() {
            if token.parts().len() < 2 {
                continue;
            }
            let Some(spec) = token
                .slots()
                .filter_map(|s| self.slot(s.name()))
                .find(|s| s.kind() == &SlotKind::Path)
            else {
                continue;
            };
            let Some(text) = token.render(value) else {
                continue;
            };
            let path = strip_option(token.literal_prefix(), &text);
            if Path::new(path)
                .components()
                .any(|c| c == std::path::Component::ParentDir)
            {
                return Err(spec.error(format!(
                    "the argument would be `{}`, whose `..` could lead outside the working \
                     directory; write the whole path in this argument without `..`",
                    crate::slot::shown(&text)
                )));
            }
            spec.confine_path(path, root)?;
        }
        Ok(finals)
    }

    /// A call that would pass the type checks, for error messages.
    fn example_call(&self) -> String {
        let fields: Vec<String> = self
            .template
            .slot_names()
            .filter_map(|n| self.slot(n))
            .filter(|s| s.is_required())
            .map(|s| format!("\"{}\": {}", s.name(), placeholder_value(s.kind())))
            .collect();
        format!("{{{}}}", fields.join(", "))
    }
}

/// The text of the slot `name` among `(name, text)` pairs; `None` when it is left out.
fn value_of<'a>(finals: &'a [(&str, Option<String>)], name: &str) -> Option<&'a str> {
    finals
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, t)| t.as_deref())
}

/// Whether a slot's value may begin with `-` wherever it stands: an integer or number slot
/// whose author-set `minimum` is negative (`--days <days>` with `-7`; in the code form, a
/// signed field type). A negative number is what the author asked for.
pub(super) fn negative_allowed(spec: &SlotSpec) -> bool {
    matches!(spec.kind(), SlotKind::Integer | SlotKind::Number)
        && spec.minimum().is_some_and(|min| min < 0.0)
}

fn placeholder_value(kind: &SlotKind) -> String {
    match kind {
        SlotKind::String => "\"...\"".into(),
        SlotKind::Integer => "1".into(),
        SlotKind::Number => "1.5".into(),
        SlotKind::Enum(values) => format!(
            "\"{}\"",
            values.first().map(String::as_str).unwrap_or_default()
        ),
        SlotKind::Path => "\"src/main.rs\"".into(),
    }
}

/// The path part of a rendered token: the token without the option that the template's
/// literal prefix begins (`--file=./x` → `./x`, `-o./x` → `./x`).
fn strip_option<'t>(literal_prefix: &str, text: &'t str) -> &'t str {
    if !literal_prefix.starts_with('-') {
        return text;
    }
    match literal_prefix.find('=') {
        Some(eq) => &text[eq + 1..],
        None => &text[literal_prefix.len()..],
    }
}
