//! The first stage of `#[command_tool]`: the struct and the attribute's arguments read into a
//! small syntax tree ([`Input`]), with every problem of syntax (not a struct with named
//! fields, a generic struct, a bad `#[slot(...)]`) reported to the [`Ctxt`]. The checks
//! ([`crate::check::check`]) and the expansion ([`crate::expand`]) read only this.

use crate::attr::{self, SlotAttrs, ToolArgs};
use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Fields, Ident, Type};

/// A `#[command_tool]` struct, read.
pub struct Input {
    /// The struct as the user wrote it, without the `#[slot(...)]` attributes.
    pub item: DeriveInput,
    /// The attribute's arguments; `None` when they could not be read.
    pub args: Option<ToolArgs>,
    /// The slots, one per named field; `None` when the item is not a struct with named
    /// fields (a unit struct has none).
    pub fields: Option<Vec<Field>>,
    /// The struct's doc comment: the tool's description (`None` when missing, an error of
    /// [`crate::check`]).
    pub description: Option<String>,
}

/// One named field: one slot.
pub struct Field {
    /// The field's identifier.
    pub ident: Ident,
    /// The slot's name (the identifier without `r#`).
    pub name: String,
    /// The field's type.
    pub ty: Type,
    /// The field's doc comment: the slot's description (`None` when missing, an error of
    /// [`crate::check`]).
    pub doc: Option<String>,
    /// What `#[slot(...)]` says.
    pub attrs: SlotAttrs,
}

/// Reads `#[command_tool(args)] item`. An item that is not even Rust syntax for a type is
/// answered at once: `Err` holds the errors and the item as given.
pub fn parse(cx: &mut Ctxt, args: TokenStream, item: TokenStream) -> Result<Input, TokenStream> {
    let mut item: DeriveInput = match syn::parse2(item.clone()) {
        Ok(input) => input,
        Err(_) => {
            cx.error_at(
                Span::call_site(),
                "#[command_tool] goes on a struct with named fields, one per slot: \
                 `struct Grep { /// Text to search\n pattern: String }`",
            );
            let errors = std::mem::take(cx).into_compile_errors();
            return Err(quote!(#errors #item));
        }
    };
    let args = attr::tool_args(cx, args);
    let named = named_fields(cx, &item);
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &item.generics,
            "a command tool struct cannot be generic: its slots are fixed by the template; use concrete field types",
        );
    }

    let description = attr::doc_comment(&item.attrs);

    let fields = named.map(|named| {
        named
            .iter()
            .filter_map(|f| field(cx, f))
            .collect::<Vec<_>>()
    });

    // The struct as the user wrote it, without our field attributes.
    if let Data::Struct(data) = &mut item.data {
        for f in data.fields.iter_mut() {
            f.attrs.retain(|a| !attr::is_slot_attr(a));
        }
    }
    Ok(Input {
        item,
        args,
        fields,
        description,
    })
}

/// The named fields of a struct (none for a unit struct); `None`, with an error, for any
/// other item.
fn named_fields(cx: &mut Ctxt, item: &DeriveInput) -> Option<Vec<syn::Field>> {
    match &item.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => Some(named.named.iter().cloned().collect()),
            Fields::Unit => Some(Vec::new()),
            Fields::Unnamed(fields) => {
                cx.error_spanned_by(
                    fields,
                    "#[command_tool] needs named fields, one per slot: write `struct Grep { pattern: String }`, not a tuple struct",
                );
                None
            }
        },
        Data::Enum(data) => {
            cx.error_spanned_by(
                data.enum_token,
                "#[command_tool] goes on a struct with named fields, one per slot; for an enum of values a slot may take, use #[derive(SlotEnum)] and make it a field's type",
            );
            None
        }
        Data::Union(data) => {
            cx.error_spanned_by(
                data.union_token,
                "#[command_tool] goes on a struct with named fields, one per slot, not on a union",
            );
            None
        }
    }
}

/// One field read: its name, doc comment and `#[slot(...)]` settings.
fn field(cx: &mut Ctxt, f: &syn::Field) -> Option<Field> {
    let ident = f.ident.clone()?;
    let name = ident.unraw().to_string();
    let doc = attr::doc_comment(&f.attrs);
    let attrs = attr::slot_attrs(cx, &f.attrs);
    Some(Field {
        ident,
        name,
        ty: f.ty.clone(),
        doc,
        attrs,
    })
}
