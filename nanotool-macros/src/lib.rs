//! # nanotool-macros
//!
//! The code form of a nanotool command tool: `#[command_tool("TEMPLATE")]` on a struct whose
//! fields are the slots, and `#[derive(SlotEnum)]` for enum slots. Use them through the
//! `nanotool` crate (`nanotool::command_tool`, `nanotool::SlotEnum`); the generated code
//! names only `::nanotool::__private_v0_1` (the facade's hidden module, versioned), so
//! `nanotool` is the one dependency a user needs.
//!
//! The macro is a thin compile-time client of `nanotool-runtime`: it parses the template with
//! the runtime's own parser and applies the runtime's own policy, so the code form and the
//! descriptor form cannot drift. What it cannot see — the field types — it hands to the
//! runtime's `SlotType` trait as const assertions.
//!
//! `#[command_tool]` runs in three stages, each a module: read (`ast`), check (`check`), write
//! out (`expand`).
//!
//! | module | what lives there |
//! |---|---|
//! | `ast` | stage 1: the struct and the attribute read into a small syntax tree |
//! | `attr` | the parsing `ast` uses: the macro's arguments (the `writes` and `network` flags, or `network = "local"`, as the runtime's `Access`), `#[slot(...)]` settings, doc comments |
//! | `check` | stage 2, every check: doc comments, template, policy, slot ↔ field, tool name, pattern regexes, and the type-dependent rules as assertions for the compiler |
//! | `expand` | stage 3: writes out the impl and the assertions, or the errors beside a stub impl |
//! | `slot_enum` | `#[derive(SlotEnum)]` |
//! | `ctxt` | the error collector: one build shows every mistake |
//! | `case` | `snake_case` tool names, `kebab-case` enum values |
//! | `private` | the path of the facade's hidden module, the one path generated code names |
//!
//! ## Features
//!
//! | feature | what it adds |
//! |---|---|
//! | (none) | the crate has no optional features |
//!
//! ## Quick start
//!
//! Depend on `nanotool` and write `#[nanotool::command_tool("wc -l <file>")]` on a struct
//! whose fields are the slots; the runnable examples are in the facade's documentation of
//! `command_tool` and `SlotEnum` (a doctest here would need `nanotool`, which depends on this
//! crate).
#![deny(missing_docs)]

use proc_macro::TokenStream;

mod ast;
mod attr;
mod case;
mod check;
mod ctxt;
mod expand;
mod private;
mod slot_enum;

/// Turns a struct into a command tool whose template is checked at compile time.
///
/// The example is in the facade's documentation (`nanotool::command_tool`, below this text
/// there), where it runs as a doctest: this crate cannot depend on `nanotool`, which depends
/// on it.
///
/// # What it checks at compile time
///
/// - the template, with the runtime's parser: no shell metacharacter, control or invisible
///   character; balanced placeholders; the binary a literal (the error shows the template
///   with a caret under the offending character);
/// - the policy, with the runtime's `check_template`: no denied binary (`rm`, `sh`,
///   `busybox`, … also as `/bin/rm` or `./rm`); no slot that can carry code where the binary
///   takes code (`python3 -c <code>`, `awk <prog> <file>`, `sed <script> <file>`). A slot
///   there must have a type that cannot carry code (integer, `f64`, a `SlotEnum`) or a
///   `#[slot(pattern = "...")]`;
/// - every placeholder has a field and every field a placeholder;
/// - the struct's doc comment (the tool's description) and every field's (the slot's);
/// - the tool name (`snake_case` of the struct, or `name = "..."`) against
///   `^[A-Za-z0-9_-]{1,64}$`;
/// - `#[slot(...)]` settings: `default = ...`, `pattern = "..."` (compiled with `regex`),
///   `minimum = N`, `maximum = N`; unknown and repeated settings are errors;
/// - every field type implements `SlotType` (`String`, integers, `f32`/`f64`, `WorkPath`,
///   `SlotEnum` enums, `Option<T>`);
/// - the profile: `writes` and `network` are flags (no value), except `network = "local"`
///   (a private loopback only, the descriptor's `"network": "local"`); each given once.
///
/// # What it generates
///
/// One `impl CommandStruct` (name, description, template, the `CommandTool` built once in a
/// `OnceLock` through the runtime's `CommandSpec::new`, and the conversions between the
/// typed fields and the JSON arguments), plus a const assertion per type-dependent rule.
/// The typed API is the trait's provided methods — `tool()` (a `Tool` to register),
/// `run(&kernel)`, `argv(root)`, `from_args(&json, root)` and `command_spec()` — so bring
/// `nanotool::CommandStruct` into scope to call them, as `clap::Parser` for a derived parser.
/// A typed call and a JSON call both go through `CommandSpec::render`.
///
/// The generated code is small and non-generic, and the provided methods are instantiated
/// only where a crate calls them: a hundred tools build about 1.1× as long as a hundred
/// hand-written `Tool` impls (BENCHMARKS.md, `scripts/bench-compile`).
#[proc_macro_attribute]
pub fn command_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(attr.into(), item.into()).into()
}

/// Makes a unit-only enum an `enum` slot type.
///
/// A variant's value is `#[slot(value = "...")]`, or else its name in kebab-case
/// (`LongFormat` → `long-format`). Values are skeleton text, checked here: one argv element,
/// no metacharacter, no placeholder; they may begin with `-` (`-l`).
///
/// The example is in the facade's documentation (`nanotool::SlotEnum`), where it runs as a
/// doctest.
#[proc_macro_derive(SlotEnum, attributes(slot))]
pub fn slot_enum(item: TokenStream) -> TokenStream {
    slot_enum::derive(item.into()).into()
}
