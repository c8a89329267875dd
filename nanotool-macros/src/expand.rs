//! The expansion of `#[command_tool]`: read the struct ([`crate::ast`]), check everything
//! ([`crate::check`]), then write out the
//! [`CommandStruct`](nanotool_runtime::code_form::CommandStruct) impl (whose provided methods
//! are the typed API) and the checks' assertions, or — when anything is wrong — every error
//! beside a stub impl, so the user sees the real mistakes and no follow-on errors. Nothing
//! here decides whether a tool is valid.

use crate::ast::{self, Field};
use crate::attr::{DefaultValue, ToolArgs};
use crate::check::{self, Assertion};
use crate::ctxt::Ctxt;
use crate::private;
use nanotool_runtime::kernel::Access;
use proc_macro2::{Group, Literal, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
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
    let assertions: TokenStream = checked.assertions.iter().map(assertion).collect();
    generate(item, &checked.name, description, args, fields, &assertions)
}

/// An [`Assertion`] written out as a const item: the build fails with its message when its
/// condition is false. Every token carries the assertion's span, so the error points at the
/// field, not at the attribute.
fn assertion(a: &Assertion) -> TokenStream {
    let p = private::path();
    let (span, condition) = (a.span, &a.condition);
    let message = Literal::string(&a.message);
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
            if let TokenTree::Group(g) = &tt {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = TokenTree::Group(group);
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
    let p = private::path();
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

/// The field's `DefaultDef`: how its default was written down.
fn default_tokens(f: &Field) -> TokenStream {
    let p = private::path();
    let ty = &f.ty;
    match &f.attrs.default {
        None => quote!(#p::DefaultDef::None),
        Some(DefaultValue::Str(lit)) => quote!(#p::DefaultDef::Str(#lit)),
        Some(DefaultValue::Int(v, _)) => match i64::try_from(*v) {
            Ok(v) => {
                let lit = Literal::i64_suffixed(v);
                quote!(#p::DefaultDef::Int(#lit))
            }
            Err(_) => {
                let lit = Literal::u64_suffixed(u64::try_from(*v).unwrap_or(u64::MAX));
                quote!(#p::DefaultDef::UInt(#lit))
            }
        },
        Some(DefaultValue::Float(v, _)) => {
            let lit = Literal::f64_suffixed(*v);
            quote!(#p::DefaultDef::Float(#lit))
        }
        Some(DefaultValue::Expr(expr)) => {
            let expr = expr.as_ref();
            quote_spanned! {expr.span()=>
                #p::DefaultDef::Typed(|| <#ty as #p::SlotType>::to_json(&(#expr)))
            }
        }
    }
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
    args: &ToolArgs,
    fields: &[Field],
    assertions: &TokenStream,
) -> TokenStream {
    let (template, access, settings) = (&args.template, args.access, &args.settings);
    let p = private::path();
    // Checked already (`check::settings`): in range, so they fit a `u64`.
    let timeout = option_tokens(
        settings
            .timeout
            .map(|(v, _)| Literal::u64_suffixed(v as u64)),
    );
    let max_output = option_tokens(
        settings
            .max_output
            .map(|(v, _)| Literal::u64_suffixed(v as u64)),
    );
    let limit = |name: &str| {
        option_tokens(
            settings
                .limits
                .iter()
                .find(|(l, _, _)| *l == name)
                .map(|(_, v, _)| Literal::u64_suffixed(*v as u64)),
        )
    };
    let (memory, file_size, open_files, cpu_time, processes) = (
        limit("memory"),
        limit("file_size"),
        limit("open_files"),
        limit("cpu_time"),
        limit("processes"),
    );
    let sandbox_read = &settings.sandbox_read;
    let env_names: Vec<String> = settings.env.iter().map(|(n, _)| n.to_string()).collect();
    let env_values: Vec<&syn::LitStr> = settings.env.iter().map(|(_, v)| v).collect();
    let exit_statuses: Vec<Literal> = settings
        .exit_codes
        .iter()
        .map(|(c, _, _)| Literal::i64_suffixed(*c))
        .collect();
    let exit_meanings: Vec<&syn::LitStr> = settings.exit_codes.iter().map(|(_, _, m)| m).collect();
    let ident = &input.ident;
    let mut specs = Vec::new();
    for f in fields {
        let ty = &f.ty;
        let name = &f.name;
        let doc = f.doc.as_deref().unwrap_or_default();
        let default = default_tokens(f);
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
    let Access {
        writes,
        network,
        local_network,
    } = access;
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
                TOOL.get_or_init(|| #p::build_tool(#name, #description, #template, &[#(#specs),*], #p::Access { writes: #writes, network: #network, local_network: #local_network }, #p::SettingsDef { timeout: #timeout, max_output: #max_output, env: &[#( (#env_names, #env_values) ),*], sandbox_read: &[#(#sandbox_read),*], memory: #memory, file_size: #file_size, open_files: #open_files, cpu_time: #cpu_time, processes: #processes, exit_codes: &[#( (#exit_statuses, #exit_meanings) ),*] }))
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
