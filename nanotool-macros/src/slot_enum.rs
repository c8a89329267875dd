//! `#[derive(SlotEnum)]`: a unit-only enum as an `enum` slot.
//!
//! Each variant's value is `#[slot(value = "...")]`, or the variant's name in kebab-case
//! (`LongFormat` → `long-format`). Values are the author's text and follow the runtime's rule
//! for enum values ([`check_enum_value`]): any printable text, spaces and `;` included (each
//! value stays one argv element), but no control character other than newline and tab, no
//! Unicode whitespace other than the space, no invisible character.

use crate::attr;
use crate::ctxt::Ctxt;
use nanotool_runtime::slot::check_enum_value;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

/// Checks one value with the runtime's own rule for enum values, as a descriptor's are.
fn check_value(value: &str) -> Result<(), String> {
    check_enum_value(value)
        .map_err(|reason| format!("enum value `{}` {reason}", value.escape_debug()))
}

/// Expands `#[derive(SlotEnum)]`.
pub fn derive(item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::default();
    let input: DeriveInput = match syn::parse2(item) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let ident = &input.ident;
    let Data::Enum(data) = &input.data else {
        cx.error_spanned_by(
            ident,
            "#[derive(SlotEnum)] goes on an enum of unit variants, one per value the slot takes: `enum Mode { #[slot(value = \"-l\")] Long, One }`",
        );
        return cx.into_compile_errors();
    };
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "a SlotEnum cannot be generic: its values are fixed text; remove the type parameters",
        );
    }
    if data.variants.is_empty() {
        cx.error_spanned_by(
            ident,
            format!("enum `{ident}` has no variants, so the slot could take no value: add one variant per value"),
        );
    }
    let mut variants = Vec::new();
    let mut values: Vec<String> = Vec::new();
    for v in &data.variants {
        if !matches!(v.fields, Fields::Unit) {
            cx.error_spanned_by(
                &v.fields,
                format!("variant `{}` holds data, but a slot value is fixed text: make it a unit variant (`{}`), one per value", v.ident, v.ident),
            );
        }
        let lit = attr::variant_value(&mut cx, &v.attrs);
        let (value, span) = match &lit {
            Some(lit) => (lit.value(), lit.span()),
            None => (
                crate::case::kebab_case(&v.ident.to_string()),
                v.ident.span(),
            ),
        };
        if let Err(msg) = check_value(&value) {
            cx.error_at(
                span,
                format!("{msg}; write `#[slot(value = \"...\")]` with plain text"),
            );
        } else if values.contains(&value) {
            cx.error_at(
                span,
                format!(
                    "enum value `{value}` is given twice: each variant needs a value of its own"
                ),
            );
        }
        values.push(value);
        variants.push(&v.ident);
    }
    let p = crate::private::path();
    if !cx.is_ok() {
        // Beside the errors, an impl whose bodies never run (the build fails on the errors),
        // so the fields of this type raise no follow-on errors.
        let errors = cx.into_compile_errors();
        if !input.generics.params.is_empty() {
            return errors;
        }
        return quote! {
            #errors
            #[automatically_derived]
            impl #p::SlotType for #ident {
                const CLASS: #p::SlotClass = #p::SlotClass::Enum;
                fn kind() -> #p::SlotKind {
                    ::core::unreachable!()
                }
                fn from_json(_: &#p::Value) -> ::core::result::Result<Self, ::std::string::String> {
                    ::core::unreachable!()
                }
                fn to_json(&self) -> ::core::option::Option<#p::Value> {
                    ::core::unreachable!()
                }
            }
        };
    }
    let list = values.join(", ");
    let expected = format!("expected one of {list}, got ");
    quote! {
        #[automatically_derived]
        impl #p::SlotType for #ident {
            const CLASS: #p::SlotClass = #p::SlotClass::Enum;

            fn kind() -> #p::SlotKind {
                #p::SlotKind::Enum(::std::vec![#(::std::string::String::from(#values)),*])
            }

            fn from_json(value: &#p::Value) -> ::core::result::Result<Self, ::std::string::String> {
                match value.as_str() {
                    #( ::core::option::Option::Some(#values) => ::core::result::Result::Ok(Self::#variants), )*
                    _ => ::core::result::Result::Err(::std::format!("{}{}", #expected, value)),
                }
            }

            fn to_json(&self) -> ::core::option::Option<#p::Value> {
                ::core::option::Option::Some(#p::Value::from(match self {
                    #( Self::#variants => #values, )*
                }))
            }
        }
    }
}
