//! # nanotool-macros
//!
//! `#[command_tool("TEMPLATE")]`: the code form of a nanotool command tool. STUB.
use proc_macro::TokenStream;

/// Turns a struct into a command tool whose template is checked at compile time.
#[proc_macro_attribute]
pub fn command_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let _ = attr;
    item
}
