//! The one path the generated code names: the facade's hidden, versioned module
//! (`::nanotool::__private_v0_1` for 0.1.x), so `nanotool` is the one dependency a user needs
//! and a macro of another release fails to build against this facade instead of compiling
//! against items whose meaning changed.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// `::nanotool::__private_vMAJOR_MINOR`, from this crate's version (the workspace releases
/// the facade and the macro together).
pub fn path() -> TokenStream {
    let module = Ident::new(
        &format!(
            "__private_v{}_{}",
            env!("CARGO_PKG_VERSION_MAJOR"),
            env!("CARGO_PKG_VERSION_MINOR")
        ),
        Span::call_site(),
    );
    quote!(::nanotool::#module)
}
