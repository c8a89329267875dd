//! The compile-time checks, each through nanotool-runtime's own functions: the template
//! grammar ([`Template::parse`]), the policy ([`policy::check_template`]), the tool-name
//! rule, and pattern regexes. What the macro cannot see (a field's type) becomes a const
//! assertion on [`SlotType`](nanotool_runtime::slot_type::SlotType) in the expansion.

use crate::ast::{Field, Input};
use crate::attr::SlotAttrs;
use crate::ctxt::Ctxt;
use nanotool_runtime::policy::{self, SlotFreedom};
use nanotool_runtime::template::Template;
use std::ops::Range;
use syn::LitStr;

/// A slot standing where its binary takes code, and the policy's words for it.
pub struct CodeEntry {
    /// The slot's name.
    pub slot: String,
    /// The policy's message, with the template and a caret under the slot.
    pub message: String,
    /// A path-typed field may stand there too: the only danger is how a free value is
    /// spelled, and a path is always rendered `./relative` (`less <file>`).
    pub path_ok: bool,
}

/// Two lines: the template and a caret under `span`, drawn by the runtime's own
/// [`caret_line`](nanotool_runtime::template::caret_line).
pub fn caret_line(source: &str, span: Range<usize>) -> String {
    nanotool_runtime::template::caret_line(source, span)
}

fn policy_message(template: &Template, err: &policy::PolicyError) -> String {
    let text = err.to_string();
    match err.span() {
        Some(span) if !text.contains('^') => {
            format!("{text}\n{}", caret_line(template.source(), span))
        }
        _ => text,
    }
}

/// Parses the template with the runtime's parser; an error is spanned at the literal and
/// shows the template with a caret under the offending character.
pub fn template(cx: &mut Ctxt, lit: &LitStr) -> Option<Template> {
    let source = lit.value();
    match Template::parse(&source) {
        Ok(template) => Some(template),
        Err(err) => {
            cx.error_at(lit.span(), err);
            None
        }
    }
}

/// Applies the policy: anything refused whatever the slots' types are is an error at the
/// literal; the slots that stand where code goes are returned for a const assertion
/// (those with a `pattern` pass, as the runtime's [`SlotFreedom`] says).
pub fn policy(
    cx: &mut Ctxt,
    lit: &LitStr,
    template: &Template,
    has_pattern: &dyn Fn(&str) -> bool,
) -> Vec<CodeEntry> {
    // Every slot constrained: what is refused now is refused for any field types.
    if let Err(err) = policy::check_template(template, &|_| SlotFreedom::Constrained, &[]) {
        cx.error_at(lit.span(), policy_message(template, &err));
        return Vec::new();
    }
    let mut entries = Vec::new();
    for site in policy::code_entry_sites(template) {
        let slot = site.slot;
        if has_pattern(&slot) || entries.iter().any(|e: &CodeEntry| e.slot == slot) {
            continue;
        }
        let as_slot = |freedom: SlotFreedom| {
            let slot = slot.clone();
            move |name: &str| {
                if name == slot {
                    freedom
                } else {
                    SlotFreedom::Constrained
                }
            }
        };
        let message = match policy::check_template(template, &as_slot(SlotFreedom::Free), &[]) {
            Err(err) => policy_message(template, &err),
            Ok(()) => continue,
        };
        // The runtime's own answer for a path there (every site of the slot counts).
        let path_ok = policy::check_template(template, &as_slot(SlotFreedom::Path), &[]).is_ok();
        entries.push(CodeEntry {
            slot,
            message,
            path_ok,
        });
    }
    entries
}

/// What the checks found that the expansion needs.
pub struct Checked {
    /// The tool's name (given or derived from the struct).
    pub name: String,
    /// The slots that stand where code goes, for the type assertions.
    pub code_entries: Vec<CodeEntry>,
}

/// Every check of a read `#[command_tool]`: each field's pattern, the tool name, the template
/// grammar, template slots against fields, and the policy.
pub fn check(cx: &mut Ctxt, input: &Input) -> Checked {
    for f in input.fields.iter().flatten() {
        pattern(cx, &f.attrs);
    }
    let name = tool_name(
        cx,
        input.args.as_ref().and_then(|a| a.name.as_ref()),
        &input.item.ident,
    );
    let mut code_entries = Vec::new();
    if let (Some(args), Some(fields)) = (&input.args, &input.fields)
        && let Some(template) = self::template(cx, &args.template)
    {
        slots_match_fields(cx, &args.template, &template, fields);
        let has_pattern = |slot: &str| {
            fields
                .iter()
                .any(|f| f.name == slot && f.attrs.pattern.is_some())
        };
        code_entries = policy(cx, &args.template, &template, &has_pattern);
    }
    Checked { name, code_entries }
}

/// Every template slot has a field and every field a slot.
fn slots_match_fields(cx: &mut Ctxt, lit: &LitStr, template: &Template, fields: &[Field]) {
    let source = template.source();
    for slot in template.slots() {
        if !fields.iter().any(|f| f.name == slot.name()) {
            let name = slot.name();
            let message = if slot.is_braced() {
                format!(
                    "template slot `{name}` has no field: if `{{{name}}}` is literal text, write `{{{{{name}}}}}` (as in Rust's `format!`, `{{{{` and `}}}}` write a literal brace); if it is a slot, add a field `{name}` (with a doc comment) to the struct"
                )
            } else {
                format!(
                    "template slot `{name}` has no field: add a field `{name}` (with a doc comment) to the struct, or remove the placeholder from the template"
                )
            };
            cx.error_at(
                lit.span(),
                format!("{message}\n{}", caret_line(source, slot.span())),
            );
        }
    }
    for f in fields {
        if !template.slot_names().any(|s| s == f.name) {
            cx.error_spanned_by(
                &f.ident,
                format!(
                    "field `{}` is not a slot of the template `{source}`: every field is a slot the model fills; add `<{}>` to the template where its value goes, or remove the field",
                    f.name, f.name
                ),
            );
        }
    }
}

/// The tool name: `name = "..."` or the struct's name in snake_case, checked against
/// `^[A-Za-z0-9_-]{1,64}$`.
pub fn tool_name(cx: &mut Ctxt, given: Option<&LitStr>, ident: &syn::Ident) -> String {
    match given {
        Some(lit) => {
            let name = lit.value();
            if !crate::case::is_tool_name(&name) {
                cx.error_at(
                    lit.span(),
                    format!(
                        "invalid tool name `{name}`: a tool name is 1 to 64 characters of ASCII letters, digits, `_` and `-` (what OpenAI, Anthropic and MCP accept); write e.g. `name = \"{}\"`",
                        nanotool_runtime::spec::suggest_tool_name(&name)
                    ),
                );
            }
            name
        }
        None => {
            let name = crate::case::snake_case(&ident.to_string());
            if !crate::case::is_tool_name(&name) {
                cx.error_spanned_by(
                    ident,
                    format!(
                        "the tool name derived from the struct, `{name}`, is not 1 to 64 ASCII letters, digits, `_` and `-`: give one with `name = \"{}\"`",
                        nanotool_runtime::spec::suggest_tool_name(&name)
                    ),
                );
            }
            name
        }
    }
}

/// Compiles a field's pattern with the runtime's own
/// [`compile_pattern`](nanotool_runtime::slot::compile_pattern), as a descriptor's is.
pub fn pattern(cx: &mut Ctxt, attrs: &SlotAttrs) {
    if let Some(lit) = &attrs.pattern {
        if let Err(err) = nanotool_runtime::slot::compile_pattern(&lit.value()) {
            cx.error_at(
                lit.span(),
                format!("invalid `pattern` regex: {err}\nwrite a regex the `regex` crate accepts, e.g. `pattern = r\"^\\d+(,\\d+)?$\"`"),
            );
        }
    }
}
