//! The expansion of `#[command_tool]`: read the struct ([`crate::ast`]), check everything
//! ([`crate::check`]), then generate the
//! [`CommandStruct`](nanotool_runtime::slot_type::CommandStruct) impl (whose provided methods
//! are the typed API), or — when anything is wrong — every error beside a stub impl, so the user sees
//! the real mistakes and no follow-on errors.

use crate::ast::{self, Field};
use crate::attr::DefaultValue;
use crate::check::{self, CodeEntry};
use crate::ctxt::Ctxt;
use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Ident};

/// Expands `#[command_tool(args)] item`: parse ([`ast::parse`]), check
/// ([`check::check`]), then generate the impl, or every error beside a stub.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::default();
    let input = match ast::parse(&mut cx, args, item) {
        Ok(input) => input,
        Err(answer) => return answer,
    };
    let checked = check::check(&mut cx, &input);
    let item = &input.item;
    let (true, Some(args), Some(fields)) = (cx.is_ok(), &input.args, &input.fields) else {
        let errors = cx.into_compile_errors();
        let stub = if input.fields.is_some() && item.generics.params.is_empty() {
            fallback(&item.ident)
        } else {
            TokenStream::new()
        };
        return quote!(#item #errors #stub);
    };
    let description = input.description.as_deref().unwrap_or_default();
    generate(
        item,
        &checked.name,
        description,
        &args.template,
        (args.writes, args.network),
        fields,
        &checked.code_entries,
    )
}

fn p() -> TokenStream {
    quote!(::nanotool::__private)
}

/// A const assertion at `span`: the build fails with `message`, pointing at `span`, when
/// `condition` (a const expression over a field type's `SlotType`) is false. Every token
/// carries `span`, so the error points at the field, not at the attribute.
fn assertion(span: Span, condition: TokenStream, message: &str) -> TokenStream {
    let p = p();
    let message = Literal::string(message);
    let call = respan(quote!(#p::require(#condition, #message)), span);
    quote_spanned! {span=>
        const _: () = #call;
    }
}

/// The same tokens, every one at `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = proc_macro2::TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

/// What is emitted beside the errors: the same trait impl with bodies that never run (the
/// build fails on the errors), so uses of the struct elsewhere raise no follow-on errors.
fn fallback(ident: &Ident) -> TokenStream {
    let p = p();
    quote! {
        #[automatically_derived]
        impl #p::CommandStruct for #ident {
            const NAME: &'static str = "";
            const DESCRIPTION: &'static str = "";
            const TEMPLATE: &'static str = "";
            fn built() -> ::core::result::Result<&'static #p::CommandTool, &'static #p::SpecError> {
                ::core::unreachable!()
            }
            fn to_args(&self) -> #p::Value {
                ::core::unreachable!()
            }
            fn from_validated(_: &#p::CommandSpec, _: &#p::Value) -> ::core::result::Result<Self, #p::SlotError> {
                ::core::unreachable!()
            }
        }
    }
}

/// The field's `DefaultDef`, and the const assertion that its kind fits the field's type.
fn default_tokens(f: &Field) -> (TokenStream, TokenStream) {
    let p = p();
    let ty = &f.ty;
    let name = &f.name;
    let Some(default) = &f.attrs.default else {
        return (quote!(#p::DefaultDef::None), TokenStream::new());
    };
    let (class_check, what, span) = match default {
        DefaultValue::Str(lit) => ("takes_string_default", "a string", lit.span()),
        DefaultValue::Int(_, span) => ("takes_integer_default", "an integer", *span),
        DefaultValue::Float(_, span) => ("takes_float_default", "a float", *span),
        DefaultValue::Expr(expr) => {
            let expr = expr.as_ref();
            let typed = quote_spanned! {expr.span()=>
                #p::DefaultDef::Typed(|| <#ty as #p::SlotType>::to_json(&(#expr)))
            };
            return (typed, TokenStream::new());
        }
    };
    let check = format_ident!("{}", class_check);
    let message = format!(
        "field `{name}`: the default is {what}, which does not fit this field's slot kind; write a default of the field's kind (a string for a `String`, `WorkPath` or enum value, an integer for an integer, a number for `f64`), or a value of the field's type such as `Mode::Long`"
    );
    let assertion = assertion(
        span,
        quote!(<#ty as #p::SlotType>::CLASS.#check()),
        &message,
    );
    let value = match default {
        DefaultValue::Str(lit) => quote!(#p::DefaultDef::Str(#lit)),
        DefaultValue::Int(v, _) => match i64::try_from(*v) {
            Ok(v) => {
                let lit = Literal::i64_suffixed(v);
                quote!(#p::DefaultDef::Int(#lit))
            }
            Err(_) => {
                let lit = Literal::u64_suffixed(u64::try_from(*v).unwrap_or(u64::MAX));
                quote!(#p::DefaultDef::UInt(#lit))
            }
        },
        DefaultValue::Float(v, _) => {
            let lit = Literal::f64_suffixed(*v);
            quote!(#p::DefaultDef::Float(#lit))
        }
        DefaultValue::Expr(_) => TokenStream::new(),
    };
    (value, assertion)
}

fn option_tokens<T: quote::ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

fn generate(
    input: &DeriveInput,
    name: &str,
    description: &str,
    template: &syn::LitStr,
    (writes, network): (bool, bool),
    fields: &[Field],
    code_entries: &[CodeEntry],
) -> TokenStream {
    let p = p();
    let ident = &input.ident;
    let mut assertions = TokenStream::new();
    let mut specs = Vec::new();
    for f in fields {
        let ty = &f.ty;
        let name = &f.name;
        let doc = &f.doc;
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
            let message = format!(
                "slot `{name}` stands where the command takes code, and the type of field `{name}` can carry any text:\n{}\nin Rust: fix the code in the template, or give field `{name}` an integer type, `f64`, a #[derive(SlotEnum)] enum{path}, or a `String` with #[slot(pattern = \"...\")] whose regex admits no code",
                entry.message
            );
            assertions.extend(assertion(ty.span(), condition, &message));
        }
        let (default, default_check) = default_tokens(f);
        assertions.extend(default_check);
        if let Some(pattern) = &f.attrs.pattern {
            let message = format!(
                "field `{name}`: `pattern` applies to a `String` slot only; remove it, or make the field a `String` (an integer or enum is already constrained, a path is checked by confinement)"
            );
            assertions.extend(assertion(
                pattern.span(),
                quote!(<#ty as #p::SlotType>::CLASS.takes_pattern()),
                &message,
            ));
        }
        for (bound, key) in [(&f.attrs.minimum, "minimum"), (&f.attrs.maximum, "maximum")] {
            if let Some(bound) = bound {
                let message = format!(
                    "field `{name}`: `{key}` applies to an integer or number slot only; remove it, or give the field an integer type or `f64`"
                );
                assertions.extend(assertion(
                    bound.span,
                    quote!(<#ty as #p::SlotType>::CLASS.takes_bounds()),
                    &message,
                ));
            }
        }
        let new_spec = quote_spanned! {ty.span()=> <#ty as #p::SlotType>::slot_spec };
        let pattern = option_tokens(f.attrs.pattern.as_ref());
        let minimum = option_tokens(
            f.attrs
                .minimum
                .as_ref()
                .map(|b| Literal::f64_suffixed(b.value)),
        );
        let maximum = option_tokens(
            f.attrs
                .maximum
                .as_ref()
                .map(|b| Literal::f64_suffixed(b.value)),
        );
        specs.push(quote! {
            #p::SlotDef {
                name: #name,
                description: #doc,
                spec: #new_spec,
                default: #default,
                pattern: #pattern,
                minimum: #minimum,
                maximum: #maximum,
            }
        });
    }
    let idents: Vec<&Ident> = fields.iter().map(|f| &f.ident).collect();
    let names: Vec<&String> = fields.iter().map(|f| &f.name).collect();
    // `&self.field` spanned at the field's type: a type that is no slot type is reported there.
    let values: Vec<TokenStream> = fields
        .iter()
        .map(|f| {
            let (ident, ty) = (&f.ident, &f.ty);
            quote_spanned! {ty.span()=> <#ty as #p::SlotType>::slot_value(&self.#ident) }
        })
        .collect();
    let field: Vec<TokenStream> = fields
        .iter()
        .map(|f| {
            let ty = &f.ty;
            quote_spanned! {ty.span()=> <#ty as #p::SlotType>::field }
        })
        .collect();
    // Generated bodies stay small and non-generic: `to_args` is one call of a runtime
    // function, `from_validated` matches instead of `?` (no per-struct `FromResidual`), and
    // the typed API is the trait's provided methods, instantiated only where called.
    quote! {
        #input

        #assertions

        #[automatically_derived]
        impl #p::CommandStruct for #ident {
            const NAME: &'static str = #name;
            const DESCRIPTION: &'static str = #description;
            const TEMPLATE: &'static str = #template;

            fn built() -> ::core::result::Result<&'static #p::CommandTool, &'static #p::SpecError> {
                static TOOL: #p::OnceLock<::core::result::Result<#p::CommandTool, #p::SpecError>> =
                    #p::OnceLock::new();
                TOOL.get_or_init(|| #p::build_tool(#name, #description, #template, &[#(#specs),*], #writes, #network))
                    .as_ref()
            }

            fn to_args(&self) -> #p::Value {
                #p::args_object(&[#( (#names, #values) ),*])
            }

            fn from_validated(
                _spec: &#p::CommandSpec,
                _args: &#p::Value,
            ) -> ::core::result::Result<Self, #p::SlotError> {
                ::core::result::Result::Ok(Self {
                    #(
                        #idents: match #field(_spec, _args, #names) {
                            ::core::result::Result::Ok(value) => value,
                            ::core::result::Result::Err(err) => return ::core::result::Result::Err(err),
                        },
                    )*
                })
            }
        }
    }
}
