//! Parsing of the macro's arguments (`"TEMPLATE", name = "...", writes, network` or
//! `network = "local"`, `timeout = 900, max_output = 65536, env(NAME = "value")`,
//! `sandbox_read("~/.cargo")`, `exit_codes(1 = "no match")`, the limits `memory = "8G"`, `file_size`, `open_files`,
//! `cpu_time`, `processes`), of `#[slot(...)]` field and variant attributes, and of doc comments. Every
//! problem goes to the [`Ctxt`]; nothing here panics.

use crate::ctxt::Ctxt;
use nanotool_runtime::kernel::Access;
use proc_macro2::{Span, TokenStream};
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, ExprUnary, Lit, LitStr, UnOp};

/// The arguments of `#[command_tool(...)]`.
pub struct ToolArgs {
    /// The template literal.
    pub template: LitStr,
    /// `name = "..."`, if given.
    pub name: Option<LitStr>,
    /// What the tool's commands may do beyond reading the workspace: the `writes` flag (write
    /// inside it) and the `network` flag (use TCP and UDP) or `network = "local"` (a private
    /// loopback only), as the runtime's [`Access`].
    pub access: Access,
    /// The run settings: `timeout = SECONDS`, `max_output = BYTES`, `env(NAME = "value")`.
    pub settings: Settings,
}

/// The attribute's run settings as written (checked by `check.rs` through the runtime).
#[derive(Default)]
pub struct Settings {
    /// `timeout = SECONDS`: the value and the literal.
    pub timeout: Option<(u128, Span)>,
    /// `max_output = BYTES`: the value and the literal.
    pub max_output: Option<(u128, Span)>,
    /// `env(NAME = "value", ...)`: each name (its identifier) and value.
    pub env: Vec<(syn::Ident, LitStr)>,
    /// The resource limits: `memory = "8G"`, `file_size = "100M"` (a size literal, or a whole
    /// number of bytes), `open_files = 4096`, `cpu_time = SECONDS`, `processes = 64`; by name,
    /// the value and the literal.
    pub limits: Vec<(&'static str, u128, Span)>,
    /// `sandbox_read("~/.cargo", "/opt/sdk")`: paths this tool's commands may also read.
    pub sandbox_read: Vec<LitStr>,
    /// `exit_codes(1 = "no match")`: exit statuses that are not failures, each with its
    /// meaning (the status's value, its literal, and the meaning).
    pub exit_codes: Vec<(i64, syn::LitInt, LitStr)>,
}

/// The resource limits the attribute takes, and whether each is a size (`"8G"` allowed).
const LIMITS: &[(&str, bool)] = &[
    ("memory", true),
    ("file_size", true),
    ("open_files", false),
    ("cpu_time", false),
    ("processes", false),
];

/// A limit's value: a whole number literal, or for a size a string such as `"8G"`.
fn limit_value(key: &syn::Ident, sized: bool, value: &Expr) -> Result<(u128, Span), syn::Error> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) if sized => nanotool_runtime::kernel::parse_size(&s.value())
            .map(|n| (u128::from(n), s.span()))
            .map_err(|e| syn::Error::new(s.span(), format!("`{key}`: {e}"))),
        Expr::Lit(ExprLit {
            lit: Lit::Int(_), ..
        }) => whole_number(key, value),
        other => Err(syn::Error::new_spanned(
            other,
            if sized {
                format!("`{key}` takes a size: write `{key} = \"8G\"` or a whole number of bytes")
            } else {
                format!("`{key}` takes a whole number literal: write `{key} = 4096`")
            },
        )),
    }
}

/// The inside of `sandbox_read("~/.cargo", ...)`.
fn path_list(input: ParseStream) -> syn::Result<Vec<LitStr>> {
    let content;
    syn::parenthesized!(content in input);
    let paths = content.parse_terminated(
        |p: ParseStream| {
            p.parse::<LitStr>().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "each path is a string literal: write `sandbox_read(\"~/.cargo\", \"/opt/sdk\")`",
                )
            })
        },
        syn::Token![,],
    )?;
    Ok(paths.into_iter().collect())
}

const TOOL_ARGS_HELP: &str = "write `#[command_tool(\"grep -rn <pattern> <path>\")]`, optionally followed by `, name = \"search\"`, `, writes`, `, network` (or `, network = \"local\"`), `, timeout = SECONDS`, `, max_output = BYTES`, `, env(NAME = \"value\")`, `, sandbox_read(\"~/.cargo\")`, `, exit_codes(1 = \"no match\")` and the limits `, memory = \"8G\"`, `, file_size = \"100M\"`, `, open_files = N`, `, cpu_time = SECONDS`, `, processes = N`";

/// A whole number literal (`900`, `65_536`), for a setting.
fn whole_number(key: &syn::Ident, value: &Expr) -> Result<(u128, Span), syn::Error> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i
            .base10_parse::<u128>()
            .map(|v| (v, i.span()))
            .map_err(|e| syn::Error::new(i.span(), format!("`{key}`: {e}"))),
        other => Err(syn::Error::new_spanned(
            other,
            format!(
                "`{key}` takes a whole number literal: write `{key} = {}`",
                if key == "timeout" { "900" } else { "65536" }
            ),
        )),
    }
}

/// The inside of `env(NAME = "value", ...)`.
fn env_pairs(input: ParseStream) -> syn::Result<Vec<(syn::Ident, LitStr)>> {
    let content;
    syn::parenthesized!(content in input);
    let mut pairs = Vec::new();
    while !content.is_empty() {
        let name: syn::Ident = content.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected a variable name: write `env(RUST_BACKTRACE = \"1\")`",
            )
        })?;
        content.parse::<syn::Token![=]>().map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("expected `=` after `{name}`: write `env({name} = \"value\")`"),
            )
        })?;
        let value: LitStr = content.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("the value of `{name}` must be a string literal: write `env({name} = \"value\")`"),
            )
        })?;
        pairs.push((name, value));
        if content.is_empty() {
            break;
        }
        content.parse::<syn::Token![,]>()?;
    }
    Ok(pairs)
}

/// The inside of `exit_codes(1 = "no match", ...)`.
fn exit_code_pairs(input: ParseStream) -> syn::Result<Vec<(i64, syn::LitInt, LitStr)>> {
    const HELP: &str = "write `exit_codes(1 = \"no match\")`: each exit status that is not a failure, `=`, and what it means";
    let content;
    syn::parenthesized!(content in input);
    let mut pairs = Vec::new();
    while !content.is_empty() {
        let code: syn::LitInt = content.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("expected an exit status (a whole number): {HELP}"),
            )
        })?;
        let value = code.base10_parse::<i64>().map_err(|e| {
            syn::Error::new(code.span(), format!("exit status `{code}`: {e}: {HELP}"))
        })?;
        content.parse::<syn::Token![=]>().map_err(|e| {
            syn::Error::new(
                e.span(),
                format!(
                    "expected `=` after `{code}`: write `exit_codes({code} = \"what it means\")`"
                ),
            )
        })?;
        let meaning: LitStr = content.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("the meaning of exit status {code} must be a string literal: write `exit_codes({code} = \"no match\")`"),
            )
        })?;
        pairs.push((value, code, meaning));
        if content.is_empty() {
            break;
        }
        content.parse::<syn::Token![,]>()?;
    }
    Ok(pairs)
}

/// Parses the attribute's arguments; `None` when there is no template to check.
pub fn tool_args(cx: &mut Ctxt, args: TokenStream) -> Option<ToolArgs> {
    let parser = |input: ParseStream| {
        if input.is_empty() {
            return Err(input.error(format!(
                "#[command_tool] needs the command template as its first argument: {TOOL_ARGS_HELP}"
            )));
        }
        let template: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("the first argument of #[command_tool] must be the template as a string literal: {TOOL_ARGS_HELP}"),
            )
        })?;
        let mut name: Option<LitStr> = None;
        let mut access = Access::READ_ONLY;
        let mut settings = Settings::default();
        let mut errors: Vec<syn::Error> = Vec::new();
        while !input.is_empty() {
            input.parse::<syn::Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: syn::Ident = input.parse().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    format!("expected `name = \"...\"`, `writes`, `network`, `timeout = SECONDS`, `max_output = BYTES` or `env(...)`: {TOOL_ARGS_HELP}"),
                )
            })?;
            // The profile flags stand alone: what the tool's commands may do beyond reading
            // the workspace.
            // `network = "local"`: a private loopback only (the descriptor's `"network":
            // "local"`), the one value a profile flag takes.
            if key == "network" && input.peek(syn::Token![=]) {
                input.parse::<syn::Token![=]>()?;
                let value: Expr = input.parse()?;
                match &value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) if s.value() == "local" => {
                        if access.network || access.local_network {
                            errors.push(syn::Error::new(
                                key.span(),
                                "duplicate `network`: give it once, as `network` (TCP and UDP anywhere) or `network = \"local\"` (a private loopback only)",
                            ));
                        }
                        access.local_network = true;
                    }
                    Expr::Lit(ExprLit {
                        lit: Lit::Bool(b), ..
                    }) => errors.push(syn::Error::new_spanned(
                        b,
                        format!(
                            "`network` takes no `true` or `false`: write `, network` for TCP and UDP anywhere, `, network = \"local\"` for a private loopback only, or leave it out (offline){}",
                            if b.value { "" } else { "; `false` is the default" }
                        ),
                    )),
                    other => errors.push(syn::Error::new_spanned(
                        other,
                        "`network` takes one value, `\"local\"` (a private loopback: 127.0.0.1 and ::1 of the call's own): write `, network = \"local\"`, or `, network` alone for TCP and UDP anywhere",
                    )),
                }
                continue;
            }
            if key == "writes" || key == "network" {
                if input.peek(syn::Token![=]) {
                    errors.push(syn::Error::new(
                        key.span(),
                        format!("`{key}` is a flag and takes no value: write `, {key}` (leave it out for `false`)"),
                    ));
                    input.parse::<syn::Token![=]>()?;
                    input.parse::<Expr>()?;
                    continue;
                }
                let twice = key == "network" && access.local_network;
                let flag = if key == "writes" {
                    &mut access.writes
                } else {
                    &mut access.network
                };
                if *flag || twice {
                    errors.push(syn::Error::new(
                        key.span(),
                        format!("duplicate `{key}`: give it once"),
                    ));
                }
                *flag = true;
                continue;
            }
            if key == "env" {
                if !input.peek(syn::token::Paren) {
                    errors.push(syn::Error::new(
                        key.span(),
                        "`env` lists the variables in parentheses: write `env(RUST_BACKTRACE = \"1\", PYTHONPATH = \"src\")`",
                    ));
                    if input.peek(syn::Token![=]) {
                        input.parse::<syn::Token![=]>()?;
                        input.parse::<Expr>()?;
                    }
                    continue;
                }
                let pairs = env_pairs(input)?;
                if !settings.env.is_empty() {
                    errors.push(syn::Error::new(
                        key.span(),
                        "duplicate `env`: list every variable in one `env(...)`",
                    ));
                }
                settings.env.extend(pairs);
                continue;
            }
            if key == "exit_codes" {
                if !input.peek(syn::token::Paren) {
                    errors.push(syn::Error::new(
                        key.span(),
                        "`exit_codes` lists the statuses in parentheses: write `exit_codes(1 = \"no match\")`",
                    ));
                    if input.peek(syn::Token![=]) {
                        input.parse::<syn::Token![=]>()?;
                        input.parse::<Expr>()?;
                    }
                    continue;
                }
                let pairs = exit_code_pairs(input)?;
                if !settings.exit_codes.is_empty() {
                    errors.push(syn::Error::new(
                        key.span(),
                        "duplicate `exit_codes`: list every status in one `exit_codes(...)`",
                    ));
                }
                settings.exit_codes.extend(pairs);
                continue;
            }
            if key == "sandbox_read" {
                if !input.peek(syn::token::Paren) {
                    errors.push(syn::Error::new(
                        key.span(),
                        "`sandbox_read` lists the paths in parentheses: write `sandbox_read(\"~/.cargo\", \"~/.rustup\")`",
                    ));
                    if input.peek(syn::Token![=]) {
                        input.parse::<syn::Token![=]>()?;
                        input.parse::<Expr>()?;
                    }
                    continue;
                }
                let paths = path_list(input)?;
                if !settings.sandbox_read.is_empty() {
                    errors.push(syn::Error::new(
                        key.span(),
                        "duplicate `sandbox_read`: list every path in one `sandbox_read(...)`",
                    ));
                }
                settings.sandbox_read.extend(paths);
                continue;
            }
            input.parse::<syn::Token![=]>().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    format!("expected `=` after `{key}`: write `{key} = \"...\"`"),
                )
            })?;
            let value: Expr = input.parse()?;
            if key == "timeout" || key == "max_output" {
                let slot = if key == "timeout" {
                    &mut settings.timeout
                } else {
                    &mut settings.max_output
                };
                match whole_number(&key, &value) {
                    Ok(_) if slot.is_some() => errors.push(syn::Error::new(
                        key.span(),
                        format!("duplicate `{key}`: give it once"),
                    )),
                    Ok(number) => *slot = Some(number),
                    Err(e) => errors.push(e),
                }
            } else if let Some((limit, sized)) = LIMITS.iter().find(|(l, _)| key == l) {
                match limit_value(&key, *sized, &value) {
                    Ok(_) if settings.limits.iter().any(|(l, _, _)| l == limit) => errors.push(
                        syn::Error::new(key.span(), format!("duplicate `{key}`: give it once")),
                    ),
                    Ok((n, span)) => settings.limits.push((limit, n, span)),
                    Err(e) => errors.push(e),
                }
            } else if key == "name" {
                match value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(lit), ..
                    }) => {
                        if name.is_some() {
                            errors.push(syn::Error::new(
                                key.span(),
                                "duplicate `name`: give the tool's name once",
                            ));
                        } else {
                            name = Some(lit);
                        }
                    }
                    other => errors.push(syn::Error::new_spanned(
                        other,
                        "`name` must be a string literal: write `name = \"search_text\"`",
                    )),
                }
            } else {
                errors.push(syn::Error::new(
                    key.span(),
                    format!("unknown argument `{key}` of #[command_tool]: after the template come only `name = \"...\"`, `writes`, `network`, `timeout = SECONDS`, `max_output = BYTES`, `env(NAME = \"value\")`, `sandbox_read(\"PATH\", ...)`, `exit_codes(1 = \"no match\")`, `memory = SIZE`, `file_size = SIZE`, `open_files = N`, `cpu_time = SECONDS` and `processes = N`"),
                ));
            }
        }
        Ok((template, name, access, settings, errors))
    };
    match parser.parse2(args) {
        Ok((template, name, access, settings, errors)) => {
            for e in errors {
                cx.syn_error(e);
            }
            Some(ToolArgs {
                template,
                name,
                access,
                settings,
            })
        }
        Err(e) => {
            cx.syn_error(e);
            None
        }
    }
}

/// A `#[slot(default = ...)]` value.
pub enum DefaultValue {
    /// A string literal: a string, a path or an enum value as the model would send it.
    Str(LitStr),
    /// An integer literal (possibly negated), as its value.
    Int(i128, Span),
    /// A float literal (possibly negated), as its value.
    Float(f64, Span),
    /// Any other expression of the field's type (`Mode::Long`), converted at run time.
    Expr(Box<Expr>),
}

/// A numeric literal bound: its value and where it was written.
pub struct Bound {
    /// The value.
    pub value: f64,
    /// The literal.
    pub span: Span,
}

/// The `#[slot(...)]` attributes of one field.
#[derive(Default)]
pub struct SlotAttrs {
    /// `default = ...`.
    pub default: Option<DefaultValue>,
    /// `pattern = "..."`.
    pub pattern: Option<LitStr>,
    /// `minimum = ..`.
    pub minimum: Option<Bound>,
    /// `maximum = ..`.
    pub maximum: Option<Bound>,
    /// Where the first `#[slot]` attribute stood.
    pub span: Option<Span>,
}

const FIELD_KEYS: &str = "`default = ...`, `pattern = \"...\"`, `minimum = N`, `maximum = N`";

fn path_text(path: &syn::Path) -> String {
    quote::quote!(#path).to_string().replace(' ', "")
}

/// Whether an attribute is ours (`#[slot(...)]`).
pub fn is_slot_attr(attr: &Attribute) -> bool {
    attr.path().is_ident("slot")
}

/// A numeric literal, possibly negated: `3`, `-1`, `0.5`.
fn numeric(expr: &Expr) -> Option<(f64, bool, Span)> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i
            .base10_parse::<i128>()
            .ok()
            .map(|v| (v as f64, true, i.span())),
        Expr::Lit(ExprLit {
            lit: Lit::Float(f), ..
        }) => f.base10_parse::<f64>().ok().map(|v| (v, false, f.span())),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => numeric(expr).map(|(v, int, _)| (-v, int, expr.span())),
        Expr::Group(g) => numeric(&g.expr),
        Expr::Paren(p) => numeric(&p.expr),
        _ => None,
    }
}

fn int_value(expr: &Expr) -> Option<i128> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<i128>().ok(),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => int_value(expr).map(|v| -v),
        Expr::Group(g) => int_value(&g.expr),
        Expr::Paren(p) => int_value(&p.expr),
        _ => None,
    }
}

/// Parses every `#[slot(...)]` on a field.
pub fn slot_attrs(cx: &mut Ctxt, attrs: &[Attribute]) -> SlotAttrs {
    let mut out = SlotAttrs::default();
    for attr in attrs.iter().filter(|a| is_slot_attr(a)) {
        out.span.get_or_insert(attr.span());
        if !matches!(attr.meta, syn::Meta::List(_)) {
            cx.error_spanned_by(
                attr,
                format!("#[slot] takes its settings in parentheses: write `#[slot(default = \".\")]`; settings are {FIELD_KEYS}"),
            );
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_else(|| path_text(&meta.path));
            let duplicate = |cx: &mut Ctxt, seen: bool| {
                if seen {
                    cx.error_spanned_by(
                        &meta.path,
                        format!("duplicate slot setting `{key}`: give it once"),
                    );
                }
            };
            match key.as_str() {
                "default" => {
                    let expr: Expr = meta.value()?.parse()?;
                    duplicate(cx, out.default.is_some());
                    let value = match &expr {
                        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => DefaultValue::Str(s.clone()),
                        Expr::Lit(ExprLit { lit: Lit::Bool(b), .. }) => {
                            cx.error_spanned_by(
                                b,
                                "a slot has no boolean kind, so a boolean default cannot work: \
                                 use an enum with `#[derive(SlotEnum)]` (e.g. values `-i` and `-s`) \
                                 and a string default naming one of its values",
                            );
                            return Ok(());
                        }
                        Expr::Lit(ExprLit { lit: Lit::Char(_) | Lit::ByteStr(_) | Lit::Byte(_) | Lit::CStr(_), .. }) => {
                            cx.error_spanned_by(
                                &expr,
                                "this literal cannot be a slot default: write a string (`\".\"`), an integer (`10`), a float (`0.5`) or a value of the field's type (`Mode::Long`)",
                            );
                            return Ok(());
                        }
                        e => match (numeric(e), int_value(e)) {
                            (Some((_, true, span)), Some(v)) => DefaultValue::Int(v, span),
                            (Some((v, false, span)), _) => DefaultValue::Float(v, span),
                            _ => DefaultValue::Expr(Box::new(expr.clone())),
                        },
                    };
                    if out.default.is_none() {
                        out.default = Some(value);
                    }
                }
                "pattern" => {
                    let expr: Expr = meta.value()?.parse()?;
                    duplicate(cx, out.pattern.is_some());
                    match expr {
                        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => {
                            if out.pattern.is_none() {
                                out.pattern = Some(s);
                            }
                        }
                        other => cx.error_spanned_by(
                            other,
                            "`pattern` must be a string literal holding a regex: write `pattern = r\"^\\d+(,\\d+)?$\"`",
                        ),
                    }
                }
                "minimum" | "maximum" => {
                    let expr: Expr = meta.value()?.parse()?;
                    let slot = if key == "minimum" { &mut out.minimum } else { &mut out.maximum };
                    duplicate(cx, slot.is_some());
                    match numeric(&expr) {
                        Some((value, _, _)) => {
                            if slot.is_none() {
                                *slot = Some(Bound { value, span: expr.span() });
                            }
                        }
                        None => cx.error_spanned_by(
                            &expr,
                            format!("`{key}` must be a number literal: write `{key} = 1` or `{key} = 0.5`"),
                        ),
                    }
                }
                "value" => refuse_setting(
                    cx,
                    &meta,
                    "`value` belongs on an enum variant with #[derive(SlotEnum)], not on a field; \
                     a field takes `default = ...`, `pattern = \"...\"`, `minimum = N`, `maximum = N`",
                )?,
                other => refuse_setting(
                    cx,
                    &meta,
                    format!("unknown slot setting `{other}`: a field takes {FIELD_KEYS}"),
                )?,
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(syn::Error::new(
                e.span(),
                format!(
                    "{e}: write the settings as `#[slot(key = value, ...)]`, keys are {FIELD_KEYS}"
                ),
            ));
        }
    }
    if let (Some(min), Some(max)) = (&out.minimum, &out.maximum)
        && min.value > max.value
    {
        cx.error_at(
            max.span,
            format!(
                "`maximum = {}` is below `minimum = {}`: no value could pass; swap them",
                max.value, min.value
            ),
        );
    }
    out
}

/// Reports `message` at a setting's key and reads past its `= value`, if any, so that the
/// settings after it are still read (and their errors reported too).
fn refuse_setting(
    cx: &mut Ctxt,
    meta: &syn::meta::ParseNestedMeta,
    message: impl std::fmt::Display,
) -> syn::Result<()> {
    cx.error_spanned_by(&meta.path, message);
    if meta.input.peek(syn::Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    }
    Ok(())
}

/// The `#[slot(value = "...")]` of an enum variant.
pub fn variant_value(cx: &mut Ctxt, attrs: &[Attribute]) -> Option<LitStr> {
    let mut value: Option<LitStr> = None;
    for attr in attrs.iter().filter(|a| is_slot_attr(a)) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("value") {
                let expr: Expr = meta.value()?.parse()?;
                match expr {
                    Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => {
                        if value.is_some() {
                            cx.error_spanned_by(&meta.path, "duplicate slot setting `value`: give it once");
                        } else {
                            value = Some(s);
                        }
                    }
                    other => cx.error_spanned_by(
                        other,
                        "`value` must be a string literal: write `#[slot(value = \"-l\")]`",
                    ),
                }
            } else {
                let key = path_text(&meta.path);
                refuse_setting(
                    cx,
                    &meta,
                    format!("unknown slot setting `{key}` on an enum variant: a variant takes only `value = \"...\"` (the text the model sends and argv gets)"),
                )?;
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(syn::Error::new(
                e.span(),
                format!("{e}: write `#[slot(value = \"-l\")]`"),
            ));
        }
    }
    value
}

/// The doc comment of an item, lines trimmed of the one leading space rustdoc adds, blank
/// lines at both ends removed; `None` when there is none or it is blank.
pub fn doc_comment(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            for line in s.value().lines() {
                lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
            }
        }
    }
    let text = lines.join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}
