//! Every check of `#[command_tool]`, in one place, each through nanotool-runtime's own
//! functions where the runtime has one: the doc comments (the tool's and each slot's
//! description), the template grammar ([`Template::parse`]), the policy
//! ([`policy::check_template`]), template slots against fields, the tool-name rule, and
//! pattern regexes, the run settings (`timeout`, `max_output`, `env`). What the macro cannot see (a field's type) becomes an [`Assertion`]: a
//! condition on [`SlotType`](nanotool_runtime::code_form::SlotType) and its message, which
//! [`crate::expand`] only writes out as a const item.

use crate::ast::{Field, Input};
use crate::attr::{DefaultValue, Settings, SlotAttrs};
use crate::ctxt::Ctxt;
use nanotool_runtime::kernel;
use nanotool_runtime::policy::{self, SlotFreedom};
use nanotool_runtime::spec::{is_tool_name, suggest_tool_name};
use nanotool_runtime::template::{Template, caret_line};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::LitStr;
use syn::spanned::Spanned;

/// A slot standing where its binary takes code, and the policy's words for it.
struct CodeEntry {
    /// The slot's name.
    slot: String,
    /// The policy's message, with the template and a caret under the slot.
    message: String,
    /// A path-typed field may stand there too: the only danger is how a free value is
    /// spelled, and a path is always rendered `./relative` (`less <file>`).
    path_ok: bool,
}

/// A rule that depends on a field's type, checked by the compiler: the build fails with
/// `message`, pointing at `span`, when `condition` (a const expression over the field type's
/// `SlotType`) is false.
pub struct Assertion {
    /// Where the error points: the field's type, or the setting that does not fit it.
    pub span: Span,
    /// A const `bool` expression.
    pub condition: TokenStream,
    /// What is wrong and what to write instead.
    pub message: String,
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
fn template(cx: &mut Ctxt, lit: &LitStr) -> Option<Template> {
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
fn policy(
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
    /// The type-dependent rules, for the compiler to check.
    pub assertions: Vec<Assertion>,
}

/// Every check of a read `#[command_tool]`: the doc comments, each field's pattern, the tool
/// name, the template grammar, template slots against fields, the policy, then the
/// assertions on the field types.
pub fn check(cx: &mut Ctxt, input: &Input) -> Checked {
    docs(cx, input);
    for f in input.fields.iter().flatten() {
        pattern(cx, &f.attrs);
    }
    let name = tool_name(
        cx,
        input.args.as_ref().and_then(|a| a.name.as_ref()),
        &input.item.ident,
    );
    if let Some(args) = &input.args {
        settings(cx, &args.settings);
    }
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
    let assertions = input
        .fields
        .iter()
        .flatten()
        .flat_map(|f| type_assertions(f, &code_entries))
        .collect();
    Checked { name, assertions }
}

/// The run settings, through the runtime's own checks (the descriptor loader runs the same):
/// a timeout and a cap in range, each variable one a tool may set, each name once.
fn settings(cx: &mut Ctxt, settings: &Settings) {
    if let Some((secs, span)) = settings.timeout {
        // Beyond f64's exact integers a value is far out of range anyway.
        if let Err(e) = kernel::check_timeout_secs(secs as f64) {
            cx.error_at(span, format!("{e}: write `timeout = 900` for 15 minutes"));
        }
    }
    if let Some((bytes, span)) = settings.max_output
        && let Err(e) = kernel::check_max_output(bytes)
    {
        cx.error_at(span, format!("{e}: write `max_output = 65536` for 64 KiB"));
    }
    for (field, value, span) in &settings.limits {
        // Past `u64` a value is far out of range anyway.
        let value = u64::try_from(*value).unwrap_or(u64::MAX);
        if let Err(e) = kernel::check_limit(field, value) {
            cx.error_at(*span, e);
        }
    }
    // What can be known before the machine it runs on: the path's shape. Whether it exists
    // is the runtime's check, when the tool is built (a 613 then).
    for path in &settings.sandbox_read {
        let text = path.value();
        let root = text.trim_end_matches('/').is_empty() && text.starts_with('/');
        if root {
            cx.error_spanned_by(
                path,
                "this is the whole file system: name the folder the tool needs (e.g. `~/.cargo`)",
            );
        } else if !(text.starts_with('/') || text == "~" || text.starts_with("~/")) {
            cx.error_spanned_by(
                path,
                format!("`{text}` is not an absolute path: write it from `/`, or from the home as `~/...` (e.g. `~/.cargo`)"),
            );
        }
    }
    exit_codes(cx, settings);
    if settings.env.len() > kernel::MAX_ENV_VARS {
        cx.error_at(
            settings.env[kernel::MAX_ENV_VARS].0.span(),
            format!(
                "a tool may set at most {} environment variables",
                kernel::MAX_ENV_VARS
            ),
        );
    }
    for (i, (name, value)) in settings.env.iter().enumerate() {
        let text = name.to_string();
        if settings.env[..i].iter().any(|(n, _)| *n == text) {
            cx.error_spanned_by(
                name,
                format!("`{text}` is set twice in `env(...)`: set it once"),
            );
            continue;
        }
        match kernel::check_env(&text, &value.value()) {
            Err(e @ kernel::RunSettingsError::EnvValue { .. }) => cx.error_spanned_by(value, e),
            Err(e) => cx.error_spanned_by(name, e),
            Ok(()) => {}
        }
    }
}

/// `exit_codes(...)`, through the runtime's own check (the descriptor loader runs the same):
/// each status once, from 1 to 123, with a short meaning.
fn exit_codes(cx: &mut Ctxt, settings: &Settings) {
    let codes = &settings.exit_codes;
    if codes.len() > nanotool_runtime::spec::MAX_EXIT_CODES {
        cx.error_at(
            codes[nanotool_runtime::spec::MAX_EXIT_CODES].1.span(),
            format!(
                "a tool may declare at most {} exit statuses that are not failures",
                nanotool_runtime::spec::MAX_EXIT_CODES
            ),
        );
    }
    for (i, (code, literal, meaning)) in codes.iter().enumerate() {
        if codes[..i].iter().any(|(c, _, _)| c == code) {
            cx.error_spanned_by(
                literal,
                format!(
                    "exit status {code} is declared twice in `exit_codes(...)`: declare it once"
                ),
            );
            continue;
        }
        match nanotool_runtime::spec::check_exit_code(*code, &meaning.value()) {
            Err(e @ nanotool_runtime::spec::ExitCodeError::Meaning { .. }) => {
                cx.error_spanned_by(meaning, e)
            }
            Err(e) => cx.error_spanned_by(literal, e),
            Ok(()) => {}
        }
    }
}

/// The struct's doc comment is the tool's description and each field's the slot's: the model
/// needs both, so a missing one is an error.
fn docs(cx: &mut Ctxt, input: &Input) {
    if input.description.is_none() {
        cx.error_spanned_by(
            &input.item.ident,
            format!(
                "struct `{}` has no doc comment: it is the tool's description, and the model needs it to choose the tool; write `/// What the tool does` above the struct",
                input.item.ident
            ),
        );
    }
    for f in input.fields.iter().flatten() {
        if f.doc.is_none() {
            let name = &f.name;
            cx.error_spanned_by(
                &f.ident,
                format!(
                    "field `{name}` has no doc comment: it is the slot's description, and the model needs it to fill the slot; write `/// What {name} is` above the field"
                ),
            );
        }
    }
}

/// The rules on one field that depend on its type: a slot where code goes must have a type
/// that cannot carry code; a default, a `pattern` and bounds must fit the type's slot kind.
fn type_assertions(f: &Field, code_entries: &[CodeEntry]) -> Vec<Assertion> {
    let p = crate::private::path();
    let ty = &f.ty;
    let name = &f.name;
    let mut out = Vec::new();
    if let Some(entry) = code_entries.iter().find(|e| &e.slot == name) {
        let (condition, path) = if entry.path_ok {
            (
                quote!(!matches!(<#ty as #p::SlotType>::FREEDOM, #p::SlotFreedom::Free)),
                " or `WorkPath` (a path is always rendered `./relative`)",
            )
        } else {
            (
                quote!(matches!(<#ty as #p::SlotType>::FREEDOM, #p::SlotFreedom::Constrained)),
                "",
            )
        };
        out.push(Assertion {
            span: ty.span(),
            condition,
            message: format!(
                "slot `{name}` stands where the command takes code, and the type of field `{name}` can carry any text:\n{}\nin Rust: fix the code in the template, or give field `{name}` an integer type, `f64`, a #[derive(SlotEnum)] enum{path}, or a `String` with #[slot(pattern = \"...\")] whose regex admits no code",
                entry.message
            ),
        });
    }
    let default = match &f.attrs.default {
        Some(DefaultValue::Str(lit)) => Some(("takes_string_default", "a string", lit.span())),
        Some(DefaultValue::Int(_, span)) => Some(("takes_integer_default", "an integer", *span)),
        Some(DefaultValue::Float(_, span)) => Some(("takes_float_default", "a float", *span)),
        // A typed expression is converted through the field's own `SlotType`.
        Some(DefaultValue::Expr(_)) | None => None,
    };
    if let Some((class_check, what, span)) = default {
        let check = format_ident!("{}", class_check);
        out.push(Assertion {
            span,
            condition: quote!(<#ty as #p::SlotType>::CLASS.#check()),
            message: format!(
                "field `{name}`: the default is {what}, which does not fit this field's slot kind; write a default of the field's kind (a string for a `String`, `WorkPath` or enum value, an integer for an integer, a number for `f64`), or a value of the field's type such as `Mode::Long`"
            ),
        });
    }
    if let Some(pattern) = &f.attrs.pattern {
        out.push(Assertion {
            span: pattern.span(),
            condition: quote!(<#ty as #p::SlotType>::CLASS.takes_pattern()),
            message: format!(
                "field `{name}`: `pattern` applies to a `String` slot only; remove it, or make the field a `String` (an integer or enum is already constrained, a path is checked by confinement)"
            ),
        });
    }
    for (bound, key) in [(&f.attrs.minimum, "minimum"), (&f.attrs.maximum, "maximum")] {
        if let Some(bound) = bound {
            out.push(Assertion {
                span: bound.span,
                condition: quote!(<#ty as #p::SlotType>::CLASS.takes_bounds()),
                message: format!(
                    "field `{name}`: `{key}` applies to an integer or number slot only; remove it, or give the field an integer type or `f64`"
                ),
            });
        }
    }
    out
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
fn tool_name(cx: &mut Ctxt, given: Option<&LitStr>, ident: &syn::Ident) -> String {
    match given {
        Some(lit) => {
            let name = lit.value();
            if !is_tool_name(&name) {
                cx.error_at(
                    lit.span(),
                    format!(
                        "invalid tool name `{name}`: a tool name is 1 to 64 characters of ASCII letters, digits, `_` and `-` (what OpenAI, Anthropic and MCP accept); write e.g. `name = \"{}\"`",
                        suggest_tool_name(&name)
                    ),
                );
            }
            name
        }
        None => {
            let name = crate::case::snake_case(&ident.to_string());
            if !is_tool_name(&name) {
                cx.error_spanned_by(
                    ident,
                    format!(
                        "the tool name derived from the struct, `{name}`, is not 1 to 64 ASCII letters, digits, `_` and `-`: give one with `name = \"{}\"`",
                        suggest_tool_name(&name)
                    ),
                );
            }
            name
        }
    }
}

/// Compiles a field's pattern with the runtime's own
/// [`compile_pattern`](nanotool_runtime::slot::compile_pattern), as a descriptor's is.
fn pattern(cx: &mut Ctxt, attrs: &SlotAttrs) {
    if let Some(lit) = &attrs.pattern
        && let Err(err) = nanotool_runtime::slot::compile_pattern(&lit.value())
    {
        cx.error_at(
                lit.span(),
                format!("invalid `pattern` regex: {err}\nwrite a regex the `regex` crate accepts, e.g. `pattern = r\"^\\d+(,\\d+)?$\"`"),
            );
    }
}
